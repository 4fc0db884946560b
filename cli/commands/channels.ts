import {
  ApprovePairingRequest,
  CHANNEL_PLATFORMS,
  ChannelGrantRequest,
  ChannelPlatform,
  GrantSubject,
} from "@edgeloop/protocol/channels";
import { z } from "zod";
import { type Command, parseInput, printJson } from "../command.js";
import { EXIT, usageError } from "../exit-codes.js";
import { localTime } from "../output/format.js";
import { renderTable } from "../output/table.js";

const synopsis =
  "channels [status] | channels pairings | channels approve <code> [--agent <id|*>]... [--pool <name>]... [--target <device|pool:name>] " +
  "| channels grant <platform> <user:ID|chat:ID> [--agent …] [--pool …] [--target …] | channels revoke <platform> <subject> " +
  "| channels register <platform> [--webhook-url <https://…>] [--print] [--json]";

const Grant = z.looseObject({
  platform: z.string(),
  subject: z.string(),
  name: z.string(),
  agents: z.array(z.string()),
  pools: z.array(z.string()),
  target: z.string().nullable(),
  created_at: z.number(),
});
const Pairing = z.looseObject({
  code: z.string(),
  platform: z.string(),
  user_id: z.string(),
  user_name: z.string(),
  created_at: z.number(),
  expires_at: z.number(),
});
const Status = z.looseObject({
  platforms: z.array(
    z.looseObject({
      platform: z.string(),
      configured: z.boolean(),
      webhook_path: z.string(),
      error: z.string().optional(),
    }),
  ),
  pairings: z.array(Pairing),
  grants: z.array(Grant),
  audit: z.array(
    z.looseObject({
      at: z.number(),
      platform: z.string(),
      user_id: z.string(),
      user_name: z.string(),
      action: z.string(),
    }),
  ),
});

const list = (v: unknown): string[] =>
  (Array.isArray(v) ? (v as string[]) : v === undefined ? [] : [String(v)])
    .flatMap((s) => s.split(","))
    .map((s) => s.trim())
    .filter(Boolean);

const grantFlags = (values: Record<string, unknown>) => ({
  agents: list(values.agent),
  pools: list(values.pool),
  ...(typeof values.target === "string" ? { target: values.target } : {}),
});

const reachOf = (g: { agents: string[]; pools: string[] }) =>
  [...g.agents, ...g.pools.map((p) => `pool:${p}`)].join(" ");

/**
 * `channels`: chat platforms (Telegram, Slack, Discord, WhatsApp): which are configured, who is
 * waiting with a pairing code, who may reach which devices, and pointing a platform at the
 * worker's webhook (admin). docs/channels.md has each platform's setup.
 */
