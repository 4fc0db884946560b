import type { Result } from "@edgeloop/protocol/result";
import { z } from "zod";
import { intVar, oncePerEnv, parseVars, type VarsOf } from "../../../runtime/vars.js";
import {
  type AiRunner,
  ANTHROPIC_DEFAULT_MODEL,
  type LlmProvider,
  WORKERS_AI_DEFAULT_MODEL,
  WORKERS_AI_HOW_TO,
} from "../llm/index.js";
import type { ImageVars } from "./image-settings.js";

/**
 * The vars (and the one binding) that choose and reach the model, parsed for ConversationDO's
 * model calls (model-calls.ts) and checked by the worker's front door (durable-objects/front-door/front-door-config.ts).
 *
 * The provider is LLM_PROVIDER when set; unset, it follows what is configured: an
 * OPENAI_BASE_URL means `openai` (as before providers existed), else an ANTHROPIC_API_KEY means
 * `anthropic`, else the `AI` binding means `workers-ai` — so a deployment with nothing
 * configured uses Workers AI. Locally `npm start` and the tests always configure a model (the
 * scripted one when none is given), so the binding, which needs a Cloudflare login, is never
 * picked there by default.
 */

export const ModelVarsSchema = z.object({
  LLM_PROVIDER: z
    .enum(["openai", "anthropic", "workers-ai"])
    .optional()
    .describe(
      "Unset: `openai` if OPENAI_BASE_URL is set, else `anthropic` if ANTHROPIC_API_KEY is, else `workers-ai` " +
        "when the `AI` binding exists (docs/providers.md).",
    ),
  OPENAI_BASE_URL: z
    .string()
    .url()
    .optional()
    .describe(
      "Chat Completions base URL (`openai`), e.g. `https://api.openai.com/v1`, `http://127.0.0.1:11434/v1`, " +
        "or an AI Gateway's `…/openai`.",
    ),
  OPENAI_API_KEY: z.string().optional().describe("Secret. API key for OPENAI_BASE_URL."),
  ANTHROPIC_API_KEY: z.string().optional().describe("Secret. Anthropic API key (`anthropic`)."),
  ANTHROPIC_BASE_URL: z
    .string()
    .url()
    .optional()
    .describe(
      "Anthropic API base URL without `/v1` (default `https://api.anthropic.com`), or an AI Gateway's `…/anthropic`.",
    ),
  LLM_MODEL: z
    .string()
    .min(1)
    .optional()
    .describe(
      "Model name; unset: the provider's default (`gpt-4o-mini`, `claude-sonnet-4-5`, " +
        "`@cf/meta/llama-3.3-70b-instruct-fp8-fast`).",
    ),
  LLM_MAX_TOKENS: intVar(1, 1_000_000)
    .optional()
    .describe(
      "The answer's token cap for `anthropic` (default 8192, the API requires one) and `workers-ai` (default 4096: " +
        "its models' own default cuts tool calls short); `openai` sends none.",
    ),
  LLM_MAX_RETRIES: intVar(0, 10)
    .default(3)
    .describe("Retries on 429/5xx/network errors, with backoff honouring `Retry-After`."),
  LLM_TIMEOUT_MS: intVar(1000, 600_000).default(120_000).describe("Per model request (idle time on a stream)."),
  LLM_TOOL_PROTOCOL: z
    .enum(["native", "text"])
    .default("native")
    .describe(
      '`text` for models without native tool calling: tools are described in the system prompt and the model writes `{"tool":…,"args":…}` ' +
        "or `<tool_call>…</tool_call>`; invalid JSON gets one correction request. Text tool calls are also " +
        "detected in `native` mode.",
    ),
  LLM_PROMPT_CACHING: z
    .enum(["true", "false"])
    .default("true")
    .describe("`anthropic`: cache breakpoints on the tool list, the system prompt and the history."),
  AI_GATEWAY_ID: z
    .string()
    .min(1)
    .optional()
    .describe("`workers-ai`: send the binding's calls through this Cloudflare AI Gateway."),
  AI_GATEWAY_TOKEN: z
    .string()
    .min(1)
    .optional()
    .describe(
      "Secret. An authenticated AI Gateway's token, sent as `cf-aig-authorization` on `openai` and `anthropic` requests.",
    ),
});

/** The vars that choose and reach the model. */
export type ModelVars = VarsOf<typeof ModelVarsSchema.shape>;
/** Those vars and the Workers AI binding (wrangler.toml `[ai] binding = "AI"`). */
export type ModelEnv = ModelVars & ImageVars & { AI?: AiRunner };

export const OPENAI_DEFAULT_MODEL = "gpt-4o-mini";

export type ModelSettings = {
  /** null: nothing configured at all */
  provider: LlmProvider | null;
  /** why model calls cannot be made with these settings; null when they can */
  unavailable: string | null;
  baseURL: string | null;
  apiKey: string;
  model: string;
  maxTokens: number | undefined;
  maxRetries: number;
  timeoutMs: number;
  toolProtocol: "native" | "text";
  promptCaching: boolean;
  gatewayId: string | undefined;
  gatewayToken: string | undefined;
};

/** Parsed once per isolate. The worker refuses requests naming a bad var; a conversation's model calls fail naming it. */
export const modelSettings = oncePerEnv((env: ModelEnv): Result<ModelSettings> => {
  const vars = parseVars(ModelVarsSchema, env);
  if (!vars.ok) return vars;
  const v = vars.value;
  const hasBinding = env.AI !== undefined && env.AI !== null;
  const provider: LlmProvider | null =
    v.LLM_PROVIDER ??
    (v.OPENAI_BASE_URL ? "openai" : v.ANTHROPIC_API_KEY ? "anthropic" : hasBinding ? "workers-ai" : null);
  const common = {
    provider,
    maxTokens: v.LLM_MAX_TOKENS,
    maxRetries: v.LLM_MAX_RETRIES,
    timeoutMs: v.LLM_TIMEOUT_MS,
    toolProtocol: v.LLM_TOOL_PROTOCOL,
    promptCaching: v.LLM_PROMPT_CACHING === "true",
    gatewayId: v.AI_GATEWAY_ID,
    gatewayToken: v.AI_GATEWAY_TOKEN,
  };
  switch (provider) {
    case "anthropic":
      return ok({
        ...common,
        unavailable: v.ANTHROPIC_API_KEY ? null : "ANTHROPIC_API_KEY is not set",
        baseURL: v.ANTHROPIC_BASE_URL ?? null,
        apiKey: v.ANTHROPIC_API_KEY ?? "",
        model: v.LLM_MODEL ?? ANTHROPIC_DEFAULT_MODEL,
      });
    case "workers-ai":
      return ok({
        ...common,
        unavailable: hasBinding ? null : `LLM_PROVIDER is workers-ai but ${WORKERS_AI_HOW_TO}`,
        baseURL: null,
        apiKey: "",
        model: v.LLM_MODEL ?? WORKERS_AI_DEFAULT_MODEL,
      });
    default:
      return ok({
        ...common,
        unavailable: v.OPENAI_BASE_URL
          ? null
          : provider === null
            ? `no model is configured (LLM_PROVIDER and its settings), and ${WORKERS_AI_HOW_TO}`
            : "OPENAI_BASE_URL is not set",
        baseURL: v.OPENAI_BASE_URL ?? null,
        apiKey: v.OPENAI_API_KEY ?? "not-needed",
        model: v.LLM_MODEL ?? OPENAI_DEFAULT_MODEL,
      });
  }
});

const ok = (value: ModelSettings): Result<ModelSettings> => ({ ok: true, value });
