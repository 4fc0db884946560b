import {
  ApprovePairingRequest,
  CHANNEL_WEBHOOK_MAX_BYTES,
  ChannelGrantRequest,
  ChannelPlatform,
  GrantSubject,
  RegisterWebhookRequest,
} from "@edgeloop/protocol/channels";
import { Hono } from "hono";
import { chatThreadFor, deploymentOf } from "../../durable-objects/addresses.js";
import { PLATFORMS, platformNamed } from "../../durable-objects/channels/platforms/index.js";
import { receiveWebhook } from "../../durable-objects/channels/receive-webhook.js";
import { threadIdentity } from "../../durable-objects/channels/thread-key.js";
import { forgetGrants } from "../../durable-objects/deployment/in-force.js";
import { problemResponse } from "../../runtime/problem.js";
import type { AppEnv } from "../env.js";
import { authorizeAdmin } from "../middleware/authorize.js";
import { countRejections } from "../middleware/count-rejections.js";
import { readJsonBody } from "../read-body.js";

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
  const deployment = deploymentOf(c.env);
  const [pairings, grants, audit] = await Promise.all([
    deployment.chatPairings(),
    deployment.grants(),
    deployment.recentChatAudit(),
  ]);
  const platforms = Object.values(PLATFORMS).map((platform) => {
    const settings = platform.settings(c.env);
    return {
      platform: platform.name,
      configured: settings.ok && settings.value !== null,
      webhook_path: `/v1/channels/${platform.name}`,
      ...(!settings.ok ? { error: settings.error } : {}),
    };
  });
  return c.json({ platforms, pairings, grants, audit });
});

channels.post("/pairings/:code/approve", authorizeAdmin, async (c) => {
  const body = await readJsonBody(c, ApprovePairingRequest);
  if (!body.ok) return body.response;
  const refused = unknownPool(c.var.config.POOLS, body.value.pools);
  if (refused) return refused;
  const approved = await deploymentOf(c.env).approveChatPairing(c.req.param("code"), {
    agents: [...new Set(body.value.agents)],
    pools: [...new Set(body.value.pools)],
    target: body.value.target ?? null,
    ...(body.value.scopes ? { scopes: [...new Set(body.value.scopes)] } : {}),
  });
  forgetGrants();
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
  const grant = await deploymentOf(c.env).putGrant({
    platform,
    subject,
    agents: [...new Set(agents)],
    pools: [...new Set(pools)],
    target: target ?? null,
    ...(name ? { name } : {}),
    ...(scopes ? { scopes: [...new Set(scopes)] } : {}),
  });
  forgetGrants();
  return c.json(grant, 201);
});

channels.delete("/grants/:platform/:subject", authorizeAdmin, async (c) => {
  const platform = ChannelPlatform.safeParse(c.req.param("platform"));
  const subject = GrantSubject.safeParse(c.req.param("subject"));
  if (!platform.success || !subject.success)
    return problemResponse(400, "Invalid grant", "a platform name and user:<id> or chat:<id>");
  const found = await deploymentOf(c.env).deleteGrant(platform.data, subject.data);
  forgetGrants();
  if (!found) return problemResponse(404, "Not found", `no grant for ${subject.data} on ${platform.data}`);
  return c.json({ platform: platform.data, subject: subject.data, revoked: true });
});

/** How a fetch that failed before any answer reads in a client's error (workerd's and Node's words). */
const UNREACHABLE = /fetch failed|network|ECONN|ENOTFOUND|EAI_AGAIN|timed? ?out|could not connect|connection/i;

channels.post("/:platform/register", authorizeAdmin, async (c) => {
  const platform = platformNamed(c.req.param("platform"));
  const settings = platform?.settings(c.env);
  if (!platform || !settings?.ok || !settings.value)
    return problemResponse(
      404,
      "Channel not configured",
      platform && settings && !settings.ok
        ? settings.error
        : `no configured channel '${c.req.param("platform")}': set its ${c.req.param("platform").toUpperCase()}_* ` +
            "settings (docs/channels.md names them; .dev.vars locally, `npx wrangler secret put` deployed)",
    );
  const body = await readJsonBody(c, RegisterWebhookRequest);
  if (!body.ok) return body.response;
  const { url, print } = body.value;
  // The steps come from the platform's module, with this worker's settings (its API base URL).
  const steps = platform.registration(url, settings.value);
  if (print) return c.json({ platform: platform.name, url, steps });
  const client = platform.client(settings.value);
  if (!client.registerWebhook) return problemResponse(409, "Registered in the platform's console", steps);
  const res = await client.registerWebhook(url);
  // A request that never reached the platform is not its refusal: say which it was.
  if (!res.ok)
    return problemResponse(
      502,
      UNREACHABLE.test(res.detail) ? "The platform could not be reached" : "The platform refused",
      res.detail,
    );
  return c.json({ platform: platform.name, url, detail: res.detail });
});

const webhook = async (c: import("hono").Context<AppEnv>) => {
  const length = Number(c.req.header("content-length") ?? "0");
  if (length > CHANNEL_WEBHOOK_MAX_BYTES)
    return problemResponse(413, "Body too large", `at most ${CHANNEL_WEBHOOK_MAX_BYTES} bytes`);
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
