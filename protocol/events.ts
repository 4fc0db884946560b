/**
 * The conversation's event stream. Every event is stored with a sequence number so a client can
 * replay from any point.
 */
export type ConversationEventData =
  | { type: "message_start"; message_id: string; text: string }
  | { type: "message_delta"; delta: string }
  | { type: "message_end"; iteration: number; content: string | null; tool_calls: number }
  | { type: "tool_execution_start"; toolCallId: string; toolName: string; args: unknown }
  | { type: "tool_execution_update"; toolCallId: string; toolName: string; partial: unknown }
  | {
      type: "tool_execution_end";
      toolCallId: string;
      toolName: string;
      result: unknown;
      isError: boolean;
    }
  | { type: "approval_required"; toolCallId: string; toolName: string; args: unknown }
  | { type: "question"; toolCallId: string; question: string }
  | {
      type: "conversation_end";
      message_id: string;
      status: string;
      reply: string | null;
      stop_reason: string;
    };

export type ConversationEvent = ConversationEventData & { seq: number; at: number };
