import type { ImageFit } from "@edgeloop/protocol";

/** The agent's own secrets: a tool (and so the LLM, through `bash: env`) must never see them. */
const WITHHELD = new Set(["EDGELOOP_TOKEN", "EDGELOOP_BROKER_PASSWORD"]);

export type ToolEnvBase = Readonly<Record<string, string>>;

export type CallEnvInput = {
  workspace: string;
  requestId: string;
  tool: string;
  timeoutMs: number;
  /** the model's image limits, from the command (docs/images.md) */
  imageLimits?: ImageFit;
  /** the agent's cap on a tool's stdout: a picture must fit in it as base64 */
  outputCapBytes?: number;
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
  if (call.imageLimits) {
    const { max_width, max_height } = call.imageLimits;
    env.EDGELOOP_IMAGE_MAX_WIDTH = String(tighter(base.EDGELOOP_IMAGE_MAX_WIDTH, max_width));
    env.EDGELOOP_IMAGE_MAX_HEIGHT = String(tighter(base.EDGELOOP_IMAGE_MAX_HEIGHT, max_height));
  }
  // A picture larger than the output cap allows would fail the call whole, so it is fitted to that too.
  const withinCap = call.outputCapBytes !== undefined ? imageBytesWithin(call.outputCapBytes) : Infinity;
  const maxBytes = Math.min(call.imageLimits?.max_bytes ?? Infinity, withinCap);
  if (maxBytes !== Infinity) env.EDGELOOP_IMAGE_MAX_BYTES = String(tighter(base.EDGELOOP_IMAGE_MAX_BYTES, maxBytes));
  return env;
}

/** The largest picture whose base64, inside a tool's JSON output (with room for its text), fits `capBytes`. */
export function imageBytesWithin(capBytes: number): number {
  return Math.max(1024, Math.floor(((capBytes - 16 * 1024) * 3) / 4));
}

/** The device's own setting when it is stricter than the model's limit (a small Pi's memory). */
function tighter(own: string | undefined, limit: number): number {
  const value = Number(own);
  return own !== undefined && Number.isInteger(value) && value > 0 ? Math.min(value, limit) : limit;
}
