import { Identifier, MAX_MESSAGE_TEXT } from "@edgeloop/protocol";
import { ANY_AGENT } from "@edgeloop/protocol/api-keys";
import { z } from "zod";
import { OutboundVarsSchema } from "../../runtime/outbound-settings.js";
import { Pools } from "../../runtime/pools.js";
import { intVar, jsonVar, oncePerEnv, parseVars, type VarsOf } from "../../runtime/vars.js";
import { WebhookSecrets } from "../../runtime/webhook-secrets.js";
import { type ModelEnv, modelSettings } from "../conversation/settings/model-settings.js";
import { type HubVars, parseHubSettings } from "../device-hub/hub-settings.js";

/** `pi-1:secret1,pi-2:secret2` → Map(agent id → tokens). A device may have several (rotation). */
const DeviceTokens = z
  .string()
  .default("")
  .transform((raw, ctx) => {
    const tokens = new Map<string, string[]>();
    for (const entry of raw
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean)) {
      const at = entry.indexOf(":");
      if (at <= 0 || at === entry.length - 1) {
        ctx.addIssue({ code: "custom", message: `entry '${entry.slice(0, 20)}' is not agent_id:token` });
        return z.NEVER;
      }
      const id = entry.slice(0, at);
      tokens.set(id, [...(tokens.get(id) ?? []), entry.slice(at + 1)]);
    }
    return tokens;
  });

/**
 * `WEBHOOK_SCOPES`: webhook senders (the names in WEBHOOK_SECRETS) bound to devices, as a key is:
 * `{"github":{"agents":["pi-1"],"pools":["lab"]}}` (`"*"` in agents: every device). A bound sender
 * messages only those devices and may continue only the conversations it started; senders not
 * named here stay unscoped.
 */
const WebhookScopes = jsonVar(
  z.record(
    z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "a sender name from WEBHOOK_SECRETS"),
    z
      .object({
        agents: z
          .array(z.union([z.literal(ANY_AGENT), Identifier]))
          .max(256)
          .default([]),
        pools: z.array(Identifier).max(64).default([]),
      })
      .strict()
      .refine((g) => g.agents.length + g.pools.length > 0, 'give at least one agent ("*" for every device) or pool'),
  ),
);

/** `https://app.example,http://localhost:5173` → the origins, each exactly as a browser sends it. */
const Origins = z
  .string()
  .default("")
  .transform((raw, ctx) => {
    const origins = raw
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    for (const o of origins) {
      if (URL.canParse(o) && new URL(o).origin === o) continue;
      ctx.addIssue({ code: "custom", message: `'${o.slice(0, 60)}' is not an origin like https://app.example` });
      return z.NEVER;
    }
    return origins;
  });

export const AUTH_METHODS = ["bearer", "hmac", "standard"] as const;
export type AuthMethod = (typeof AUTH_METHODS)[number];

/** Which kinds of authentication `POST /v1/messages` takes in this deployment. */
const MessageAuth = z
  .string()
  .default("bearer,hmac,standard")
  .transform((raw, ctx) => {
    const methods = raw
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    for (const m of methods) {
      if (!(AUTH_METHODS as readonly string[]).includes(m)) {
        ctx.addIssue({ code: "custom", message: `'${m}' is not one of ${AUTH_METHODS.join(", ")}` });
        return z.NEVER;
      }
    }
    return new Set(methods as AuthMethod[]);
  });

