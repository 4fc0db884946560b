import type { ContentBlock, ToolOutcome } from "@edgeloop/protocol";
import { computerActionFields } from "./control-commands.js";

/**
 * The node commands of control-commands.ts: the params the hub sends for one call, and the node's
 * answer as the call's outcome (docs/openclaw-nodes.md#acting-on-a-node). Pure.
 */

/** What a call's invoke needs beyond its arguments: the node's Computer Use execution, if it has one. */
export type InvokeContext = { executionId?: string; computer?: boolean };

/** OpenClaw's envelope for files given to a browser file chooser (browser-proxy-upload.ts). */
const UPLOAD_ENVELOPE = "browser-upload-v1";
/** Claude CLI stops a turn that prints nothing for this long, unless the model says otherwise. */
const CLAUDE_IDLE_MS = 120_000;

/** The params for one of these commands, or null for a command that is not one of them. */
export function controlParams(
  command: string,
  parameters: Record<string, unknown>,
  timeoutMs: number,
  ctx: InvokeContext,
): Record<string, unknown> | null {
  switch (command) {
    // One execution per node connection (the hub's): the node binds a screenshot's frame to it,
    // and refuses input under another one while it is open.
    case "computer.act": {
      const action = String(parameters.action ?? "");
      const takes = computerActionFields(action)?.takes ?? [];
      const params: Record<string, unknown> = { action };
      if (ctx.executionId) params.executionId = ctx.executionId;
      for (const f of takes) if (parameters[f] !== undefined) params[f] = parameters[f];
      return params;
    }
    case "screen.snapshot":
      return ctx.computer && ctx.executionId ? { ...parameters, executionId: ctx.executionId } : parameters;
    case "browser.proxy.upload.v1": {
      const { files, body, ...rest } = parameters;
      return {
        ...rest,
        method: "POST",
        path: "/hooks/file-chooser",
        body: body ?? {},
        upload: { envelope: UPLOAD_ENVELOPE, files },
      };
    }
    case "agent.cli.claude.run.v1": {
      const { timeout_ms: _t, ...rest } = parameters;
      return { idleTimeoutMs: Math.min(CLAUDE_IDLE_MS, Math.max(1000, timeoutMs)), ...rest, timeoutMs };
    }
    default:
      return null;
  }
}

const success = (
  tool: string,
  result: string,
  elapsedMs: number,
  content?: ContentBlock[],
  stderr = "",
): ToolOutcome => ({
  status: "success",
  tool,
  result,
  stderr,
  exit_code: 0,
  elapsed_ms: elapsedMs,
  ...(content?.length ? { content } : {}),
});

const mimeOf = (format: unknown): "image/png" | "image/jpeg" | null => {
  const f = String(format ?? "").toLowerCase();
  return f === "png" || f === "image/png"
    ? "image/png"
    : f === "jpeg" || f === "jpg" || f === "image/jpeg"
      ? "image/jpeg"
      : null;
};

type Observation = { base64?: unknown; format?: unknown; [k: string]: unknown };

/** `computer.act`'s ComputerActResult: the text without the picture's bytes, then the picture. */
function computerOutcome(tool: string, p: Record<string, unknown>, elapsedMs: number): ToolOutcome {
  const { base64, ...observation } = (p.observation ?? {}) as Observation;
  const text = JSON.stringify(p.observation ? { ...p, observation } : p);
  if (p.ok === false)
    return { status: "error", tool, error: `the node did not act: ${text}`, error_type: "execution_failed" };
  const mimeType = mimeOf(observation.format);
  const image: ContentBlock[] =
    typeof base64 === "string" && base64 && mimeType
      ? [
          { type: "text", text },
          { type: "image", data: base64, mimeType },
        ]
      : [];
  return success(tool, text, elapsedMs, image);
}

type ProxyFile = { path?: unknown; base64?: unknown; mimeType?: unknown };

