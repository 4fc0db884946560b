import type { ToolOutcome } from "@edgeloop/protocol";
import type { Owner } from "../../runtime/access.js";
import { conversationFor } from "../addresses.js";
import type { DurableObjectBindings } from "../bindings.js";
import type { ConversationStore } from "./conversation-store.js";
import type { FinishedReply, LoopState } from "./core/index.js";

/**
 * `task`: a child conversation with its own loop, started by a built-in call of its parent. The
 * child's final reply comes back to the parent's call through a `notify_parent` effect.
 */
export async function startSubtask(
  env: Pick<DurableObjectBindings, "CONVERSATION">,
  store: ConversationStore,
  parent: LoopState,
  call: { tool_call_id: string; request_id: string },
  text: string,
  agentId: string,
  /** the parent's owner: the child is theirs too */
  owner: Owner,
): Promise<{ conversation_id: string }> {
  // Derived from the request id, so a re-driven call finds the same child instead of a second one.
  const conversation_id = `task_${call.request_id.replace(/[^A-Za-z0-9]/g, "").slice(-40)}`;
  const child = conversationFor(env, conversation_id);
  const existing = await child.getConversation();
  if (!existing) {
    const res = await child.postMessage({
      conversation_id,
      by: owner,
      agent_id: agentId,
      message_id: `msg_${crypto.randomUUID()}`,
      text,
      loop: { max_iterations: parent.config.max_iterations, tool_error_limit: parent.config.tool_error_limit },
      parent: { conversation_id: parent.conversation_id, tool_call_id: call.tool_call_id, request_id: call.request_id },
    });
    if (!res.ok) throw new Error(`sub-task not started: ${res.error}`);
  }
  rememberConversation(store, conversation_id);
  return { conversation_id };
}

/** Conversations this one started or named, for the sessions built-ins. */
export function rememberConversation(store: ConversationStore, conversationId: string): void {
  const known = new Set(store.getValue<string[]>("known_conversations") ?? []);
  known.add(conversationId);
  store.putValue("known_conversations", [...known]);
}

/** What the parent's `task` call gets: the child's final reply, or why there is none. */
export function subtaskOutcome(reply: FinishedReply): ToolOutcome {
  if (reply.status === "completed")
    return { status: "success", tool: "task", result: reply.reply ?? "", stderr: "", exit_code: 0, elapsed_ms: 0 };
  return {
    status: "error",
    tool: "task",
    error: `the sub-task ended ${reply.status}: ${reply.reply ?? reply.stop_reason}`,
    error_type: reply.status === "cancelled" ? "cancelled" : "execution_failed",
  };
}
