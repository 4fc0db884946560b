/** The agent's own secrets: a tool (and so the LLM, through `bash: env`) must never see them. */
const WITHHELD = ["EDGELOOP_TOKEN", "EDGELOOP_BROKER_PASSWORD"];

export type ToolEnvInput = {
  base: NodeJS.ProcessEnv;
  extra: Record<string, string>;
  workspace: string;
  requestId: string;
  tool: string;
  timeoutMs: number;
};

/** docs/skills.md: the agent's environment, the `[tools.env]` settings, and the per-call variables. */
export function toolEnv(input: ToolEnvInput): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...input.base, ...input.extra };
  for (const name of WITHHELD) delete env[name];
  env.EDGELOOP_WORKSPACE = input.workspace;
  env.EDGELOOP_REQUEST_ID = input.requestId;
  env.EDGELOOP_TOOL = input.tool;
  env.EDGELOOP_TIMEOUT_MS = String(input.timeoutMs);
  return env;
}
