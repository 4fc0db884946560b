import type { ElicitationReply } from "@edgeloop/protocol/elicitation-frames";
import type { ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { log } from "../../../runtime/log.js";
import type { ElicitationDelivery } from "../../device-hub/device-hub-rpc.js";
import type { AnswerApplied, AnswerInput, DeviceQuestion } from "../conversation-rpc.js";
import type { LoopEvent } from "../core/index.js";
import type { ConversationStore } from "../storage/conversation-store.js";
import { type Answer, type Form, questionFor, readAnswer, readForm } from "./elicitation-form.js";

/**
 * Questions remote and device MCP servers ask a person during a tool call (`elicitation/create`, form mode),
 * asked the way the loop asks its own: a `question` event for the call, which reaches the
 * dashboard, the CLI and the chat thread, and an answer through `POST …/answers/:tool_call_id`.
 *
 * A remote server waits on an open HTTP request, which lives only in this instance's memory, so the
 * waiting is in memory too; the question itself is stored (STORE_KEY) for the conversation's view,
 * and so that an answer arriving after a restart is told the question is gone rather than lost
 * silently. A restart forgets the stored questions (`forgetLost`): the call's outbox row is
 * re-driven, which calls the tool again, and a server that still needs the answer asks again
 * (docs/mcp.md#a-servers-questions).
 *
 * A device MCP server's question (`askDevice`) waits on the device instead: the agent holds the
 * server's request and asks again after a reconnect, so the question is kept across a restart
 * and answered from storage, through the device's hub (docs/architecture.md#a-servers-question-lives-as-long-as-its-request).
 * It lives as long as its call runs; the device ends it when the call ends.
 */
const STORE_KEY = "mcp_questions";

/** Where a device question waits: the device, its call, and the agent's id for the question. */
export type DeviceRef = Pick<DeviceQuestion, "agent_id" | "request_id" | "elicitation_id">;

export type DeviceLink = {
  /** whether the call is running in this conversation (a device question ends with its call) */
  isRunning: (toolCallId: string) => boolean;
  /** the answer to the device, through its hub */
  toDevice: (device: DeviceRef, reply: ElicitationReply) => Promise<ElicitationDelivery>;
};

export type StoredQuestion = {
  server: string;
  question: string;
  options: string[];
  form: Form;
  asked_at: number;
  expires_at: number;
  /** set for a device server's question: answered through the device's hub */
  device?: DeviceRef;
};

export class ServerQuestions {
  private readonly waiting = new Map<string, (answer: Answer) => void>();

  constructor(
    private readonly store: ConversationStore,
    /** shows the question: applies a `server_question` loop event */
    private readonly apply: (event: Extract<LoopEvent, { type: "server_question" }>) => void,
    private readonly devices: DeviceLink,
  ) {}

  /**
   * Asks the person and waits at most `waitMs` (then `cancel`, as for a person who closed the
   * form) or until `signal` aborts (the server gave up, or the call ended).
   */
  async ask(
    toolCallId: string,
    server: string,
    params: { message: string; requestedSchema: unknown },
    waitMs: number,
    signal: AbortSignal,
  ): Promise<ElicitResult> {
    const read = readForm(params.requestedSchema);
    if (!read.ok) {
      log("warn", "mcp server question not asked", { server, tool_call_id: toolCallId, error: read.error });
      return { action: "decline" };
    }
    if (this.waiting.has(toolCallId)) {
      // One question per call at a time: the person answers them one by one, by the call's id.
      log("warn", "mcp server question while another is open for the call", { server, tool_call_id: toolCallId });
      return { action: "cancel" };
    }
    const now = Date.now();
    const { question, options } = questionFor(server, params.message, read.form);
    this.put(toolCallId, { server, question, options, form: read.form, asked_at: now, expires_at: now + waitMs });
    const answer = await new Promise<Answer>((resolve) => {
      const done = (a: Answer) => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        this.waiting.delete(toolCallId);
        this.remove(toolCallId);
        resolve(a);
      };
      const onAbort = () => done({ action: "cancel" });
      const timer = setTimeout(() => done({ action: "cancel" }), waitMs);
      signal.addEventListener("abort", onAbort);
      this.waiting.set(toolCallId, done);
      this.show(toolCallId, question, options);
    });
    log("info", "mcp server question answered", { server, tool_call_id: toolCallId, action: answer.action });
    return answer.action === "accept" ? { action: "accept", content: answer.content as ElicitContent } : answer;
  }

  /**
   * A device server's question for its running call: asked, and null (the answer goes to the
   * device later), or what the device must answer at once. Asked again (a reconnect), it is the
   * same question: nobody is asked twice.
   */
  askDevice(toolCallId: string, q: DeviceQuestion): ElicitationReply | null {
    const read = readForm(q.requested_schema);
    const fields = { server: q.server, tool_call_id: toolCallId, request_id: q.request_id };
    if (!read.ok) {
      log("warn", "device mcp server question not asked", { ...fields, error: read.error });
      return { action: "decline" };
    }
    const stored = this.all()[toolCallId];
    if (stored?.device?.elicitation_id === q.elicitation_id) return null;
    if (!this.devices.isRunning(toolCallId) || this.waiting.has(toolCallId)) return { action: "cancel" };
    const { question, options } = questionFor(q.server, q.message, read.form);
    const device = { agent_id: q.agent_id, request_id: q.request_id, elicitation_id: q.elicitation_id };
    const now = Date.now();
    const { server, expires_at } = q;
    this.put(toolCallId, { server, question, options, form: read.form, asked_at: now, expires_at, device });
    log("info", "device mcp server question asked", fields);
    this.show(toolCallId, question, options);
    return null;
  }

  /** Whether the call has a question stored (waiting, or lost to a restart). */
  has(toolCallId: string): boolean {
    return toolCallId in this.all();
  }

  /** A person's answer: checked against the requested schema, with its defaults, before the server gets it. */
  async answer(toolCallId: string, input: AnswerInput): Promise<AnswerApplied> {
    const stored = this.all()[toolCallId];
    if (!stored) return { found: false, applied: false };
    if (stored.device) return this.answerDevice(toolCallId, stored, stored.device, input);
    const resolve = this.waiting.get(toolCallId);
    if (!resolve) {
      // Stored but nobody waits: the request it belonged to was lost.
      this.remove(toolCallId);
      return { found: true, applied: false };
    }
    const read = "text" in input ? readAnswer(stored.form, input.text) : { ok: true as const, answer: input };
    if (!read.ok) return { found: true, applied: false, error: read.error };
    resolve(read.answer);
    return { found: true, applied: true };
  }

  /** The questions waiting, by call id (a device's only while its call runs). */
  all(): Record<string, StoredQuestion> {
    const stored = this.store.getValue<Record<string, StoredQuestion>>(STORE_KEY) ?? {};
    const ended = Object.keys(stored).filter((id) => stored[id]!.device && !this.devices.isRunning(id));
    for (const id of ended) delete stored[id];
    return stored;
  }

  /** What the conversation's view shows of each waiting question, by call id. */
  views(): Record<string, Pick<StoredQuestion, "question" | "options">> {
    return Object.fromEntries(
      Object.entries(this.all()).map(([id, q]) => [id, { question: q.question, options: q.options }]),
    );
  }

  /**
   * After a restart: no remote server's request survives it, so none of their stored questions
   * can be answered any more. A device's waits on the device, and is kept.
   */
  forgetLost(): void {
    const all = this.all();
    const lost = Object.keys(all).filter((id) => !all[id]!.device);
    if (lost.length === 0) return;
    log("warn", "mcp server questions lost to a restart; their calls run again", { tool_call_ids: lost });
    this.store.putValue(STORE_KEY, Object.fromEntries(Object.entries(all).filter(([, q]) => q.device)));
  }

  /**
   * Taken off before the answer leaves, so a second answer meanwhile finds none; put back when
   * the device is offline (the question stays open for it), unless another replaced it meanwhile.
   */
  private async answerDevice(
    toolCallId: string,
    stored: StoredQuestion,
    device: DeviceRef,
    input: AnswerInput,
  ): Promise<AnswerApplied> {
    const read = "text" in input ? readAnswer(stored.form, input.text) : { ok: true as const, answer: input };
    if (!read.ok) return { found: true, applied: false, error: read.error };
    this.remove(toolCallId);
    const delivery = await this.devices.toDevice(device, read.answer as ElicitationReply);
    log("info", "device mcp server question answered", {
      server: stored.server,
      tool_call_id: toolCallId,
      action: read.answer.action,
      delivery,
    });
    if (delivery !== "offline") return { found: true, applied: delivery === "sent" };
    if (!this.all()[toolCallId]) this.put(toolCallId, stored);
    return {
      found: true,
      applied: false,
      unavailable: `device '${device.agent_id}' is offline; answer again when it is back`,
    };
  }

  private show(tool_call_id: string, question: string, options: string[]): void {
    this.apply({ type: "server_question", tool_call_id, question, options });
  }

  private put(toolCallId: string, q: StoredQuestion): void {
    this.store.putValue(STORE_KEY, { ...this.all(), [toolCallId]: q });
  }

  private remove(toolCallId: string): void {
    const { [toolCallId]: _gone, ...rest } = this.all();
    this.store.putValue(STORE_KEY, rest);
  }
}

type ElicitContent = Extract<ElicitResult, { action: "accept" }>["content"];

/** The model's own `question` takes text: a person who declines or dismisses it is told to it as such. */
export function answerText(answer: AnswerInput): string {
  if ("text" in answer) return answer.text;
  return answer.action === "decline" ? "(the user declined to answer)" : "(the user dismissed the question)";
}
