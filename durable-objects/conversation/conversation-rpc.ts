import type {
  ContentBlock,
  ConversationEvent,
  ElicitationReply,
  ImageInput,
  ToolOutcome,
  WaitReply,
} from "@edgeloop/protocol";
import type { ApprovalRuleMatch } from "@edgeloop/protocol/approval-rules";
import type { HistoryPageQuery } from "@edgeloop/protocol/history-page";
import type { ReplyTarget } from "@edgeloop/protocol/run-output";
import type { Owner } from "../../runtime/access.js";
import type { CallOutcome, Compaction, FinishedReply, LoopConfig, LoopState } from "./core/index.js";

/**
 * What others may ask of a conversation: the worker's routes, the device hub (results and
 * progress), and other conversations (sub-tasks, sessions). ConversationDO implements it, and the
 * CONVERSATION namespace is typed by it, so callers and the class are checked against one contract.
 */
export interface ConversationRpc {
  postMessage(input: PostMessageInput): Promise<PostMessageAnswer>;
  /** A person's decision on an approval-required call; with `rule`, remembered for later calls. */
  approve(toolCallId: string, approve: boolean, reason?: string, rule?: ApprovalRuleMatch): Promise<FoundApplied>;
  /**
   * The user's answer to a `question`: the model's `question` call, or a remote MCP server's
   * question during a call (`error`: why the answer does not fit the server's form).
   */
  answer(toolCallId: string, answer: AnswerInput): Promise<AnswerApplied>;
  getCanvas(): Promise<StoredCanvas | null>;
  /** One of the conversation's images by its SHA-256 (docs/images.md); the caller checks who may see it. */
  getImage(sha256: string): Promise<StoredImage | null>;
  /** Resolves with the reply to `messageId`, or with the state so far after `timeoutMs`. */
  waitForReply(messageId: string, timeoutMs: number): Promise<WaitReply>;
  /** `page`: which page of the history the view carries (protocol/history-page.ts; the latest by default) */
  getConversation(page?: Partial<HistoryPageQuery>): Promise<ConversationView | null>;
  /** Whether it exists, and the id of the principal that started it (null when it does not exist). */
  ownership(): Promise<Ownership>;
  /** Whether a message is being answered, waits in the queue, or is done (or unknown). */
  messageState(messageId: string): Promise<"running" | "queued" | "done">;
  getEvents(afterSeq?: number, limit?: number): Promise<ConversationEvent[]>;
  cancel(reason?: string): Promise<{ found: boolean; cancelled: boolean }>;
  deliverToolResult(toolCallId: string, requestId: string, outcome: ToolOutcome): Promise<void>;
  /** a device result for a call that had already ended (docs/architecture.md#late-results) */
  deliverLateResult(toolCallId: string, requestId: string, outcome: ToolOutcome): Promise<void>;
  deliverProgress(toolCallId: string, requestId: string, content: ContentBlock[]): Promise<void>;
  /**
   * A device MCP server's question during the call (docs/protocol.md#elicitation): null once it is
   * asked (the answer goes to the device's hub later), or the reply the device gives at once.
   */
  askFromDevice(toolCallId: string, question: DeviceQuestion): Promise<ElicitationReply | null>;
  /**
   * One of the device's tools called directly (the fleet's MCP server), as a run of its own:
   * validation, hooks, approval, ledger and audit as for a model's call. Idempotent by message id.
   */
  callTool(input: DirectCallInput): Promise<PostMessageAnswer>;
  /** Like waitForReply, with the call's whole outcome (content blocks included) once it is done. */
  waitForCall(messageId: string, timeoutMs: number): Promise<DirectCallReply>;
}

export type DirectCallInput = {
  conversation_id: string;
  /** who asks: recorded as the owner of a new conversation, checked against an existing one's */
  by: Owner;
  agent_id: string;
  message_id: string;
  tool_call_id: string;
  tool: string;
  arguments: Record<string, unknown>;
};

export type DirectCallReply = WaitReply & { outcome: CallOutcome | null };

export type PostMessageInput = {
  conversation_id: string;
  /** who posts: recorded as the owner of a new conversation, checked against an existing one's */
  by: Owner;
  agent_id: string;
  message_id: string;
  text: string;
  /** limits a parent passes to its sub-task; the deployment's vars win over them */
  loop?: Partial<LoopConfig>;
  options?: Partial<
    Pick<LoopConfig, "max_iterations" | "tool_error_limit" | "max_tokens" | "max_wall_ms" | "citations">
  >;
  /** set when this conversation is a sub-task (`task`) of another */
  parent?: ParentLink;
  /** where the run's output goes: a `reply_url`, or the chat thread the message came from */
  reply?: ReplyTarget;
  /** routed through a pool: the conversation may move to the device the pool picked now */
  rebind?: boolean;
  /**
   * a fleet (docs/fleet.md): the devices this message's run uses, `agent_id` first (the
   * conversation's home device: sub-tasks, limits); each checked against the poster's grant
   */
  fleet?: string[];
  /** the message is a run of this schedule (the message_start event names it) */
  schedule_id?: string;
  /** images for the model, stored by the conversation (docs/images.md) */
  images?: ImageInput[];
};

/**
 * Refusals say whether the message conflicts with the conversation (409), names a conversation the
 * poster may not see (404, worded as for one that does not exist), or the deployment is misconfigured (500).
 * `agent_id`: the device the conversation is bound to (a message posted again may name another one).
 */
export type PostMessageAnswer = { ok: true; agent_id?: string } | { ok: false; status: 404 | 409 | 500; error: string };

export type FoundApplied = { found: boolean; applied: boolean };
/** An answer as text, or a decision not to give one. */
export type AnswerInput = { text: string } | { action: "decline" | "cancel" };
/** `error`: the answer does not fit the form; `unavailable`: it cannot reach the asker now (the question stays open). */
export type AnswerApplied = FoundApplied & { error?: string; unavailable?: string };

/** A device MCP server's question, as its hub passes it on: the frame's fields and the call's deadline. */
export type DeviceQuestion = {
  agent_id: string;
  request_id: string;
  elicitation_id: string;
  server: string;
  message: string;
  requested_schema: Record<string, unknown>;
  /** the hub's deadline for the call: the question cannot outlive it */
  expires_at: number;
};

/** One of the conversation's images (docs/images.md): its bytes and type. */
export type StoredImage = { media_type: string; bytes: Uint8Array };
export type StoredCanvas = { title: string; format: string; content: string; updated_at: number };

export type ConversationView = {
  conversation_id: string;
  agent_id: string;
  status: LoopState["status"];
  /** one page of the history (views/history-page.ts): messages `messages_from`… of `messages_total` */
  messages: LoopState["messages"];
  messages_from: number;
  messages_total: number;
  replies: FinishedReply[];
  pending_tool_calls: {
    id: string;
    name: string;
    state: string;
    args: Record<string, unknown> | null;
    /** a remote or device MCP server's question waiting during the call (state `awaiting_answer`) */
    question?: string;
    options?: string[];
    /** a fleet's call: what approval rules match it by (null agent: edgeloop picks the device) */
    rule_target?: { agent_id: string | null; tool: string };
  }[];
  queued_messages: number;
  /** older turns summarized in the model's view, oldest first; the history's pages keep every message */
  compactions?: Compaction[];
  /** the latest run's trace id (tracing/run-tracer.ts) */
  trace_id?: string | null;
};

export type Ownership = { exists: boolean; owner: string | null };

/** The call in a parent conversation that started this one as its sub-task (`task`). */
export type ParentLink = { conversation_id: string; tool_call_id: string; request_id: string };
