/** The agent's own secrets: a tool (and so the LLM, through `bash: env`) must never see them. */
const WITHHELD = new Set(["EDGELOOP_TOKEN", "EDGELOOP_BROKER_PASSWORD"]);

export type ToolEnvBase = Readonly<Record<string, string>>;

export type CallEnvInput = {
  workspace: string;
  requestId: string;
  tool: string;
  timeoutMs: number;
};

/**
 * docs/skills.md: the agent's environment and the `[tools.env]` settings, minus the agent's
 * secrets. The same for every call, so the executor builds it once: copying process.env on each
 * call was a visible part of a command's cost.
 */
export function toolEnvBase(base: NodeJS.ProcessEnv, extra: Record<string, string>): ToolEnvBase {
  const env: Record<string, string> = {};
  // Built without `delete`, which would leave a slow (dictionary-mode) object to copy per call.
  for (const [name, value] of Object.entries({ ...base, ...extra })) {
    if (value !== undefined && !WITHHELD.has(name)) env[name] = value;
  }
  return env;
}

/** The base plus the per-call variables. */
export function toolEnv(base: ToolEnvBase, call: CallEnvInput): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = Object.assign({}, base);
  env.EDGELOOP_WORKSPACE = call.workspace;
  env.EDGELOOP_REQUEST_ID = call.requestId;
  env.EDGELOOP_TOOL = call.tool;
  env.EDGELOOP_TIMEOUT_MS = String(call.timeoutMs);
  return env;
}
