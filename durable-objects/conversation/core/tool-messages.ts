import {
  base64DecodedBytes,
  type ImageRef,
  isImageRef,
  type OutcomeBlock,
  type ToolOutcome,
  type ToolSpec,
} from "@edgeloop/protocol";
import type { CallOutcome } from "./types.js";

/**
 * What the model reads for a tool outcome. Errors carry a recovery hint so the model is
 * told what went wrong and what it can do next.
 */
export function toolMessageText(
  outcome: ToolOutcome,
  args: Record<string, unknown> | null,
  /** the device the call went to; null for a tool the orchestrator runs (built-in, webhook, remote MCP) */
  agentId: string | null,
  /** the call needed a person's (or a rule's) approval to run */
  approved = false,
): string {
  if (outcome.status === "success") return successText(outcome);
  const tool = outcome.tool;
  const command = typeof args?.command === "string" ? ` Command: '${args.command}'.` : "";
  switch (outcome.error_type) {
    case "timeout":
      return `Error: ${outcome.error}.${command}\nTry again with a shorter timeout or explain to the user.`;
    case "permission_denied":
      return `Error: Permission denied for tool '${tool}': ${outcome.error}\nThis agent is not allowed to do that. Explain to the user.`;
    case "invalid_params":
      return outcome.error.startsWith("Invalid parameters")
        ? `Error: ${outcome.error}`
        : `Error: Invalid parameters for '${tool}': ${outcome.error}`;
    case "not_found":
      return `Error: ${outcome.error}\nPlease choose an available tool or explain to the user.`;
    case "unavailable":
      return agentId === null
        ? `Error: Tool '${tool}' is unavailable: ${outcome.error}\nExplain to the user or try again later.`
        : `Error: Device '${agentId}' is unavailable: ${outcome.error}\nThe tool did not run. Explain to the user or try again later.`;
    // docs/architecture.md#call-endings: what the model may do next depends on whether it ran.
    case "not_sent":
      return `Error: Tool '${tool}' did not run: ${outcome.error}.\nThe command never reached the device, so nothing was changed. You may call it again (the device may still be offline), or explain to the user.`;
    case "outcome_unknown":
      return [
        `Error: The outcome of '${tool}' is unknown: ${outcome.error}.${command}`,
        "It may have run, in full or in part. Do not repeat it blindly: first check whether it took effect (read the state it changes), or explain to the user.",
        approved
          ? "It needed approval: do not call it again without asking the user."
          : "If the device sends its result later, you will be told at your next turn.",
      ].join("\n");
    case "cancelled":
      return `Error: Tool '${tool}' was cancelled: ${outcome.error}`;
    default: {
      const parts = [`Error: Tool '${tool}' failed: ${outcome.error}`];
      if (outcome.exit_code !== undefined) parts.push(`exit code: ${outcome.exit_code}`);
      if (outcome.stderr) parts.push(`stderr:\n${outcome.stderr}`);
      return parts.join("\n");
    }
  }
}

function successText(outcome: Extract<ToolOutcome, { status: "success" }>): string {
  const blocks = outcome.content ?? [];
  let text = blocks.length
    ? blocks.map((b) => (b.type === "text" ? b.text : imageLabel(b))).join("\n")
    : outcome.result;
  if (outcome.exit_code !== 0) text += `\n[exit code ${outcome.exit_code}]`;
  if (outcome.stderr) text += `\n[stderr]\n${outcome.stderr}`;
  if (outcome.truncated) {
    text += `\n[output truncated on the device: ${outcome.bytes_returned ?? "?"} of ${outcome.bytes_total ?? "?"} bytes returned]`;
  }
  return text;
}

/**
 * What the text says where an image was: its type and size. A stored image also travels beside
 * the text (see toolMessageImages); image-context.ts adds why when it is not shown to the model.
 */
export function imageLabel(block: Exclude<OutcomeBlock, { type: "text" }>): string {
  if (isImageRef(block)) {
    const size = block.width && block.height ? ` ${block.width}x${block.height}` : "";
    return `[image ${block.media_type}${size}, ${block.bytes} bytes]`;
  }
  return `[image ${block.mimeType}, ${base64DecodedBytes(block.data)} bytes]`;
}

/** The stored images of a successful outcome, in order, for the tool message that carries them. */
export function toolMessageImages(outcome: CallOutcome): ImageRef[] {
  if (outcome.status !== "success") return [];
  return (outcome.content ?? []).filter(isImageRef);
}

/** Cut a result for the model, saying how much was cut so it can ask for less. */
export function truncateForModel(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const cut = text.length - maxChars;
  return `${text.slice(0, maxChars)}\n[truncated: ${cut} of ${text.length} characters cut; request a smaller range or filter the output]`;
}

export function unknownToolOutcome(name: string, tools: ToolSpec[]): ToolOutcome {
  const available = tools.map((t) => t.name).join(", ") || "(none)";
  return {
    status: "error",
    tool: safeToolName(name),
    error: `Tool '${name}' not found. Available tools: ${available}.`,
    error_type: "not_found",
  };
}

export function invalidParamsOutcome(name: string, error: string): ToolOutcome {
  return { status: "error", tool: safeToolName(name), error, error_type: "invalid_params" };
}

/**
 * The conversation's own deadline for a call. For a device call it comes after the hub's (which says `not_sent` or
 * `outcome_unknown` first when it can): without word from the hub it cannot know whether the
 * command left, so the call's outcome is unknown.
 */
export function deadlineOutcome(name: string, timeoutMs: number, onDevice: boolean): ToolOutcome {
  const tool = safeToolName(name);
  return onDevice
    ? {
        status: "error",
        tool,
        error: `no result and no word from the device's hub within ${timeoutMs}ms and its grace`,
        error_type: "outcome_unknown",
      }
    : { status: "error", tool, error: `Tool '${name}' timed out after ${timeoutMs}ms`, error_type: "timeout" };
}

/** A model can invent any name; keep what we store within the protocol's tool-name shape. */
function safeToolName(name: string): string {
  const cleaned = name.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64);
  return cleaned || "unknown";
}

/** After a tool call the model wrote as text could not be read, the model is asked to correct it, once. */
export function toolCallCorrectionRequest(reason: string, toolNames: readonly string[]): string {
  return [
    `Your last reply tried to call a tool, but the call could not be read: ${reason}.`,
    "Reply with only the corrected tool call as one valid JSON object and no other text:",
    '{"tool": "<tool name>", "args": {...}}',
    `Available tools: ${toolNames.length > 0 ? toolNames.join(", ") : "(none)"}.`,
  ].join("\n");
}
