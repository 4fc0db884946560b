import type { OutboundEffect, OutboxRow } from "./outbound-effects.js";

/** An outbox entry as the state row keeps it. */
type StoredEntry = OutboxRow & { key: string };

/** The pending work as the state row keeps it. */
export type StoredWork = { outbox: StoredEntry[]; deadlines: Record<string, number> };

/**
 * The conversation's outbox (effects started but not finished) and its deadlines. The
 * ConversationStore keeps them in memory and writes them inside its state row, which every step
 * writes anyway: recording, finishing or retrying an effect and setting or clearing a deadline
 * cost no row of their own, and the alarm's view needs no query. Only pending entries are kept:
 * a finished one is dropped, so a key is unique among the pending ones (every key the loop makes
 * carries an id it made once). Each entry's JSON is made once, when it is added or retried.
 */
export class PendingWork {
  private readonly outbox = new Map<number, { entry: StoredEntry; json: string }>();
  private readonly keys = new Map<string, number>();
  private readonly deadlines = new Map<string, number>();
  private nextId = 1;

  constructor(stored: StoredWork | null) {
    for (const entry of stored?.outbox ?? []) this.put(entry);
    for (const [key, at] of Object.entries(stored?.deadlines ?? {})) this.deadlines.set(key, at);
  }

  /** Returns the entry's id, or null if an effect with that key is already pending. */
  add(key: string, effect: OutboundEffect, now: number): number | null {
    if (this.keys.has(key)) return null;
    const id = this.nextId;
    this.put({ id, key, effect, attempts: 0, next_at: now });
    return id;
  }

  /** False if no such entry was pending. */
  finish(id: number): boolean {
    const item = this.outbox.get(id);
    if (!item) return false;
    this.outbox.delete(id);
    this.keys.delete(item.entry.key);
    return true;
  }

  has(id: number): boolean {
    return this.outbox.has(id);
  }

  attempts(id: number): number {
    return this.outbox.get(id)?.entry.attempts ?? 0;
  }

  /** One more attempt made; the next is due at `at`. False if no such entry was pending. */
  retry(id: number, at: number): boolean {
    const item = this.outbox.get(id);
    if (!item) return false;
    this.put({ ...item.entry, attempts: item.entry.attempts + 1, next_at: at });
    return true;
  }

  pending(): OutboxRow[] {
    return [...this.outbox.values()].map(({ entry: { key: _key, ...row } }) => row);
  }

  times(): { id: number; next_at: number }[] {
    return [...this.outbox.values()].map(({ entry }) => ({ id: entry.id, next_at: entry.next_at }));
  }

  setDeadline(key: string, at: number): void {
    this.deadlines.set(key, at);
  }

  /** False if there was no such deadline. */
  clearDeadline(key: string): boolean {
    return this.deadlines.delete(key);
  }

  /** Deadlines due at `now`, earliest first. */
  due(now: number): { key: string; at: number }[] {
    return [...this.deadlines]
      .filter(([, at]) => at <= now)
      .sort((a, b) => a[1] - b[1])
      .map(([key, at]) => ({ key, at }));
  }

  nextDeadline(): number | null {
    let next: number | null = null;
    for (const at of this.deadlines.values()) if (next === null || at < next) next = at;
    return next;
  }

  /** The `"outbox":…,"deadlines":…` members of the state row's JSON object. */
  json(): string {
    const outbox = [...this.outbox.values()].map((i) => i.json).join(",");
    return `"outbox":[${outbox}],"deadlines":${JSON.stringify(Object.fromEntries(this.deadlines))}`;
  }

  private put(entry: StoredEntry): void {
    this.outbox.set(entry.id, { entry, json: JSON.stringify(entry) });
    this.keys.set(entry.key, entry.id);
    if (entry.id >= this.nextId) this.nextId = entry.id + 1;
  }
}
