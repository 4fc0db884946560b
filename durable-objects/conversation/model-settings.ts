import { z } from "zod";
import { intVar, oncePerEnv, type Parsed, parseVars, type VarsOf } from "../../runtime/vars.js";

const ModelVarsSchema = z.object({
  OPENAI_BASE_URL: z.string().url().optional(),
  OPENAI_API_KEY: z.string().optional(),
  LLM_MODEL: z.string().min(1).default("gpt-4o-mini"),
  LLM_MAX_RETRIES: intVar(0, 10).default(3),
  LLM_TIMEOUT_MS: intVar(1000, 600_000).default(120_000),
  /** `text` for models without native tool calling: tools are described in the prompt */
  LLM_TOOL_PROTOCOL: z.enum(["native", "text"]).default("native"),
});

/** The vars that choose and reach the model. */
export type ModelVars = VarsOf<typeof ModelVarsSchema.shape>;

export type ModelSettings = {
  /** unset: no model is configured, and model calls fail saying so */
  baseURL: string | null;
  apiKey: string;
  model: string;
  maxRetries: number;
  timeoutMs: number;
  toolProtocol: "native" | "text";
};

/** Parsed once per isolate. The worker refuses requests naming a bad var; a conversation's model calls fail naming it. */
export const modelSettings = oncePerEnv((env: ModelVars): Parsed<ModelSettings> => {
  const vars = parseVars(ModelVarsSchema, env);
  if (!vars.ok) return vars;
  const v = vars.value;
  return {
    ok: true,
    value: {
      baseURL: v.OPENAI_BASE_URL ?? null,
      apiKey: v.OPENAI_API_KEY ?? "not-needed",
      model: v.LLM_MODEL,
      maxRetries: v.LLM_MAX_RETRIES,
      timeoutMs: v.LLM_TIMEOUT_MS,
      toolProtocol: v.LLM_TOOL_PROTOCOL,
    },
  };
});
