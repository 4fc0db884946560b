import type {
  ConversationEventData,
  ConversationStatus,
  ImageRef,
  ToolCallSummary,
  ToolOutcome,
  ToolSpec,
} from "@edgeloop/protocol";
import type { ApprovalRuleMatch } from "@edgeloop/protocol/approval-rules";
import type { LoopConfig } from "./loop-config.js";

/** Chat Completions message shapes, kept minimal so the core needs no SDK types. */
export type ToolCallMessagePart = {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
};
/**
 * An image a message carries: a stored image's reference (docs/images.md). The history holds
 * references only; `data` (base64) is filled in for the one model call that sends it.
 */
export type MessageImage = ImageRef & { data?: string };
export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string; images?: MessageImage[] }
  | { role: "assistant"; content: string | null; tool_calls?: ToolCallMessagePart[] }
  | { role: "tool"; tool_call_id: string; content: string; images?: MessageImage[] };

/** A device's result for a call that had already ended (see late-results.ts). */
export type LateResult = { tool_call_id: string; request_id: string; tool: string; outcome: ToolOutcome };

/** A call a hook or a person refused; the model reads why. */
export type BlockedOutcome = { status: "blocked"; tool: string; reason: string };
export type CallOutcome = ToolOutcome | BlockedOutcome;

/** One call of the model's current response. */
export type RoundCall = {
  id: string;
  name: string;
  /** validated arguments; null when validation failed (the outcome is then already set) */
  args: Record<string, unknown> | null;
  raw_arguments: string;
  request_id: string;
  timeout_ms: number;
  kind: ToolSpec["kind"] | "question";
  state: "awaiting_approval" | "queued" | "dispatched" | "done";
  outcome: CallOutcome | null;
  /** who let an approval-required call run or blocked it: "person", "timeout" or "rule:<id>" */
  decided_by?: string;
  /** how long it waited for that decision (approvals.ts) */
  approval_wait_ms?: number;
};

/** The turn being worked on: one user message, until it has a reply. */
export type Run = {
  message_id: string;
  started_at: number;
  /** LLM calls made in this run */
  iteration: number;
  /** tool rounds completed in this run */
  rounds: number;
  consecutive_error_rounds: number;
  awaiting_llm: string | null;
  round: RoundCall[] | null;
  /** a stop reason once a cap is hit: the next LLM call is the last, without tools */
  stopping: StopReason | null;
  corrected_once: boolean;
  tool_calls: ToolCallSummary[];
  tokens_in: number;
  tokens_out: number;
  /** how the run used parallel tool calls */
  parallel_batches: number;
  max_concurrency: number;
  wall_saved_ms: number;
  round_started_at: number | null;
  /** the summary call under way before the model call `awaiting_llm` (see compaction.ts) */
  compacting: PendingCompaction | null;
  /** the estimated input tokens of the model call under way, before calibration */
  estimate?: number;
  /**
   * A direct call (an MCP client's tools/call): the run is one round of one call, made by the
   * caller instead of the model, and ends with that call's result instead of a model call.
   */
  direct?: boolean;
};

/** Older turns replaced, in the model's view only, by a summary the model wrote. */
export type Compaction = {
  /** messages before this number are summarized (they stay in storage: history.ts) */
  upto: number;
  /** a user message before `upto` still shown word for word: the turn being answered */
  pinned: number | null;
  /** the summary as the model reads it (open todos included) */
  summary: string;
  at: number;
  /** estimated input tokens of the model's view before and after */
  tokens_before: number;
  tokens_after: number;
};

export type PendingCompaction = {
  call_id: string;
  upto: number;
  pinned: number | null;
  tokens_before: number;
  /** the model call that waits for the summary */
  with_tools: boolean;
};

/** What one finished run cost and did; aggregated into the deployment's metrics. */
export type RunMetrics = {
  duration_ms: number;
  iterations: number;
  tool_calls: number;
  tool_errors: number;
  tokens_in: number;
  tokens_out: number;
  parallel_batches: number;
  max_concurrency: number;
  wall_saved_ms: number;
};

export type StopReason =
  | "answer"
  | "max_iterations"
  | "tool_errors"
  | "budget"
  | "cancel"
  | "llm_error"
  | "invalid_tool_call";

export type FinishedReply = {
  message_id: string;
  status: ConversationStatus;
  reply: string | null;
  stop_reason: StopReason;
  tool_calls: ToolCallSummary[];
  iterations: number;
  metrics?: RunMetrics;
  /** a direct call's outcome, redacted as stored results are */
  outcome?: CallOutcome;
};

export type QueuedMessage = {
  message_id: string;
  text: string;
  tools: ToolSpec[];
  config?: Partial<LoopConfig>;
  approval_rules?: ApprovalRuleMatch[];
  /** the schedule whose run this message is */
  schedule_id?: string;
  /** images sent with the message, already stored */
  images?: ImageRef[];
};

/** Where the in-memory history starts (history.ts; docs/architecture.md#bounded-memory). */
export type HistoryWindow = {
  /** the number of `messages[0]` in the whole history */
  from: number;
  /** message 0 when it is the system prompt: every model call after a compaction starts with it */
  system: ChatMessage | null;
};

