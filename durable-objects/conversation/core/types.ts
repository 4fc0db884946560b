import type {
  ConversationEventData,
  ConversationStatus,
  ToolCallSummary,
  ToolOutcome,
  ToolSpec,
} from "../../../protocol/index.js";
import { DEFAULT_REDACT_PATTERNS } from "./hooks.js";

/** Chat Completions message shapes, kept minimal so the core needs no SDK types. */
export type ToolCallMessagePart = {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
};
export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | { role: "assistant"; content: string | null; tool_calls?: ToolCallMessagePart[] }
  | { role: "tool"; tool_call_id: string; content: string };

export type LoopConfig = {
  max_iterations: number;
  tool_error_limit: number;
  max_parallel: number;
  /** tool result text above this many characters is cut, with a note to the model */
  max_result_chars: number;
  /** added to the conversation's first message, if set */
  system_prompt: string | null;
  /** backstop deadline beyond a call's own timeout, in case the hub never answers */
  tool_deadline_grace_ms: number;
  /** how long an approval-required call waits for a person before it is blocked */
  approval_timeout_ms: number;
  /** how long a `question` waits for the user's answer */
  question_timeout_ms: number;
  /** tool name (or "*") → policy, overriding the tool's own */
  policies: Record<string, "auto" | "requires_approval">;
  /** before_tool_call: tool name (or "*") → regexes over the JSON arguments that block the call */
  deny_patterns: Record<string, string[]>;
  /** before_tool_call: tool name → parameters forced onto every call */
  param_overrides: Record<string, Record<string, unknown>>;
  /** tool_result_persist: regexes whose matches are replaced by [REDACTED] before storing */
  redact_patterns: string[];
  /** per-conversation budget; null = unlimited */
  max_tokens: number | null;
  max_wall_ms: number | null;
  /** seed 004: append "Sources: tool1, tool2" to answers that used tools */
  citations: boolean;
};

export const DEFAULT_LOOP_CONFIG: LoopConfig = {
  max_iterations: 10,
  tool_error_limit: 3,
  max_parallel: 5,
  max_result_chars: 32_000,
  system_prompt: null,
  tool_deadline_grace_ms: 15_000,
  approval_timeout_ms: 60 * 60 * 1000,
  question_timeout_ms: 24 * 60 * 60 * 1000,
  policies: {},
  deny_patterns: {},
  param_overrides: {},
  redact_patterns: DEFAULT_REDACT_PATTERNS,
  max_tokens: null,
  max_wall_ms: null,
  citations: false,
};

/** seed 001 §8.2: a call a hook or a person refused. */
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
  /** seed 000 phase 2 metrics */
  parallel_batches: number;
  max_concurrency: number;
  wall_saved_ms: number;
  round_started_at: number | null;
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
};

export type QueuedMessage = { message_id: string; text: string; tools: ToolSpec[]; config?: Partial<LoopConfig> };

export type LoopState = {
  conversation_id: string;
  agent_id: string;
  config: LoopConfig;
  status: ConversationStatus;
  messages: ChatMessage[];
  tools: ToolSpec[];
  run: Run | null;
  queue: QueuedMessage[];
  replies: FinishedReply[];
};

// ---- events in, effects out ------------------------------------------------------------

/** What the model answered, already assembled from the stream. */
export type LlmTurn = {
  content: string | null;
  toolCalls: { id: string; name: string; arguments: string }[];
  finishReason?: string | null;
  usage?: { prompt_tokens: number; completion_tokens: number };
  /** the model wrote a tool call in its text that could not be parsed */
  malformedToolCall?: string | null;
};

export type LoopEvent =
  | { type: "user_message"; message_id: string; text: string; tools: ToolSpec[]; config?: Partial<LoopConfig> }
  | { type: "llm_response"; call_id: string; turn: LlmTurn }
  | { type: "llm_failed"; call_id: string; error: string }
  | { type: "tool_result"; tool_call_id: string; request_id: string; outcome: ToolOutcome }
  | { type: "tool_progress"; tool_call_id: string; partial: unknown }
  | { type: "deadline"; key: string }
  | { type: "approval"; tool_call_id: string; approve: boolean; reason?: string }
  | { type: "answer"; tool_call_id: string; text: string }
  | { type: "cancel"; reason?: string };

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
  | { type: "set_deadline"; key: string; at: number }
  | { type: "clear_deadline"; key: string }
  | { type: "emit_event"; event: ConversationEventData }
  | { type: "reply"; reply: FinishedReply };

export type Advanced = { state: LoopState; effects: Effect[] };