export const channelsCommand: Command = {
  names: ["channels"],
  synopsis,
  summary: `chat channels (${CHANNEL_PLATFORMS.join(", ")}): status, pairing codes, grants, webhook registration (admin)`,
  options: {
    agent: { type: "string", multiple: true },
    pool: { type: "string", multiple: true },
    target: { type: "string" },
    "webhook-url": { type: "string" },
    print: { type: "boolean" },
  },
  async run({ client, json, values, positionals, settings }) {
    const [action = "status", ...args] = positionals;
    const usage = (why: string) => usageError(`${why}\nusage: edgeloop ${synopsis}`);
    switch (action) {
      case "status":
      case "pairings": {
        const status = await client.json(Status, "/v1/channels", { auth: "admin" });
        if (json) printJson(action === "pairings" ? { pairings: status.pairings } : status);
        else printStatus(status, action === "pairings");
        return EXIT.ok;
      }
      case "approve": {
        const [code] = args;
        if (!code || args.length > 1) throw usage("say which code: channels approve <code> --agent <id>");
        const body = parseInput(ApprovePairingRequest, grantFlags(values), synopsis);
        const out = await client.json(
          z.looseObject({ pairing: Pairing, grant: Grant }),
          `/v1/channels/pairings/${encodeURIComponent(code)}/approve`,
          { method: "POST", auth: "admin", body },
        );
        if (json) printJson(out);
        else
          console.log(`Paired ${out.pairing.user_name} on ${out.pairing.platform}: may reach ${reachOf(out.grant)}.`);
        return EXIT.ok;
      }
      case "grant": {
        const [platform, subject] = args;
        if (!platform || !subject || args.length > 2)
          throw usage("channels grant <platform> <user:ID|chat:ID> --agent <id>");
        const body = parseInput(ChannelGrantRequest, { platform, subject, ...grantFlags(values) }, synopsis);
        const grant = await client.json(Grant, "/v1/channels/grants", { method: "POST", auth: "admin", body });
        if (json) printJson(grant);
        else console.log(`${grant.subject} on ${grant.platform} may reach ${reachOf(grant)}.`);
        return EXIT.ok;
      }
      case "revoke": {
        const platform = parseInput(ChannelPlatform, args[0], synopsis);
        const subject = parseInput(GrantSubject, args[1], synopsis);
        const out = await client.json(
          z.looseObject({ revoked: z.boolean() }),
          `/v1/channels/grants/${platform}/${encodeURIComponent(subject)}`,
          { method: "DELETE", auth: "admin" },
        );
        if (json) printJson(out);
        else console.log(`${subject} on ${platform} reaches no device any more.`);
        return EXIT.ok;
      }
      case "register": {
        const platform = parseInput(ChannelPlatform, args[0], synopsis);
        const webhookUrl =
          typeof values["webhook-url"] === "string"
            ? values["webhook-url"]
            : `${settings.url.replace(/\/+$/, "")}/v1/channels/${platform}`;
        // The worker says how: the steps are its platform module's, with its own settings (the
        // platform's API base URL), and it refuses a URL the platform would not call.
        if (values.print) {
          const out = await client.json(z.looseObject({ steps: z.string() }), `/v1/channels/${platform}/register`, {
            method: "POST",
            auth: "admin",
            body: { url: webhookUrl, print: true },
          });
          if (json) printJson(out);
          else console.log(out.steps);
          return EXIT.ok;
        }
        const out = await client.json(z.looseObject({ detail: z.string() }), `/v1/channels/${platform}/register`, {
          method: "POST",
          auth: "admin",
          body: { url: webhookUrl },
        });
        if (json) printJson(out);
        else console.log(out.detail);
        return EXIT.ok;
      }
      default:
        throw usage(`say status, pairings, approve, grant, revoke or register (not '${action}')`);
    }
  },
};

function printStatus(status: z.infer<typeof Status>, pairingsOnly: boolean): void {
  if (!pairingsOnly) {
    console.log(
      renderTable(
        [
          { header: "platform", value: (p) => p.platform },
          { header: "state", value: (p) => (p.configured ? "configured" : (p.error ?? "not configured")) },
          { header: "webhook", value: (p) => p.webhook_path },
        ],
        status.platforms,
      ),
    );
    console.log("");
  }
  if (status.pairings.length === 0) console.log("No pairing codes waiting.");
  else
    console.log(
      renderTable(
        [
          { header: "code", value: (p) => p.code },
          { header: "platform", value: (p) => p.platform },
          { header: "user", value: (p) => `${p.user_name} (${p.user_id})` },
          { header: "expires", value: (p) => localTime(p.expires_at) },
        ],
        status.pairings,
      ),
    );
  if (pairingsOnly) return;
  console.log("");
  if (status.grants.length === 0) console.log("No grants: nobody reaches a device from a chat.");
  else
    console.log(
      renderTable(
        [
          { header: "platform", value: (g) => g.platform },
          { header: "who", value: (g) => `${g.name} (${g.subject})` },
          { header: "devices", value: (g) => reachOf(g) },
          { header: "new conversations on", value: (g) => g.target ?? "default" },
        ],
        status.grants,
      ),
    );
  if (status.audit.length > 0) {
    console.log("\nRecent refusals:");
    for (const a of status.audit.slice(0, 10))
      console.log(`  ${localTime(a.at)}  ${a.platform}  ${a.user_name} (${a.user_id})  ${a.action}`);
  }
}