export type LoopState = {
  conversation_id: string;
  agent_id: string;
  config: LoopConfig;
  status: ConversationStatus;
  /** the history since the latest compaction's kept part; all of it before the first (history.ts) */
  messages: ChatMessage[];
  /** absent while `messages` is the whole history */
  history?: HistoryWindow;
  tools: ToolSpec[];
  run: Run | null;
  queue: QueuedMessage[];
  replies: FinishedReply[];
  /** the latest compaction, the model's view is built from it; null before the first */
  compaction: Compaction | null;
  /** the provider's reported prompt tokens over our estimate, smoothed (see compaction.ts) */
  token_ratio?: number;
  /** the deployment's remembered approval decisions for this device (see approvals.ts) */
  approval_rules?: ApprovalRuleMatch[];
  /** late results kept since the model was last called (see late-results.ts) */
  late_results?: LateResult[];
  /** request ids of the late results kept, the latest few, so a redelivery changes nothing */
  late_seen?: string[];
};

// ---- events in, effects out ------------------------------------------------------------

/** One tool call, arguments kept as the raw JSON text the model wrote (validated by the loop). */
export type LlmToolCall = { id: string; name: string; arguments: string };

export type LlmUsage = { prompt_tokens: number; completion_tokens: number };

/**
 * What one model response amounts to, whatever the provider's dialect was: the llm/ adapters
 * assemble it from the stream, and the loop takes it in an `llm_response` event.
 */
export type LlmTurn = {
  content: string | null;
  toolCalls: LlmToolCall[];
  /**
   * The provider's finish reason, except that "stop"/null with tool calls present reads
   * "tool_calls" (several providers finish tool calls with "stop"). "length" is kept: it means
   * the arguments may be cut off. The adapters always set it; the loop does not read it.
   */
  finishReason?: string | null;
  usage?: LlmUsage;
  /** The tool calls were written as text in `content` (JSON or `<tool_call>`), not native. */
  textProtocol?: boolean;
  /** The model clearly tried to write a text tool call but it did not parse: why. */
  malformedToolCall?: string;
};

export type LoopEvent =
  | {
      type: "user_message";
      message_id: string;
      text: string;
      tools: ToolSpec[];
      config?: Partial<LoopConfig>;
      /** the approval rules in force for this device when the message arrived */
      approval_rules?: ApprovalRuleMatch[];
      /** the schedule whose run this message is */
      schedule_id?: string;
      /** images sent with the message, already stored */
      images?: ImageRef[];
    }
  | { type: "llm_response"; call_id: string; turn: LlmTurn }
  | { type: "llm_failed"; call_id: string; error: string }
  | { type: "tool_result"; tool_call_id: string; request_id: string; outcome: ToolOutcome }
  /** a device result for a call that had already ended (see late-results.ts) */
  | {
      type: "late_tool_result";
      tool_call_id: string;
      request_id: string;
      outcome: ToolOutcome;
      /** the call's name from stored history, found by the shell when memory no longer holds it */
      stored_tool?: string;
    }
  | { type: "tool_progress"; tool_call_id: string; partial: unknown }
  | { type: "deadline"; key: string }
  /** a person's decision; with `rule`, remembered for later calls that match it */
  | { type: "approval"; tool_call_id: string; approve: boolean; reason?: string; rule?: ApprovalRuleMatch }
  | { type: "compacted"; call_id: string; summary: string; open_todos?: string[] }
  | { type: "compaction_failed"; call_id: string; error: string }
  | { type: "answer"; tool_call_id: string; text: string }
  /** a remote or device MCP server asks the person a question while its tool call runs (mcp/server-questions.ts) */
  | { type: "server_question"; tool_call_id: string; question: string; options: string[] }
  | { type: "cancel"; reason?: string }
  /** run one tool call as its own run, without the model (see `Run.direct`) */
  | {
      type: "tool_call";
      message_id: string;
      call: { id: string; name: string; arguments: string };
      tools: ToolSpec[];
      /** the approval rules in force for this device when the call arrived */
      approval_rules?: ApprovalRuleMatch[];
    };

export type Effect =
  /** call the model with the conversation's messages; without tools when `with_tools` is false */
  | { type: "call_llm"; call_id: string; with_tools: boolean }
  | {
      type: "dispatch_tool";
      tool_call_id: string;
      request_id: string;
      tool: string;
      parameters: Record<string, unknown>;
      timeout_ms: number;
      /** set when the call needed approval: who gave it ("person" or "rule:<id>"), for the audit log */
      approval?: string;
    }
  /** a built-in or webhook tool, run by the orchestrator itself */
  | {
      type: "run_builtin";
      tool_call_id: string;
      request_id: string;
      tool: string;
      parameters: Record<string, unknown>;
      timeout_ms: number;
    }
  | { type: "cancel_tool"; request_id: string }
  /** summarize `messages[from, upto)` (and the summary before) for the model call that waits */
  | { type: "compact"; call_id: string; from: number; upto: number; context_tokens: number }
  /** a device call an approval decision blocked: written to the device's audit log */
  | {
      type: "record_denial";
      request_id: string;
      tool: string;
      parameters: Record<string, unknown>;
      decided_by: string;
      reason: string;
    }
  | { type: "set_deadline"; key: string; at: number }
  | { type: "clear_deadline"; key: string }
  | { type: "emit_event"; event: ConversationEventData }
  | { type: "reply"; reply: FinishedReply };

export type Advanced = { state: LoopState; effects: Effect[] };
