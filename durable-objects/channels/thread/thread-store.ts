import { type Bucket, type BucketLimits, type Take, take } from "../../front-door/token-bucket.js";
import type { ToolLine } from "../chat-content/live-reply.js";
import type { ChatAddress, InboundEvent, PlatformName } from "../platform.js";

/** A platform call waiting in the thread's outbox; `key` makes each one unique. */
export type SendOp =
  | { type: "notice"; text: string; only_for?: { user_id: string; ack_token?: string } }
  | { type: "final"; message_id: string; text: string }
  | { type: "card"; card_id: string }
  | { type: "card_edit"; card_id: string }
  /** A tool's picture: only its hash here; the bytes are read from the conversation when sent. */
  | { type: "photo"; conversation_id: string; sha256: string; bytes: number; caption: string };

export type SendRow = { id: number; key: string; op: SendOp; attempts: number; progress: number; next_at: number };

export type RunRow = {
  message_id: string;
  conversation_id: string;
  agent_id: string;
  live_id: string | null;
  text: string;
  tools: ToolLine[];
  rendered: string;
  last_edit_at: number;
  last_typing_at: number;
  /** when the run's last event came: "typing…" is not kept up for a call quiet for long */
  last_event_at: number;
  ended: boolean;
};

export type CardRow = {
  card_id: string;
  conversation_id: string;
  tool_call_id: string;
  kind: "approval" | "question";
  body: string;
  options: string[];
  message_id: string | null;
  decided: string | null;
};

export type ThreadIdentity = { platform: PlatformName; chat: ChatAddress; key: string };

type Raw = Record<string, SqlStorageValue>;

/** Runs, cards and sent calls are kept this long after they ended, then pruned (the thread's storage stays bounded). */
const KEEP_MS = 7 * 86_400_000;
/** A card nobody decided is dropped after this long (its run gave up on it long before). */
const KEEP_UNDECIDED_MS = 30 * 86_400_000;

/**
 * A chat thread's SQLite: who it is, its conversation and device, inbound events not yet handled,
 * its runs (the live message of each), the last event taken from each conversation, its approval
 * and question cards, and the outbox of platform calls. Every write here is synchronous, so a
 * step of the thread commits before the awaits after it.
 */
