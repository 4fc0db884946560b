import { ApprovePairingRequest, ChannelGrantRequest, ChannelPlatform, GrantSubject } from "@edgeloop/protocol/channels";
import { Hono } from "hono";
import { z } from "zod";
import { channelDirectoryOf, chatThreadFor } from "../../durable-objects/addresses.js";
import { grantsInForce } from "../../durable-objects/channels/directory/grants-in-force.js";
import { PLATFORMS, platformNamed } from "../../durable-objects/channels/platforms/index.js";
import { receiveWebhook } from "../../durable-objects/channels/receive-webhook.js";
import { threadIdentity } from "../../durable-objects/channels/thread-key.js";
import { problemResponse } from "../../runtime/problem.js";
import type { AppEnv } from "../env.js";
import { authorizeAdmin } from "../middleware/authorize.js";
import { countRejections } from "../middleware/count-rejections.js";
import { readJsonBody } from "../read-body.js";

/** A platform's webhook body is small (Telegram's updates are a few KB); anything far larger is not one. */
const MAX_WEBHOOK_BYTES = 1_000_000;

const RegisterBody = z
  .object({
    url: z
      .string()
      .url()
      .startsWith(
        "https://",
        "the platform only calls https URLs: for a worker on this machine, put a tunnel in front of it " +
          "(e.g. `cloudflared tunnel --url http://127.0.0.1:8787`) and pass its address with --webhook-url https://…",
      ),
  })
  .strict();

/**
 * `/v1/channels`: the chat platforms' webhooks (verified each platform's own way, no edgeloop
 * token) and the admin's view of who may reach devices from chats (docs/channels.md).
 *
 *   GET|POST /v1/channels/:platform              the platform's webhook (GET: WhatsApp's verify handshake)
 *   GET      /v1/channels                         status, pending pairings, grants, recent refusals
 *   POST     /v1/channels/pairings/:code/approve  grant the user who was given the code
 *   POST     /v1/channels/grants                  bind a user or group chat without a code
 *   DELETE   /v1/channels/grants/:platform/:subject
 *   POST     /v1/channels/:platform/register      point the platform at this worker's webhook
 */
export const channels = new Hono<AppEnv>();

channels.use("*", countRejections("/v1/channels"));

channels.get("/", authorizeAdmin, async (c) => {
  const directory = channelDirectoryOf(c.env);
  const [pairings, grants, audit] = await Promise.all([
    directory.pairings(),
    directory.grants(),
    directory.recentAudit(),
  ]);
  const platforms = ChannelPlatform.options.map((platform) => {
    const registered = PLATFORMS[platform];
    const settings = registered?.settings(c.env);
    return {
      platform,
      configured: settings?.ok === true && settings.value !== null,
      webhook_path: `/v1/channels/${platform}`,
      ...(!registered
        ? { error: "not built into this worker" }
        : settings?.ok === false
          ? { error: settings.error }
          : {}),
    };
  });
  return c.json({ platforms, pairings, grants, audit });
});

channels.post("/pairings/:code/approve", authorizeAdmin, async (c) => {
  const body = await readJsonBody(c, ApprovePairingRequest);
  if (!body.ok) return body.response;
  const refused = unknownPool(c.var.config.POOLS, body.value.pools);
  if (refused) return refused;
  const approved = await channelDirectoryOf(c.env).approvePairing(c.req.param("code"), {
    agents: [...new Set(body.value.agents)],
    pools: [...new Set(body.value.pools)],
    target: body.value.target ?? null,
    ...(body.value.scopes ? { scopes: [...new Set(body.value.scopes)] } : {}),
  });
  grantsInForce.forget();
  if (!approved)
    return problemResponse(404, "Not found", `no pairing code '${c.req.param("code")}' waiting (codes last an hour)`);
  const { pairing, grant } = approved;
  const identity = threadIdentity(pairing.platform, {
    chatId: pairing.chat_id,
    ...(pairing.thread_id ? { threadId: pairing.thread_id } : {}),
  });
  const reach = [...grant.agents, ...grant.pools.map((p) => `pool:${p}`)].join(", ");
  await chatThreadFor(c.env, identity.key).notify(
    identity,
    `paired:${pairing.code}`,
    `Paired. You may now talk to ${reach}.`,
  );
  return c.json({ pairing, grant });
});

