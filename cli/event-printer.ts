import type { ConversationEvent } from "@edgeloop/protocol/events";
import { CLI } from "./invocation.js";
import { duration, oneLine } from "./output/format.js";
import type { Progress } from "./output/progress.js";

/**
 * Prints a conversation's events as a person follows them: each tool call with its arguments,
 * its outcome and how long it took, the model's text as it streams, and the final status.
 */
export function eventPrinter(out: Progress, conversationId: string) {
  const started = new Map<string, number>();
  let streamed = false;
  return (e: ConversationEvent): void => {
    switch (e.type) {
      case "message_start":
        out.set("waiting for the model…");
        break;
      case "message_delta":
        out.write(e.delta);
        streamed = true;
        break;
      case "message_end":
        if (streamed) out.endLine();
        else if (e.content && e.tool_calls > 0) out.print(e.content);
        streamed = streamed && e.tool_calls === 0;
        out.set(e.tool_calls > 0 ? "running tools…" : "finishing…");
        break;
      case "tool_execution_start":
        started.set(e.toolCallId, e.at);
        out.print(`→ ${e.toolName} ${oneLine(e.args, 300)}   [${e.toolCallId}]`);
        out.set(`running ${e.toolName}…`);
        break;
      case "tool_execution_update":
        out.print(`  … ${e.toolName}: ${oneLine(e.partial, 200)}`);
        break;
      case "tool_execution_end": {
        // From the start, or from the approval: time spent waiting for a person is not run time.
        const took = e.at - (started.get(e.toolCallId) ?? e.at);
        out.print(`${e.isError ? "✗" : "✓"} ${e.toolName} ${duration(took)}: ${oneLine(resultText(e.result), 400)}`);
        out.set("waiting for the model…");
        break;
      }
      case "approval_required":
        out.print(`⏸ ${e.toolName} waits for approval: ${oneLine(e.args, 300)}`);
        out.print(`  ${CLI} approve ${conversationId} ${e.toolCallId}   (or: ${CLI} deny … --reason "…")`);
        out.set("waiting for approval…");
        break;
      case "approval_decided":
        started.set(e.toolCallId, e.at);
        out.print(`  ${e.approved ? "approved" : "denied"} by ${e.decided_by} after ${duration(e.waited_ms)}`);
        break;
      case "question":
        out.print(`? ${e.question}`);
        out.print(`  ${CLI} answer ${conversationId} ${e.toolCallId} "<your answer>"`);
        out.set("waiting for an answer…");
        break;
      case "conversation_end":
        // The reply was already printed if it streamed as deltas.
        if (!streamed && e.reply) out.print(e.reply);
        out.print(`── ${e.status} (${e.stop_reason}) · ${conversationId}`);
        break;
    }
  };
}

/** A tool outcome as text: the output, or the error. */
function resultText(r: unknown): unknown {
  if (typeof r !== "object" || r === null) return r;
  const o = r as Record<string, unknown>;
  if (o.status === "error") return `${o.error_type ?? "error"}: ${o.error ?? ""}`;
  if (o.status === "blocked") return `blocked: ${o.reason ?? ""}`;
  if (typeof o.result === "string") return o.result;
  return r;
}
