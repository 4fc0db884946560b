import { z } from "zod";
import { MAX_MESSAGE_TEXT } from "../protocol/index.js";
import type { Env } from "./env.js";

const intVar = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

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

/** `sender:secret` or bare `secret` (sender "webhook"); repeat a sender for rotation. */
const WebhookSecrets = z
  .string()
  .default("")
  .transform((raw) =>
    raw
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean)
      .map((entry): WebhookSecret => {
        // A name is letters/digits/-/_ before the first ':'; base64 and whsec_ secrets have no ':'.
        const m = entry.match(/^([A-Za-z0-9_-]{1,64}):(.+)$/);
        return m ? { sender: m[1]!, secret: m[2]! } : { sender: "webhook", secret: entry };
      }),
  );
export type WebhookSecret = { sender: string; secret: string };

/** `kitchen:pi-1|pi-2,lab:pi-3` → Map(pool → agent ids). */
const Pools = z
  .string()
  .default("")
  .transform((raw, ctx) => {
    const pools = new Map<string, string[]>();
    for (const entry of raw
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean)) {
      const m = entry.match(/^([A-Za-z0-9._-]{1,64}):([A-Za-z0-9._:|-]+)$/);
      if (!m) {
        ctx.addIssue({ code: "custom", message: `entry '${entry.slice(0, 30)}' is not pool:agent|agent` });
        return z.NEVER;
      }
      pools.set(m[1]!, m[2]!.split("|").filter(Boolean));
    }
    return pools;
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

const WorkerConfig = z.object({
  OPENAI_BASE_URL: z.string().url().optional(),
  OPENAI_API_KEY: z.string().optional(),
  LLM_MODEL: z.string().min(1).default("gpt-4o-mini"),
  LLM_MAX_RETRIES: intVar(0, 10).default(3),
  LLM_TIMEOUT_MS: intVar(1000, 600_000).default(120_000),
  /** `text` for models without native tool calling: tools described in the prompt (seed 004) */
  LLM_TOOL_PROTOCOL: z.enum(["native", "text"]).default("native"),
  API_TOKEN: z.string().min(1).optional(),
  ADMIN_TOKEN: z.string().min(1).optional(),
  DEVICE_TOKENS: DeviceTokens,
  DEVICE_RESULT_GRACE_MS: intVar(0, 600_000).default(3_000),
  // ---- front door (issue 5) ----
  MESSAGE_AUTH: MessageAuth,
  WEBHOOK_SECRETS: WebhookSecrets,
  WEBHOOK_TOLERANCE_SECONDS: intVar(1, 86_400).default(300),
  POOLS: Pools,
  MAX_BODY_BYTES: intVar(1024, 10 * 1024 * 1024).default(256 * 1024),
  MAX_TEXT_CHARS: intVar(1, MAX_MESSAGE_TEXT).default(MAX_MESSAGE_TEXT),
  RATE_LIMIT_SENDER_PER_MIN: intVar(1, 1_000_000).default(120),
  RATE_LIMIT_SENDER_BURST: intVar(1, 1_000_000).default(60),
  RATE_LIMIT_AGENT_PER_MIN: intVar(1, 1_000_000).default(60),
  RATE_LIMIT_AGENT_BURST: intVar(1, 1_000_000).default(30),
  MAX_OPEN_CONVERSATIONS_PER_AGENT: intVar(1, 1_000_000).default(100),
  CONVERSATION_IDLE_SECONDS: intVar(1, 30 * 86_400).default(900),
  HEARTBEAT_INTERVAL_MS: intVar(1_000, 3_600_000).default(20_000),
  HEARTBEAT_MISSES: intVar(1, 100).default(3),
  DEVICE_MAX_FRAME_BYTES: intVar(1024, 32 * 1024 * 1024).default(4 * 1024 * 1024),
  AUDIT_RETENTION_DAYS: intVar(1, 3650).default(30),
});
export type WorkerConfig = z.infer<typeof WorkerConfig>;

export type ConfigResult = { ok: true; config: WorkerConfig } | { ok: false; error: string };

/** Vars are validated on use, so a bad value answers a clear 500 naming it instead of misbehaving. */
export function readConfig(env: Env): ConfigResult {
  const raw = Object.fromEntries(Object.entries(env).filter(([, v]) => typeof v === "string" && v !== ""));
  const parsed = WorkerConfig.safeParse(raw);
  if (parsed.success) return { ok: true, config: parsed.data };
  const issue = parsed.error.issues[0]!;
  return { ok: false, error: `${issue.path.join(".")}: ${issue.message}` };
}
