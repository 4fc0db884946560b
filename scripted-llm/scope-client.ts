import type { ScriptRuleInput } from "./script.js";
import type { ScriptedRequest } from "./scripted-request.js";

/**
 * One scope of a scripted model another process runs (scopes.ts), over its HTTP routes: what a
 * test file sharing the suite's scripted model holds instead of a server of its own. The same
 * members as ScriptedLlm, asynchronous since they cross a process.
 */
export type ScopedLlm = {
  /** the shared server's base URL, ending in /v1 */
  url: string;
  scope: string;
  setRules(rules: ScriptRuleInput[]): Promise<void>;
  /** the model requests this scope answered, in order */
  requests(): Promise<ScriptedRequest[]>;
  reset(): Promise<void>;
  /** remove the scope: its rules answer nothing more */
  close(): Promise<void>;
};

export async function joinScope(origin: string, scope: string, rules: ScriptRuleInput[]): Promise<ScopedLlm> {
  const at = `${origin}/__scopes/${encodeURIComponent(scope)}`;
  const call = async (path: string, method: string, body?: unknown): Promise<unknown> => {
    const res = await fetch(`${at}${path}`, {
      method,
      ...(body !== undefined ? { headers: { "content-type": "application/json" }, body: JSON.stringify(body) } : {}),
    });
    const json = (await res.json()) as { error?: string };
    if (!res.ok) throw new Error(`scripted model, scope ${scope}: ${res.status} ${json.error ?? ""}`);
    return json;
  };
  const setRules = async (next: ScriptRuleInput[]) => void (await call("", "PUT", { rules: next }));
  await setRules(rules);
  return {
    url: `${origin}/v1`,
    scope,
    setRules,
    requests: async () => (await call("/requests", "GET")) as ScriptedRequest[],
    reset: async () => void (await call("/reset", "POST")),
    close: async () => void (await call("", "DELETE")),
  };
}
