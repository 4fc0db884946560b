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
import { SHARED_DEVICES } from "./shared-stack-config.js";

export type SharedStack = {
  llm: ScopedLlm;
  worker: { url: string };
  /** the file's rules leave the shared model; the worker and model go on for the others */
  stop: () => Promise<void>;
};

/** The shared worker alone, for a file that asks no model anything (its URL takes the usual API_TOKEN, ADMIN_TOKEN). */
export function sharedWorker(): { url: string } {
  return { url: inject("sharedStack").workerUrl };
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
  const llm = await joinScope(inject("sharedStack").llmOrigin, opts.scope, opts.rules);
  return { llm, worker: sharedWorker(), stop: () => llm.close() };
}
