import type { ParametersSchema, ToolOutcome } from "@edgeloop/protocol";

/**
 * A built-in tool runs in the orchestrator (inside the ConversationDO), not on a device. Tools are
 * plain objects (pi-agent-core style); `run` returns errors as values, never throws on bad input.
 * A thrown exception is an internal error: the shell logs it with detail and the model only sees
 * a generic failure, so nothing of the orchestrator's internals reaches the conversation.
 */
export type Builtin = {
  name: string;
  description: string;
  parameters: ParametersSchema;
  /** approval policy; `requires_approval` pauses the call until a person approves it */
  policy?: "auto" | "requires_approval";
  timeout_ms?: number;
  run(args: Record<string, unknown>, ctx: BuiltinContext): Promise<BuiltinResult>;
};

/** `pending`: the result arrives later through the conversation's deliverToolResult (sub-tasks). */
export type BuiltinResult = { kind: "done"; outcome: ToolOutcome } | { kind: "pending" };

export type DeviceSummary = {
  agent_id: string;
  online: boolean;
  last_seen: number | null;
  version: string | null;
  tools: string[];
};

export type ConversationSummary = {
  conversation_id: string;
  agent_id: string;
  status: string;
  messages: { role: string; content: string | null }[];
};

/** What a built-in may touch. The shell provides it; tests can provide an in-memory one. */
export type BuiltinContext = {
  conversation_id: string;
  agent_id: string;
  tool_call_id: string;
  request_id: string;
  now(): number;
  /** per-conversation storage for built-ins (todos, canvas); values are JSON */
  kv: {
    get<T>(key: string): T | null;
    put(key: string, value: unknown): void;
  };
  devices: {
    /** devices the deployment knows (the registry); may be only this conversation's agent */
    list(): Promise<DeviceSummary[]>;
    /** one device in full: manifest (skills with their tools), capabilities, counters */
    get(agentId: string): Promise<
      Record<string, unknown> & {
        skills: { name: string; workflow?: string; tools: { name: string; description: string }[] }[];
      }
    >;
  };
  conversations: {
    /** conversations this one started or named (for sessions_list) */
    known(): string[];
    remember(conversationId: string): void;
    view(conversationId: string): Promise<ConversationSummary | null>;
    /** post a user message into a conversation (new or existing); does not wait for its reply */
    post(
      conversationId: string | null,
      agentId: string,
      text: string,
    ): Promise<{ conversation_id: string; message_id: string } | { error: string }>;
  };
  /**
   * start a sub-conversation whose final reply becomes this call's result (`task`), on a device or,
   * given `pool`, over all of that pool's devices (a fleet: docs/fleet.md); an error when a device
   * is not one this conversation's owner may use, or the pool does not exist
   */
  startSubtask(text: string, agentId: string, pool?: string): Promise<{ conversation_id: string } | { error: string }>;
};

export function success(tool: string, result: string): ToolOutcome {
  return { status: "success", tool, result, stderr: "", exit_code: 0, elapsed_ms: 0 };
}

export function toolError(
  tool: string,
  error: string,
  error_type:
    | "invalid_params"
    | "not_found"
    | "permission_denied"
    | "execution_failed"
    | "timeout" = "execution_failed",
): ToolOutcome {
  return { status: "error", tool, error, error_type };
}
