/**
 * The soak's users: conversations started at a steady concurrency, each a few messages sent one
 * after another (each waits for its reply), every message retried with one Idempotency-Key until
 * accepted. A script answers what the conversations ask: approvals (some denied, decided by a
 * hash so a replay decides the same) and questions. What each message got is kept for the checks.
 */
import type { SoakApi } from "./api-client.js";
import { EventFollower, type SoakEvent } from "./event-follower.js";
import { answerFor, MESSAGE_KINDS, type MessageKind, messageText } from "./model-script.js";
import { hash32, type Random } from "./random.js";

export type MessageRecord = {
  msg: string;
  kind: MessageKind;
  text: string;
  key: string;
  message_id: string | null;
  /** when the client first tried to post it; accepted_at − posted_at is what retries cost */
  posted_at: number | null;
  accepted_at: number | null;
  /** the POST was refused for good, or kept failing past the client's retry window */
  refused: string | null;
  /** sequence numbers of the conversation_end events seen for this message */
  end_seqs: number[];
  start_seqs: number[];
  ended_at: number | null;
  status: string | null;
  reply: string | null;
  decisions: { call: string; tool: string; approve: boolean; outcome: string }[];
  answers: { call: string; outcome: string }[];
};

export type ConversationRecord = {
  conv: string;
  conversation_id: string;
  agent_id: string;
  messages: MessageRecord[];
  follower: { connects: number; repeats: number; lastSeq: number; seen: Map<number, SoakEvent> } | null;
  /** the driver's own failure (a bug in the soak, or the runtime refusing for good) */
  error: string | null;
};

/** Deny one approval in four, decided by the call's place, never by timing. */
export const approves = (conversationId: string, msg: string) => hash32(`${conversationId}/${msg}`) % 4 !== 0;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class Workload {
  readonly conversations: ConversationRecord[] = [];
  private sending = true;
  private aborted = false;
  private readonly running = new Set<Promise<void>>();
  private readonly stops = new Set<() => Promise<void>>();
  private starter: Promise<void> | null = null;

  constructor(
    private readonly api: SoakApi,
    private readonly random: Random,
    private readonly opts: {
      runTag: string;
      agents: string[];
      concurrency: number;
      messagesPerConversation: [number, number];
    },
  ) {}

  start(): void {
    this.starter ??= this.keepStarting();
  }

  /** No new conversations or messages from now on; those waiting for a reply go on waiting. */
  stopSending(): void {
    this.sending = false;
  }

  /** Waits until every conversation is done or `deadline`; returns whether all finished. */
  async drain(deadline: number): Promise<boolean> {
    this.stopSending();
    await this.starter;
    while (this.running.size > 0 && Date.now() < deadline) await sleep(250);
    const finished = this.running.size === 0;
    this.aborted = true;
    // Followers of conversations still waiting are stopped: the checks read the stored state.
    await Promise.all([...this.stops].map((stop) => stop()));
    return finished;
  }

  private async keepStarting(): Promise<void> {
    let n = 0;
    while (this.sending) {
      if (this.running.size >= this.opts.concurrency) {
        await sleep(100);
        continue;
      }
      n++;
      const conv = `c${String(n).padStart(4, "0")}`;
      const count = this.random.int(...this.opts.messagesPerConversation);
      const record: ConversationRecord = {
        conv,
        conversation_id: `soak-${this.opts.runTag}-${conv}`,
        agent_id: this.random.pick(this.opts.agents),
        messages: Array.from({ length: count }, (_, i) => {
          const msg = `m${i + 1}`;
          const kind = this.random.pick(MESSAGE_KINDS);
          return {
            msg,
            kind,
            text: messageText(conv, msg, kind),
            key: `soak-${this.opts.runTag}-${conv}-${msg}`,
            message_id: null,
            posted_at: null,
            accepted_at: null,
            refused: null,
            end_seqs: [],
            start_seqs: [],
            ended_at: null,
            status: null,
            reply: null,
            decisions: [],
            answers: [],
          };
        }),
        follower: null,
        error: null,
      };
      this.conversations.push(record);
      const p = this.drive(record)
        .catch((e: unknown) => {
          record.error = (e as Error).stack ?? String(e);
        })
        .finally(() => this.running.delete(p));
      this.running.add(p);
      // A little spread, so conversations do not move in lockstep.
      await sleep(this.random.int(20, 200));
    }
  }

  private async drive(c: ConversationRecord): Promise<void> {
    let current: MessageRecord | null = null;
    const byId = new Map<string, MessageRecord>();
    const follower = new EventFollower(this.api.url, c.conversation_id, (e) => this.onEvent(c, e, byId, current));
    c.follower = follower;
    const stop = () => follower.stop();
    this.stops.add(stop);
    follower.start();
    try {
      for (const m of c.messages) {
        if (!this.sending) break;
        current = m;
        m.posted_at = Date.now();
        try {
          const r = await this.api.postMessage(
            { agent_id: c.agent_id, conversation_id: c.conversation_id, text: m.text },
            m.key,
          );
          m.message_id = r.message_id;
          m.accepted_at = Date.now();
          byId.set(r.message_id, m);
          // Events for it may have come before the POST answered.
          for (const e of [...follower.seen.values()]) this.onEvent(c, e, byId, current, true);
        } catch (e) {
          m.refused = (e as Error).message;
          break;
        }
        while (m.ended_at === null && !this.aborted) await sleep(200);
      }
    } finally {
      await stop();
      this.stops.delete(stop);
    }
  }

  private onEvent(
    c: ConversationRecord,
    e: SoakEvent,
    byId: Map<string, MessageRecord>,
    current: MessageRecord | null,
    replay = false,
  ): void {
    const messageId = typeof e.message_id === "string" ? e.message_id : null;
    if (e.type === "conversation_end" && messageId) {
      const m = byId.get(messageId);
      if (!m || m.end_seqs.includes(e.seq)) return;
      m.end_seqs.push(e.seq);
      m.ended_at ??= Date.now();
      m.status = String(e.status);
      m.reply = typeof e.reply === "string" ? e.reply : null;
    } else if (e.type === "message_start" && messageId) {
      const m = byId.get(messageId);
      if (m && !m.start_seqs.includes(e.seq)) m.start_seqs.push(e.seq);
    } else if (!replay && current && (e.type === "approval_required" || e.type === "question")) {
      void this.settle(c, current, e);
    }
  }

  /** Answers an approval or a question; each event is answered, a repeat decision is harmless (409). */
  private async settle(c: ConversationRecord, m: MessageRecord, e: SoakEvent): Promise<void> {
    const call = String(e.toolCallId);
    try {
      if (e.type === "approval_required") {
        const approve = approves(c.conversation_id, m.msg);
        const outcome = await this.api.decide(c.conversation_id, call, approve);
        m.decisions.push({ call, tool: String(e.toolName), approve, outcome });
      } else {
        const outcome = await this.api.answer(c.conversation_id, call, answerFor(c.conv, m.msg));
        m.answers.push({ call, outcome });
      }
    } catch (err) {
      m.decisions.push({ call, tool: String(e.toolName ?? "question"), approve: false, outcome: `error: ${err}` });
    }
  }
}
