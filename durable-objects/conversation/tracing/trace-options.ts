import { type ModelEnv, modelSettings } from "../settings/model-settings.js";
import type { TraceOptions } from "./run-spans.js";

/** `gen_ai.provider.name` by the conventions' list; Workers AI is not on it, so it gets a custom name. */
const PROVIDER_NAMES = { openai: "openai", anthropic: "anthropic", "workers-ai": "cloudflare.workers_ai" } as const;

/** What the run's spans say about the model, from the deployment's model settings. */
export function traceOptions(env: ModelEnv, content: boolean): Omit<TraceOptions, "newTraceId"> {
  const settings = modelSettings(env);
  const provider = settings.ok && settings.value.provider ? PROVIDER_NAMES[settings.value.provider] : "_OTHER";
  return { provider, model: settings.ok ? settings.value.model : "unknown", content };
}
