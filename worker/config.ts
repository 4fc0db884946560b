import { z } from "zod";
import type { LoopConfig } from "../durable-objects/conversation/core/types.js";
import type { Env } from "./env.js";

const intVar = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

/** `pi-1:secret1,pi-2:secret2` → Map(agent id → tokens). A device may have several (rotation). */
const DeviceTokens = z
  .string()
  .default("")
  .transform((raw, ctx) => {
    const tokens = new Map<string, string[]>();
    for (const entry of raw.split(",").map((s) => s.trim()).filter(Boolean)) {
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

const WorkerConfig = z.object({
  OPENAI_BASE_URL: z.string().url().optional(),
  OPENAI_API_KEY: z.string().optional(),
  LLM_MODEL: z.string().min(1).default("gpt-4o-mini"),
  LLM_MAX_RETRIES: intVar(0, 10).default(3),
  LLM_TIMEOUT_MS: intVar(1000, 600_000).default(120_000),
  API_TOKEN: z.string().min(1).optional(),
  ADMIN_TOKEN: z.string().min(1).optional(),
  DEVICE_TOKENS: DeviceTokens,
  MAX_ITERATIONS: intVar(1, 100).default(10),
  TOOL_ERROR_LIMIT: intVar(1, 100).default(3),
  MAX_PARALLEL: intVar(1, 64).default(5),
  MAX_RESULT_CHARS: intVar(256, 1_000_000).default(32_000),
  SYSTEM_PROMPT: z.string().optional(),
  DEVICE_RESULT_GRACE_MS: intVar(0, 600_000).default(3_000),
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

export function loopConfig(config: WorkerConfig): Partial<LoopConfig> {
  return {
    max_iterations: config.MAX_ITERATIONS,
    tool_error_limit: config.TOOL_ERROR_LIMIT,
    max_parallel: config.MAX_PARALLEL,
    max_result_chars: config.MAX_RESULT_CHARS,
    system_prompt: config.SYSTEM_PROMPT ?? null,
  };
}
