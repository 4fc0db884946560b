/**
 * What an idempotency key's record says about a new request with it (IdempotencyDO, docs/api.md): pure, so
 * the rules are tested and mutated in Node; the object only reads and writes the one row.
 */

/** How long a key is remembered: a repeat within this window gets the first response back. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * An `in_progress` key older than this is taken to be abandoned (the worker that held it died)
 * and may be claimed again. Claiming it while its first request is in fact still going (a slow
 * one, or one waiting with `?wait`) is harmless: a keyed message's ids derive from its key and
 * the conversation takes a message id once, so both requests post the same message and store the
 * same answer. So this only needs to outlast an ordinary request, not the longest wait: a client
 * whose request died with the runtime is not kept waiting for minutes.
 */
export const IN_PROGRESS_STALE_MS = 15 * 1000;

export type StoredResponse = { status: number; body: string; content_type: string };

export type BeginResult =
  | { state: "new" }
  | { state: "in_progress"; retry_after_s: number }
  | { state: "done"; response: StoredResponse }
  | { state: "mismatch" };

/** The key's one row, as stored. */
export type IdempotencyEntry = {
  state: string;
  fingerprint: string;
  status: number | null;
  body: string | null;
  content_type: string | null;
  started_at: number;
};

/**
 * The answer to a request whose body hashes to `fingerprint`; `new` means the caller claims the key (an
 * expired or abandoned record is claimed over).
 */
export function beginWith(row: IdempotencyEntry | null, fingerprint: string, now: number): BeginResult {
  if (!row || now - row.started_at >= IDEMPOTENCY_TTL_MS) return { state: "new" };
  if (row.fingerprint !== fingerprint) return { state: "mismatch" };
  if (row.state === "done")
    return { state: "done", response: { status: row.status!, body: row.body!, content_type: row.content_type! } };
  if (now - row.started_at < IN_PROGRESS_STALE_MS) return { state: "in_progress", retry_after_s: 1 };
  return { state: "new" };
}

/** When the record may be forgotten, or null when there is none (the alarm then clears the object). */
export function forgetAt(row: IdempotencyEntry | null, now: number): number | null {
  return row && now - row.started_at < IDEMPOTENCY_TTL_MS ? row.started_at + IDEMPOTENCY_TTL_MS : null;
}
