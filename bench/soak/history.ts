/**
 * A conversation's stored history cut into one segment per user message, each with its message
 * id (from the stored `message_start` events, which come in the same order), its tool calls (with
 * the request id the loop gave each: `<message_id>.<model call>.<position>`) and its final texts.
 */
import { LATE_RESULT_NOTE } from "@edgeloop/protocol/events";
import type { SoakEvent } from "./event-follower.js";

export type ViewMessage = {
  role: string;
  content: string | null;
  tool_call_id?: string;
  tool_calls?: { id: string; function: { name: string; arguments: string } }[];
};

export type ToolSummary = { id: string; name: string; status: string; error_type?: string };

export type ConversationView = {
  conversation_id: string;
  agent_id: string;
  status: string;
  messages: ViewMessage[];
  messages_total?: number;
  replies: { message_id: string; status: string; reply: string | null; tool_calls: ToolSummary[] }[];
  pending_tool_calls: { id: string; name: string; state: string }[];
  queued_messages: number;
};

export type HistoryCall = {
  id: string;
  name: string;
  args: Record<string, unknown>;
  request_id: string;
  /** the tool message's content, null if the history has no result for it */
  result: string | null;
  /** from the run's summary, else from the tool_execution_end event */
  status: string | null;
  error_type: string | null;
};

export type Segment = {
  text: string;
  message_id: string | null;
  schedule_id: string | null;
  calls: HistoryCall[];
  /** assistant messages with text and no tool calls: a finished run has exactly one */
  finalTexts: number;
};

export function segmentsOf(
  view: ConversationView,
  events: SoakEvent[],
): { segments: Segment[]; mismatch: string | null } {
  const starts = events.filter((e) => e.type === "message_start");
  const ends = new Map<string, SoakEvent>();
  for (const e of events) if (e.type === "tool_execution_end") ends.set(String(e.toolCallId), e);
  const segments: Segment[] = [];
  let mismatch: string | null = null;
  let current: Segment | null = null;
  let iteration = 0;
  const results = new Map<string, string>();
  for (const m of view.messages) if (m.role === "tool" && m.tool_call_id) results.set(m.tool_call_id, m.content ?? "");
  for (const m of view.messages) {
    // A late result's note is edgeloop's, not a message (docs/architecture.md#late-results).
    if (m.role === "user" && m.content?.startsWith(LATE_RESULT_NOTE)) continue;
    if (m.role === "user") {
      const start = starts[segments.length];
      if (!start || start.text !== m.content)
        mismatch ??= `user message ${segments.length + 1} (${m.content?.slice(0, 60)}) has no matching message_start`;
      current = {
        text: m.content ?? "",
        message_id: start ? String(start.message_id) : null,
        schedule_id: typeof start?.schedule_id === "string" ? start.schedule_id : null,
        calls: [],
        finalTexts: 0,
      };
      segments.push(current);
      iteration = 0;
      continue;
    }
    if (!current || m.role !== "assistant") continue;
    iteration++;
    if (!m.tool_calls || m.tool_calls.length === 0) {
      current.finalTexts++;
      continue;
    }
    const summaries = view.replies.find((r) => r.message_id === current!.message_id)?.tool_calls ?? [];
    m.tool_calls.forEach((tc, index) => {
      let args: Record<string, unknown> = {};
      try {
        args = JSON.parse(tc.function.arguments) as Record<string, unknown>;
      } catch {
        // left empty: the loop refused it too
      }
      const summary = summaries.find((s) => s.id === tc.id);
      const end = ends.get(tc.id);
      current!.calls.push({
        id: tc.id,
        name: tc.function.name,
        args,
        request_id: `${current!.message_id}.${iteration}.${index}`,
        result: results.get(tc.id) ?? null,
        status: summary?.status ?? (end ? (end.isError ? "error" : "success") : null),
        error_type: summary?.error_type ?? null,
      });
    });
  }
  if (starts.length !== segments.length && !mismatch)
    mismatch = `${starts.length} message_start events for ${segments.length} user messages`;
  return { segments, mismatch };
}
