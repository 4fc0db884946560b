/**
 * Which model `npm start` gives the local worker, from the environment it was started with: the
 * provider the LLM settings name (LLM_PROVIDER, or OPENAI_BASE_URL / ANTHROPIC_API_KEY as the
 * worker itself reads them), else the bundled scripted model. Workers AI is never picked without
 * LLM_PROVIDER=workers-ai here: its binding needs a Cloudflare login (`wrangler login`), so that
 * choice alone runs wrangler dev with wrangler.toml's `workers-ai` environment, which declares it.
 */
import { defaultRules } from "../scripted-llm/default-script.js";
import { startScriptedLlm } from "../scripted-llm/server.js";

/** The model settings passed through to the worker as they are (README, "Models"). */
const MODEL_VARS = [
  "LLM_PROVIDER",
  "OPENAI_BASE_URL",
  "OPENAI_API_KEY",
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_BASE_URL",
  "LLM_MODEL",
  "LLM_MAX_TOKENS",
  "LLM_TOOL_PROTOCOL",
  "AI_GATEWAY_ID",
  "AI_GATEWAY_TOKEN",
] as const;

export type LocalModel = {
  vars: Record<string, string>;
  /** what to tell the user about the model */
  lines: string[];
  /** the wrangler environment to run (`--env`): `workers-ai` declares the `AI` binding, which needs a login */
  wranglerEnv: string | null;
  close?: () => Promise<void>;
};

export async function chooseLocalModel(env: NodeJS.ProcessEnv): Promise<LocalModel> {
  const vars: Record<string, string> = {};
  for (const name of MODEL_VARS) if (env[name]) vars[name] = env[name]!;
  const provider = env.LLM_PROVIDER || (env.OPENAI_BASE_URL ? "openai" : env.ANTHROPIC_API_KEY ? "anthropic" : "");
  switch (provider) {
    case "openai":
      if (!env.OPENAI_BASE_URL) break;
      return {
        vars,
        lines: [`LLM: ${env.LLM_MODEL ?? "gpt-4o-mini"} at ${env.OPENAI_BASE_URL}`],
        wranglerEnv: null,
      };
    case "anthropic":
      return {
        vars,
        lines: [
          `LLM: Anthropic ${env.LLM_MODEL ?? "(default model)"} at ${env.ANTHROPIC_BASE_URL ?? "api.anthropic.com"}`,
        ],
        wranglerEnv: null,
      };
    case "workers-ai":
      return {
        vars,
        lines: [
          `LLM: Workers AI ${env.LLM_MODEL ?? "(default model)"} through the AI binding.`,
          "     This needs `npx wrangler login` first, and bills your Cloudflare account.",
        ],
        wranglerEnv: "workers-ai",
      };
  }
  const llm = await startScriptedLlm({ port: 0, rules: defaultRules });
  return {
    vars: { ...vars, LLM_PROVIDER: "openai", OPENAI_BASE_URL: llm.url, LLM_MODEL: "edgeloop-scripted" },
    lines: [
      "LLM: none configured, so using the bundled scripted model.",
      "     Set LLM_PROVIDER (openai, anthropic, workers-ai) and its settings to use a real one (README, Models).",
    ],
    wranglerEnv: null,
    close: () => llm.close(),
  };
}