/** browser.proxy's `{result, files}`: the route's JSON, and the files it wrote, pictures as images. */
function browserOutcome(tool: string, p: Record<string, unknown>, elapsedMs: number): ToolOutcome {
  const files = Array.isArray(p.files) ? (p.files as ProxyFile[]) : [];
  const listed = files.map((f) => ({
    path: f.path,
    mimeType: f.mimeType,
    bytes: typeof f.base64 === "string" ? Math.floor((f.base64.length * 3) / 4) : 0,
  }));
  const text = JSON.stringify({ ...p, ...(files.length ? { files: listed } : {}) });
  const images = files.flatMap((f): ContentBlock[] => {
    const mimeType = mimeOf(f.mimeType);
    return mimeType && typeof f.base64 === "string" && f.base64 ? [{ type: "image", data: f.base64, mimeType }] : [];
  });
  return success(tool, text, elapsedMs, images.length ? [{ type: "text", text }, ...images] : undefined);
}

type ClaudePayload = {
  exitCode?: number;
  stderrTail?: string;
  truncated?: boolean;
  timeoutKind?: string;
  approvalRequired?: boolean;
};

/**
 * A Claude CLI turn: what it printed came as the invoke's progress (kept by the hub), the result
 * is its exit code and stderr's tail. A node whose own exec approvals ask first answers
 * `approvalRequired`: edgeloop never answers for the node's owner, so the call is refused.
 */
function claudeOutcome(tool: string, p: ClaudePayload, stdout: string, elapsedMs: number): ToolOutcome {
  if (p.approvalRequired)
    return {
      status: "error",
      tool,
      error:
        "the node's own exec approvals ask a person before it runs claude; its owner allows it on the node " +
        "(openclaw approvals), edgeloop does not answer for them",
      error_type: "permission_denied",
    };
  const cut = p.truncated ? "\n[the node kept only the first 200000 bytes of the output]" : "";
  const stderr = p.stderrTail ?? "";
  if (p.timeoutKind)
    return {
      status: "error",
      tool,
      error:
        `the node stopped claude (${p.timeoutKind === "idle" ? "no output for idleTimeoutMs" : "its timeout"})` +
        (stdout ? `; what it printed before:\n${stdout.slice(-4000)}` : ""),
      error_type: "timeout",
      stderr,
    };
  if (p.exitCode !== 0)
    return {
      status: "error",
      tool,
      error: `claude exited with code ${p.exitCode ?? "unknown"}${stderr.trim() ? `: ${stderr.trim().slice(-2000)}` : ""}`,
      error_type: "execution_failed",
      stderr,
      ...(typeof p.exitCode === "number" ? { exit_code: p.exitCode } : {}),
    };
  return success(tool, stdout + cut, elapsedMs, undefined, stderr);
}

/** The outcome of one of these commands' results, or null for a command that is not one of them. */
export function controlOutcome(
  tool: string,
  command: string,
  payload: unknown,
  elapsedMs: number,
  stdout = "",
): ToolOutcome | null {
  const p = payload && typeof payload === "object" ? (payload as Record<string, unknown>) : null;
  if (command === "computer.act" && p) return computerOutcome(tool, p, elapsedMs);
  if ((command === "browser.proxy" || command === "browser.proxy.upload.v1") && p)
    return browserOutcome(tool, p, elapsedMs);
  if (command === "agent.cli.claude.run.v1" && p) return claudeOutcome(tool, p as ClaudePayload, stdout, elapsedMs);
  return null;
}

/** A refusal of `computer.act`'s params says nothing of why: what the action takes does. */
export function computerHint(action: unknown): string {
  const fields = computerActionFields(String(action ?? ""));
  if (!fields) return "";
  const needs = fields.needs.length ? `needs ${fields.needs.join(", ")}; ` : "";
  return ` (${String(action)} ${needs}takes ${fields.takes.join(", ") || "nothing else"})`;
}