export const WorkerVarsSchema = z
  .object({
    API_TOKEN: z
      .string()
      .min(1)
      .optional()
      .describe(
        "Secret. The unscoped bearer token for messages, conversations, schedules, rules and `/mcp`: it sees every " +
          "conversation. Give clients scoped keys instead (`POST /v1/keys`, docs/security.md).",
      ),
    ADMIN_TOKEN: z
      .string()
      .min(1)
      .optional()
      .describe(
        "Secret. Bearer token for device status and admin routes, also accepted where API_TOKEN is. It is the " +
          "dashboard's login and signs its session cookie (12 h): rotating it ends every dashboard session.",
      ),
    DEVICE_TOKENS: DeviceTokens.describe(
      "Secret. Bootstrap device tokens, `pi-1:secret1,pi-2:secret2`; several per device allowed (rotation).",
    ),
    MESSAGE_AUTH: MessageAuth.describe(
      "Which authentication `POST /v1/messages` accepts, comma-separated: `bearer` (API token), `hmac` " +
        "(`X-Webhook-Signature` + `X-Webhook-Timestamp`), `standard` (Standard Webhooks).",
    ),
    WEBHOOK_SECRETS: WebhookSecrets,
    WEBHOOK_TOLERANCE_SECONDS: intVar(1, 86_400)
      .default(300)
      .describe("How far a signed webhook's timestamp may be from the server's clock."),
    POOLS: Pools.describe('Device pools for `{"pool":…}` messages: `kitchen:pi-1|pi-2,lab:pi-3`.'),
    MAX_BODY_BYTES: intVar(1024, 10 * 1024 * 1024)
      .default(256 * 1024)
      .describe(
        "Largest `POST /v1/messages` body (413 above), not counting the room its images may take " +
          "(MESSAGE_IMAGES_MAX_BYTES, base64-encoded).",
      ),
    MAX_TEXT_CHARS: intVar(1, MAX_MESSAGE_TEXT)
      .default(MAX_MESSAGE_TEXT)
      .describe("Longest message `text` (413 above)."),
    RATE_LIMIT_SENDER_PER_MIN: intVar(1, 1_000_000)
      .default(120)
      .describe(
        "Token bucket per sender (bearer token or webhook sender name): refill per minute; 429 + `Retry-After`.",
      ),
    RATE_LIMIT_SENDER_BURST: intVar(1, 1_000_000).default(60).describe("Token bucket per sender: burst size."),
    RATE_LIMIT_AGENT_PER_MIN: intVar(1, 1_000_000)
      .default(60)
      .describe("Token bucket per device, across senders: refill per minute."),
    RATE_LIMIT_AGENT_BURST: intVar(1, 1_000_000).default(30).describe("Token bucket per device: burst size."),
    RATE_LIMIT_REGISTER_PER_MIN: intVar(1, 1_000_000)
      .default(10)
      .describe(
        "Token bucket per caller address for registering an OAuth app with `/mcp`'s authorization server " +
          "(`POST /oauth/register`, or an app's metadata document fetched): refill per minute; 429 + `Retry-After`.",
      ),
    RATE_LIMIT_REGISTER_BURST: intVar(1, 1_000_000)
      .default(20)
      .describe("Token bucket per caller address for registering an OAuth app: burst size."),
    MAX_OPEN_CONVERSATIONS_PER_AGENT: intVar(1, 1_000_000)
      .default(100)
      .describe(
        "Conversations with a message in the last CONVERSATION_IDLE_SECONDS a device may have; " +
          "a new one beyond it gets 429.",
      ),
    CONVERSATION_IDLE_SECONDS: intVar(1, 30 * 86_400)
      .default(900)
      .describe("How long a conversation counts as open after its last message."),
    LLM_PRICES: z
      .string()
      .optional()
      .describe(
        'JSON `{"gpt-4o-mini":{"input_per_mtok":0.15,"output_per_mtok":0.6}}`: prices for the estimated cost ' +
          "in `/v1/metrics`.",
      ),
    MCP_ALLOWED_ORIGINS: Origins.describe(
      "Browser origins that may call `/mcp`, comma-separated (`https://app.example`). A request with any other " +
        "`Origin` than the worker's own gets 403 (DNS rebinding), and one reaching a loopback address must name a " +
        "loopback `Host` (docs/mcp.md#origin-and-host). MCP clients outside a browser send no Origin.",
    ),
    WEBHOOK_SCOPES: WebhookScopes.optional().describe(
      'JSON binding webhook senders to devices as a scoped key is: `{"github":{"agents":["pi-1"],"pools":["lab"]}}`. ' +
        "A bound sender messages only those devices and continues only its own conversations (docs/security.md).",
    ),
  })
  .extend(OutboundVarsSchema.shape);

/** The vars the worker itself reads (the Durable Objects declare theirs beside them). */
export type WorkerVars = VarsOf<typeof WorkerVarsSchema.shape>;
export type WorkerConfig = z.output<typeof WorkerVarsSchema>;

export type ConfigResult = { ok: true; config: WorkerConfig } | { ok: false; error: string };

/**
 * The worker's settings, parsed once per isolate. A bad value answers a clear 500 naming it instead
 * of misbehaving, and that includes the model's and the device hubs' vars: they run in objects the
 * client never sees, so the front door is where a bad one can be reported.
 */
export const readConfig = oncePerEnv((env: WorkerVars & ModelEnv & HubVars): ConfigResult => {
  const worker = parseVars(WorkerVarsSchema, env);
  if (!worker.ok) return worker;
  const scopeProblem = webhookScopeProblem(worker.value);
  if (scopeProblem) return { ok: false, error: `WEBHOOK_SCOPES: ${scopeProblem}` };
  for (const other of [modelSettings(env), parseHubSettings(env)]) if (!other.ok) return other;
  return { ok: true, config: worker.value };
});

/** A bound sender must exist and name existing pools: a typo would otherwise leave a sender unscoped. */
function webhookScopeProblem(cfg: WorkerConfig): string | null {
  const senders = new Set(cfg.WEBHOOK_SECRETS.map((s) => s.sender));
  for (const [sender, grant] of Object.entries(cfg.WEBHOOK_SCOPES ?? {})) {
    if (!senders.has(sender)) return `sender '${sender}' is not in WEBHOOK_SECRETS`;
    const unknown = grant.pools.find((p) => !cfg.POOLS.has(p));
    if (unknown) return `sender '${sender}': no pool '${unknown}' in POOLS`;
  }
  return null;
}
