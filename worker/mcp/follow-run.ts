import type { ConversationEvent, WaitReply } from "@edgeloop/protocol";

/**
 * Waiting for a conversation's reply while telling an MCP client how it is going: the
 * conversation's events (tool calls starting and ending, approvals, questions) become
 * `notifications/progress` when the request carried a progress token.
 */
export type ProgressExtra = {
  _meta?: { progressToken?: string | number };
  signal: AbortSignal;
  sendNotification: (n: {
    method: "notifications/progress";
    params: { progressToken: string | number; progress: number; message?: string };
  }) => Promise<void>;
};

/** How often the events are looked at while waiting: the longest a progress line is late. */
const POLL_MS = 1_000;
/** Without a progress token there is nothing to tell meanwhile: wait for the reply in long steps. */
const QUIET_WAIT_MS = 25_000;

export type FollowTarget<R extends WaitReply> = {
  wait(timeoutMs: number): Promise<R>;
  events(afterSeq: number): Promise<ConversationEvent[]>;
  /** only events after this message's `message_start` are reported (a conversation has history) */
  messageId: string;
  conversationId: string;
};

export async function followRun<R extends WaitReply>(
  target: FollowTarget<R>,
  extra: ProgressExtra,
  maxWaitMs: number,
): Promise<R> {
  const report = progressReporter(extra);
  const until = Date.now() + maxWaitMs;
  let seq = 0;
  let started = false;
  for (;;) {
    const left = until - Date.now();
    const reply = await target.wait(Math.max(0, Math.min(report ? POLL_MS : QUIET_WAIT_MS, left)));
    if (report) {
      for (const event of await target.events(seq)) {
        seq = Math.max(seq, event.seq);
        if (event.type === "message_start" && event.message_id === target.messageId) started = true;
        const text = started ? progressText(event, target.conversationId) : null;
        if (text) await report(text);
      }
    }
    if (reply.status !== "running" || left <= 0 || extra.signal.aborted) return reply;
  }
}

function progressReporter(extra: ProgressExtra): ((message: string) => Promise<void>) | null {
  const token = extra._meta?.progressToken;
  if (token === undefined) return null;
  let progress = 0;
  return async (message) => {
    progress += 1;
    // A client that went away cannot be told; the run goes on all the same.
    await extra
      .sendNotification({ method: "notifications/progress", params: { progressToken: token, progress, message } })
      .catch(() => undefined);
  };
}

/** One progress line per event worth telling; null for the rest (streamed text, bookkeeping). */
export function progressText(event: ConversationEvent, conversationId: string): string | null {
  switch (event.type) {
    case "tool_execution_start":
      return `calling ${event.toolName}`;
    case "tool_execution_update": {
      const parts = Array.isArray(event.partial) ? (event.partial as { type?: string; text?: string }[]) : [];
      const text = parts
        .map((p) => (p.type === "text" ? p.text : ""))
        .join(" ")
        .trim();
      return text ? `${event.toolName}: ${text.slice(0, 200)}` : null;
    }
    case "tool_execution_end":
      return `${event.toolName} ${event.isError ? "failed" : "done"}`;
    case "approval_required":
      return `waiting for approval of ${event.toolName}: POST /v1/conversations/${conversationId}/approvals/${event.toolCallId}`;
    case "question":
      return `the agent asks: ${event.question} (answer with POST /v1/conversations/${conversationId}/answers/${event.toolCallId})`;
    default:
      return null;
  }
}