export class ThreadStore {
  constructor(private readonly sql: SqlStorage) {
    sql.exec("CREATE TABLE IF NOT EXISTS kv (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
    sql.exec(`CREATE TABLE IF NOT EXISTS inbox (event_id TEXT PRIMARY KEY, event TEXT NOT NULL,
      received_at INTEGER NOT NULL, done INTEGER NOT NULL DEFAULT 0)`);
    sql.exec(`CREATE TABLE IF NOT EXISTS runs (message_id TEXT PRIMARY KEY, conversation_id TEXT NOT NULL, agent_id TEXT NOT NULL,
      live_id TEXT, text TEXT NOT NULL DEFAULT '', tools TEXT NOT NULL DEFAULT '[]', rendered TEXT NOT NULL DEFAULT '',
      last_edit_at INTEGER NOT NULL DEFAULT 0, last_typing_at INTEGER NOT NULL DEFAULT 0,
      last_event_at INTEGER NOT NULL DEFAULT 0, started_at INTEGER NOT NULL, ended INTEGER NOT NULL DEFAULT 0)`);
    sql.exec(`CREATE TABLE IF NOT EXISTS seen (conversation_id TEXT PRIMARY KEY, after_seq INTEGER NOT NULL,
      current TEXT, at INTEGER NOT NULL)`);
    sql.exec(`CREATE TABLE IF NOT EXISTS cards (card_id TEXT PRIMARY KEY, conversation_id TEXT NOT NULL,
      tool_call_id TEXT NOT NULL, kind TEXT NOT NULL, body TEXT NOT NULL, options TEXT NOT NULL,
      message_id TEXT, decided TEXT, created_at INTEGER NOT NULL, UNIQUE (conversation_id, tool_call_id))`);
    sql.exec(`CREATE TABLE IF NOT EXISTS sends (id INTEGER PRIMARY KEY AUTOINCREMENT, key TEXT NOT NULL UNIQUE,
      op TEXT NOT NULL, next_at INTEGER NOT NULL, attempts INTEGER NOT NULL DEFAULT 0,
      progress INTEGER NOT NULL DEFAULT 0, done INTEGER NOT NULL DEFAULT 0)`);
  }

  get<T>(key: string): T | null {
    const row = this.sql.exec<{ value: string }>("SELECT value FROM kv WHERE key = ?", key).toArray()[0];
    return row ? (JSON.parse(row.value) as T) : null;
  }

  put(key: string, value: unknown): void {
    this.sql.exec("INSERT OR REPLACE INTO kv (key, value) VALUES (?, ?)", key, JSON.stringify(value));
  }

  /** The thread's sender bucket (front-door/rate-limits.ts): one token per message it posts. */
  take(limits: BucketLimits, now: number): Take {
    const result = take(this.get<Bucket>("sender_bucket"), limits, now);
    this.put("sender_bucket", result.bucket);
    return result;
  }

  identity(): ThreadIdentity | null {
    return this.get<ThreadIdentity>("identity");
  }

  // ---- inbound events: taken once by the platform's id ------------------------------------

  /** False when this event id was taken before (a platform retry that got past the front door). */
  takeInbound(event: InboundEvent, now: number): boolean {
    return (
      this.sql.exec(
        "INSERT OR IGNORE INTO inbox (event_id, event, received_at) VALUES (?, ?, ?)",
        `${event.kind}:${event.eventId}`,
        JSON.stringify(event),
        now,
      ).rowsWritten > 0
    );
  }

  pendingInbound(): { event_id: string; event: InboundEvent }[] {
    return this.sql
      .exec<{ event_id: string; event: string }>("SELECT event_id, event FROM inbox WHERE done = 0 ORDER BY rowid")
      .toArray()
      .map((r) => ({ event_id: r.event_id, event: JSON.parse(r.event) as InboundEvent }));
  }

  finishInbound(eventId: string, now: number): void {
    this.sql.exec("UPDATE inbox SET done = 1 WHERE event_id = ?", eventId);
    // Handled ids are kept a week: longer than any platform retries a delivery.
    this.sql.exec("DELETE FROM inbox WHERE done = 1 AND received_at < ?", now - KEEP_MS);
  }

  // ---- runs and the conversations' events ---------------------------------------------------

  /**
   * A run of this thread, when its message was accepted (the device it was routed to) or when its
   * first event came, whichever is first; the device named on acceptance wins. Old runs, cards and
   * conversations go now (KEEP_MS), so the thread's storage does not grow with its history.
   */
  addRun(messageId: string, conversationId: string, agentId: string | null, now: number): void {
    this.sql.exec(
      `INSERT INTO runs (message_id, conversation_id, agent_id, started_at, last_event_at) VALUES (?1, ?2, ?3, ?4, ?4)
       ON CONFLICT(message_id) DO UPDATE SET agent_id = excluded.agent_id WHERE ?5`,
      messageId,
      conversationId,
      agentId ?? "its device",
      now,
      agentId === null ? 0 : 1,
    );
    this.prune(now);
  }

  run(messageId: string): RunRow | null {
    const row = this.sql.exec<Raw>("SELECT * FROM runs WHERE message_id = ?", messageId).toArray()[0];
    return row ? runView(row) : null;
  }

  /** The runs still going (their live message may need an edit or "typing…"). */
  openRuns(): RunRow[] {
    return this.sql.exec<Raw>("SELECT * FROM runs WHERE ended = 0").toArray().map(runView);
  }

  /** What events applied to the run change (its text, tools, whether it ended). */
  saveRun(run: RunRow): void {
    this.sql.exec(
      "UPDATE runs SET text = ?, tools = ?, last_event_at = ?, ended = MAX(ended, ?) WHERE message_id = ?",
      run.text,
      JSON.stringify(run.tools),
      run.last_event_at,
      run.ended ? 1 : 0,
      run.message_id,
    );
  }

  /** What showing the run changes (its live message); events applied meanwhile are kept. */
  saveLive(run: RunRow): void {
    this.sql.exec(
      "UPDATE runs SET live_id = ?, rendered = ?, last_edit_at = ?, last_typing_at = ? WHERE message_id = ?",
      run.live_id,
      run.rendered,
      run.last_edit_at,
      run.last_typing_at,
      run.message_id,
    );
  }

  /** The last event taken from a conversation, and the run its events belong to now. */
  seen(conversationId: string): { after_seq: number; current: string | null } {
    const row = this.sql
      .exec<{ after_seq: number; current: string | null }>(
        "SELECT after_seq, current FROM seen WHERE conversation_id = ?",
        conversationId,
      )
      .toArray()[0];
    return row ?? { after_seq: 0, current: null };
  }

  saveSeen(conversationId: string, afterSeq: number, current: string | null, now: number): void {
    this.sql.exec(
      `INSERT INTO seen (conversation_id, after_seq, current, at) VALUES (?, ?, ?, ?)
       ON CONFLICT(conversation_id) DO UPDATE SET after_seq = excluded.after_seq, current = excluded.current, at = excluded.at`,
      conversationId,
      afterSeq,
      current,
      now,
    );
  }

  private prune(now: number): void {
    // A run that never ended (its conversation was lost) goes with the undecided cards.
    this.sql.exec(
      "DELETE FROM runs WHERE (ended = 1 AND started_at < ?) OR started_at < ?",
      now - KEEP_MS,
      now - KEEP_UNDECIDED_MS,
    );
    this.sql.exec(
      "DELETE FROM cards WHERE (decided IS NOT NULL AND created_at < ?) OR created_at < ?",
      now - KEEP_MS,
      now - KEEP_UNDECIDED_MS,
    );
    // A conversation's events are not pushed again once it is this old; its own run rows went above.
    this.sql.exec("DELETE FROM seen WHERE at < ?", now - KEEP_MS);
  }

  // ---- cards ---------------------------------------------------------------------------------

  addCard(card: Omit<CardRow, "message_id" | "decided">, now: number): boolean {
    return (
      this.sql.exec(
        `INSERT OR IGNORE INTO cards (card_id, conversation_id, tool_call_id, kind, body, options, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
        card.card_id,
        card.conversation_id,
        card.tool_call_id,
        card.kind,
        card.body,
        JSON.stringify(card.options),
        now,
      ).rowsWritten > 0
    );
  }

  card(cardId: string): CardRow | null {
    const row = this.sql.exec<Raw>("SELECT * FROM cards WHERE card_id = ?", cardId).toArray()[0];
    return row ? cardView(row) : null;
  }

  cardFor(conversationId: string, toolCallId: string): CardRow | null {
    const row = this.sql
      .exec<Raw>("SELECT * FROM cards WHERE conversation_id = ? AND tool_call_id = ?", conversationId, toolCallId)
      .toArray()[0];
    return row ? cardView(row) : null;
  }

  /** The question still waiting in this thread, which a typed reply answers. */
  openQuestion(): CardRow | null {
    const row = this.sql
      .exec<Raw>("SELECT * FROM cards WHERE kind = 'question' AND decided IS NULL ORDER BY rowid DESC LIMIT 1")
      .toArray()[0];
    return row ? cardView(row) : null;
  }

  setCardMessage(cardId: string, messageId: string): void {
    this.sql.exec("UPDATE cards SET message_id = ? WHERE card_id = ?", messageId, cardId);
  }

  /** Claims the card for one decision; false when it was decided already (a second press). */
  decideCard(cardId: string, decided: string): boolean {
    return (
      this.sql.exec("UPDATE cards SET decided = ? WHERE card_id = ? AND decided IS NULL", decided, cardId).rowsWritten >
      0
    );
  }

  /** A claimed answer the question refused (it did not fit a server's form): open again for another. */
  reopenCard(cardId: string): void {
    this.sql.exec("UPDATE cards SET decided = NULL WHERE card_id = ?", cardId);
  }

  /** A claimed decision that could not be applied: the card says why instead. */
  overwriteDecision(cardId: string, decided: string): void {
    this.sql.exec("UPDATE cards SET decided = ? WHERE card_id = ?", decided, cardId);
  }

  // ---- the outbox of platform calls -------------------------------------------------------

  enqueue(key: string, op: SendOp, now: number): void {
    this.sql.exec("INSERT OR IGNORE INTO sends (key, op, next_at) VALUES (?, ?, ?)", key, JSON.stringify(op), now);
  }

  dueSends(now: number): SendRow[] {
    return this.sql
      .exec<Raw>("SELECT * FROM sends WHERE done = 0 AND next_at <= ? ORDER BY id", now)
      .toArray()
      .map((r) => ({
        id: Number(r.id),
        key: String(r.key),
        op: JSON.parse(String(r.op)) as SendOp,
        attempts: Number(r.attempts),
        progress: Number(r.progress),
        next_at: Number(r.next_at),
      }));
  }

  nextSendAt(): number | null {
    return this.sql.exec<{ t: number | null }>("SELECT MIN(next_at) AS t FROM sends WHERE done = 0").one().t;
  }

  sendProgress(id: number, progress: number): void {
    this.sql.exec("UPDATE sends SET progress = ? WHERE id = ?", progress, id);
  }

  finishSend(id: number): void {
    this.sql.exec("UPDATE sends SET done = 1 WHERE id = ?", id);
    // Done rows stay a week so a reply delivered again finds its key taken; then they go.
    this.sql.exec("DELETE FROM sends WHERE done = 1 AND next_at < ?", Date.now() - KEEP_MS);
  }

  retrySend(id: number, at: number): void {
    this.sql.exec("UPDATE sends SET attempts = attempts + 1, next_at = ? WHERE id = ?", at, id);
  }
}

function runView(r: Raw): RunRow {
  return {
    message_id: String(r.message_id),
    conversation_id: String(r.conversation_id),
    agent_id: String(r.agent_id),
    live_id: r.live_id === null ? null : String(r.live_id),
    text: String(r.text),
    tools: JSON.parse(String(r.tools)) as ToolLine[],
    rendered: String(r.rendered),
    last_edit_at: Number(r.last_edit_at),
    last_typing_at: Number(r.last_typing_at),
    last_event_at: Number(r.last_event_at),
    ended: Number(r.ended) === 1,
  };
}

function cardView(r: Raw): CardRow {
  return {
    card_id: String(r.card_id),
    conversation_id: String(r.conversation_id),
    tool_call_id: String(r.tool_call_id),
    kind: r.kind === "question" ? "question" : "approval",
    body: String(r.body),
    options: JSON.parse(String(r.options)) as string[],
    message_id: r.message_id === null ? null : String(r.message_id),
    decided: r.decided === null ? null : String(r.decided),
  };
}
