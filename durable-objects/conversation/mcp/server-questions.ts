import type { ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { log } from "../../../runtime/log.js";
import type { AnswerApplied, AnswerInput } from "../conversation-rpc.js";
import type { ConversationStore } from "../storage/conversation-store.js";
import { type Answer, type Form, questionFor, readAnswer, readForm } from "./elicitation-form.js";

/**
 * Questions remote MCP servers ask a person during a tool call (`elicitation/create`, form mode),
 * asked the way the loop asks its own: a `question` event for the call, which reaches the
 * dashboard, the CLI and the chat thread, and an answer through `POST …/answers/:tool_call_id`.
 *
 * The server waits on an open HTTP request, which lives only in this instance's memory, so the
 * waiting is in memory too; the question itself is stored (STORE_KEY) for the conversation's view,
 * and so that an answer arriving after a restart is told the question is gone rather than lost
 * silently. A restart forgets the stored questions (`forgetLost`): the call's outbox row is
 * re-driven, which calls the tool again, and a server that still needs the answer asks again
 * (docs/mcp.md#a-servers-questions).
 */
const STORE_KEY = "mcp_questions";

export type StoredQuestion = {
  server: string;
  question: string;
  options: string[];
  form: Form;
  asked_at: number;
  expires_at: number;
};

export class ServerQuestions {
  private readonly waiting = new Map<string, (answer: Answer) => void>();

  constructor(
    private readonly store: ConversationStore,
    /** shows the question (a `server_question` loop event) */
    private readonly show: (toolCallId: string, question: string, options: string[]) => void,
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

  /** Whether the call has a question stored (waiting, or lost to a restart). */
  has(toolCallId: string): boolean {
    return toolCallId in this.all();
  }

  /** A person's answer: checked against the requested schema, with its defaults, before the server gets it. */
  answer(toolCallId: string, input: AnswerInput): AnswerApplied {
    const stored = this.all()[toolCallId];
    if (!stored) return { found: false, applied: false };
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

  /** The questions waiting, by call id. */
  all(): Record<string, StoredQuestion> {
    return this.store.getValue<Record<string, StoredQuestion>>(STORE_KEY) ?? {};
  }

  /** What the conversation's view shows of each waiting question, by call id. */
  views(): Record<string, Pick<StoredQuestion, "question" | "options">> {
    return Object.fromEntries(
      Object.entries(this.all()).map(([id, q]) => [id, { question: q.question, options: q.options }]),
    );
  }

  /** After a restart: no request survives it, so no stored question can be answered any more. */
  forgetLost(): void {
    const lost = Object.keys(this.all());
    if (lost.length === 0) return;
    log("warn", "mcp server questions lost to a restart; their calls run again", { tool_call_ids: lost });
    this.store.putValue(STORE_KEY, {});
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
