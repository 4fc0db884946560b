/**
 * What most end-to-end files start first: the scripted model (scripted-llm/) and the real worker
 * under `wrangler dev` pointed at it, with device tokens for the devices the file runs. Settings a
 * file needs beyond these go in `vars`; `scriptedVars` alone gives the same settings to a worker a
 * file restarts.
 */
import type { ScriptRuleInput } from "../../scripted-llm/script.js";
import { type ScriptedLlm, startScriptedLlm } from "../../scripted-llm/server.js";
import { type LocalWorker, startLocalWorker } from "./local-worker.js";

export type ScriptedStack = {
  llm: ScriptedLlm;
  worker: LocalWorker;
  /** the worker, then the model */
  stop: () => Promise<void>;
};

/** The worker settings that point it at `llm`, with `devices` (agent id → token) as DEVICE_TOKENS. */
export function scriptedVars(
  llm: Pick<ScriptedLlm, "url">,
  devices: Record<string, string> = {},
  vars: Record<string, string> = {},
): Record<string, string> {
  const tokens = Object.entries(devices).map(([id, token]) => `${id}:${token}`);
  return {
    OPENAI_BASE_URL: llm.url,
    OPENAI_API_KEY: "scripted",
    LLM_MODEL: "scripted",
    ...(tokens.length > 0 ? { DEVICE_TOKENS: tokens.join(",") } : {}),
    ...vars,
  };
}

export async function startScriptedStack(opts: {
  rules: ScriptRuleInput[];
  devices?: Record<string, string>;
  vars?: Record<string, string>;
  /** passed on to startLocalWorker (a process environment, a fixed port …) */
  worker?: Omit<Parameters<typeof startLocalWorker>[0], "vars">;
}): Promise<ScriptedStack> {
  const llm = await startScriptedLlm({ port: 0, rules: opts.rules });
  try {
    const worker = await startLocalWorker({ ...opts.worker, vars: scriptedVars(llm, opts.devices, opts.vars) });
    return {
      llm,
      worker,
      stop: async () => {
        await worker.stop();
        await llm.close();
      },
    };
  } catch (e) {
    await llm.close();
    throw e;
  }
}