channels.post("/grants", authorizeAdmin, async (c) => {
  const body = await readJsonBody(c, ChannelGrantRequest);
  if (!body.ok) return body.response;
  const refused = unknownPool(c.var.config.POOLS, body.value.pools);
  if (refused) return refused;
  const { platform, subject, name, agents, pools, scopes, target } = body.value;
  const grant = await channelDirectoryOf(c.env).putGrant({
    platform,
    subject,
    agents: [...new Set(agents)],
    pools: [...new Set(pools)],
    target: target ?? null,
    ...(name ? { name } : {}),
    ...(scopes ? { scopes: [...new Set(scopes)] } : {}),
  });
  grantsInForce.forget();
  return c.json(grant, 201);
});

channels.delete("/grants/:platform/:subject", authorizeAdmin, async (c) => {
  const platform = ChannelPlatform.safeParse(c.req.param("platform"));
  const subject = GrantSubject.safeParse(c.req.param("subject"));
  if (!platform.success || !subject.success)
    return problemResponse(400, "Invalid grant", "a platform name and user:<id> or chat:<id>");
  const found = await channelDirectoryOf(c.env).deleteGrant(platform.data, subject.data);
  grantsInForce.forget();
  if (!found) return problemResponse(404, "Not found", `no grant for ${subject.data} on ${platform.data}`);
  return c.json({ platform: platform.data, subject: subject.data, revoked: true });
});

/** How a fetch that failed before any answer reads in a client's error (workerd's and Node's words). */
const UNREACHABLE = /fetch failed|network|ECONN|ENOTFOUND|EAI_AGAIN|timed? ?out|could not connect|connection/i;

channels.post("/:platform/register", authorizeAdmin, async (c) => {
  const registered = platformNamed(c.req.param("platform"));
  const settings = registered?.settings(c.env);
  if (!registered || !settings?.ok || !settings.value)
    return problemResponse(
      404,
      "Channel not configured",
      registered && settings && !settings.ok
        ? settings.error
        : `no configured channel '${c.req.param("platform")}': set its ${c.req.param("platform").toUpperCase()}_* ` +
            "settings (docs/channels.md names them; .dev.vars locally, `npx wrangler secret put` deployed)",
    );
  const body = await readJsonBody(c, RegisterBody);
  if (!body.ok) return body.response;
  const client = registered.platform.client(settings.value);
  if (!client.registerWebhook)
    return problemResponse(
      409,
      "Registered in the platform's console",
      "see docs/channels.md for this platform's steps",
    );
  const res = await client.registerWebhook(body.value.url);
  // A request that never reached the platform is not its refusal: say which it was.
  if (!res.ok)
    return problemResponse(
      502,
      UNREACHABLE.test(res.detail) ? "The platform could not be reached" : "The platform refused",
      res.detail,
    );
  return c.json({ platform: registered.platform.name, url: body.value.url, detail: res.detail });
});

const webhook = async (c: import("hono").Context<AppEnv>) => {
  const length = Number(c.req.header("content-length") ?? "0");
  if (length > MAX_WEBHOOK_BYTES) return problemResponse(413, "Body too large", `at most ${MAX_WEBHOOK_BYTES} bytes`);
  const out = await receiveWebhook(c.env, c.req.param("platform") ?? "", c.req.raw);
  if (!out.ok) return problemResponse(out.status, out.title, out.detail);
  // A string is sent as it is (WhatsApp's GET handshake wants hub.challenge back as plain text).
  if (out.immediate)
    return typeof out.immediate.body === "string"
      ? c.text(out.immediate.body, out.immediate.status as 200)
      : c.json(out.immediate.body as object, out.immediate.status as 200);
  return c.json({ ok: true, taken: out.taken, repeated: out.repeated });
};

channels.post("/:platform", webhook);
channels.get("/:platform", webhook);

function unknownPool(pools: ReadonlyMap<string, readonly string[]>, asked: readonly string[]): Response | null {
  const unknown = asked.find((p) => !pools.has(p));
  if (unknown === undefined) return null;
  const detail = `no pool '${unknown}' (configured: ${[...pools.keys()].join(", ") || "none"})`;
  return problemResponse(400, "Unknown pool", detail, { errors: [{ path: "pools", message: detail }] });
}
