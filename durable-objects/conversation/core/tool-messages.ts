import type { ToolOutcome, ToolSpec } from "@edgeloop/protocol";

/**
 * What the model reads for a tool outcome. Errors carry a recovery hint so the model is
 * told what went wrong and what it can do next.
 */
export function toolMessageText(
  outcome: ToolOutcome,
  args: Record<string, unknown> | null,
  /** the device the call went to; null for a tool the orchestrator runs (built-in, webhook, remote MCP) */
  agentId: string | null,
): string {
  if (outcome.status === "success") return successText(outcome);
  const tool = outcome.tool;
  switch (outcome.error_type) {
    case "timeout": {
      const what = typeof args?.command === "string" ? ` Command: '${args.command}'.` : "";
      return `Error: ${outcome.error}.${what}\nTry again with a shorter timeout or explain to the user.`;
    }
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
    ? blocks
        .map((b) =>
          b.type === "text" ? b.text : `[image ${b.mimeType}, ${Math.round((b.data.length * 3) / 4)} bytes]`,
        )
        .join("\n")
    : outcome.result;
  if (outcome.exit_code !== 0) text += `\n[exit code ${outcome.exit_code}]`;
  if (outcome.stderr) text += `\n[stderr]\n${outcome.stderr}`;
  if (outcome.truncated) {
    text += `\n[output truncated on the device: ${outcome.bytes_returned ?? "?"} of ${outcome.bytes_total ?? "?"} bytes returned]`;
  }
  return text;
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

export function deadlineOutcome(name: string, timeoutMs: number): ToolOutcome {
  return {
    status: "error",
    tool: safeToolName(name),
    error: `Tool '${name}' timed out after ${timeoutMs}ms (no result from the device)`,
    error_type: "timeout",
  };
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
