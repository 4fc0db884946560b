/**
 * The suite's shared scripted model and worker (shared-stack-setup.ts), for an e2e file that needs
 * nothing of its own: no settings beyond SHARED_VARS, no restart or kill of the worker, no check
 * of state every file adds to (device lists, metrics totals, the whole audit). The file's rules
 * are a scope of the shared model (scripted-llm/scopes.ts), and its devices are listed in
 * shared-stack-config.ts under agent ids no other file uses.
 */
import { inject } from "vitest";
import { joinScope, type ScopedLlm } from "../../scripted-llm/scope-client.js";
import type { ScriptRuleInput } from "../../scripted-llm/script.js";
import { SHARED_DEVICES, type SharedStackInfo } from "./shared-stack-config.js";

export type SharedStack = {
  llm: ScopedLlm;
  worker: { url: string };
  /** the file's rules leave the shared model; the worker and model go on for the others */
  stop: () => Promise<void>;
};

let started: Promise<SharedStackInfo> | undefined;

/** The shared worker and model, started by the global setup's launcher on the run's first call. */
function sharedStack(): Promise<SharedStackInfo> {
  started ??= fetch(`${inject("sharedStackLauncher")}/start`, { method: "POST" }).then(async (res) => {
    if (!res.ok) throw new Error(`the shared worker did not start: ${await res.text()}`);
    return (await res.json()) as SharedStackInfo;
  });
  return started;
}

/** The shared worker alone, for a file that asks no model anything (it takes the usual API_TOKEN, ADMIN_TOKEN). */
export async function sharedWorker(): Promise<{ url: string }> {
  return { url: (await sharedStack()).workerUrl };
}

export async function joinSharedStack(opts: {
  /** the file's scope in the shared model, e.g. its name */
  scope: string;
  rules: ScriptRuleInput[];
  /** agent id → token, each as SHARED_DEVICES has it */
  devices?: Record<string, string>;
}): Promise<SharedStack> {
  for (const [id, token] of Object.entries(opts.devices ?? {})) {
    if (SHARED_DEVICES[id] !== token)
      throw new Error(`device ${id} is not in shared-stack-config.ts's SHARED_DEVICES with this token`);
  }
  const { workerUrl, llmOrigin } = await sharedStack();
  const llm = await joinScope(llmOrigin, opts.scope, opts.rules);
  return { llm, worker: { url: workerUrl }, stop: () => llm.close() };
}
