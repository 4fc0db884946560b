/**
 * How long an isolate uses what it read from the deployment object before reading it again: the
 * bound on how late a change made through another isolate reaches this one
 * (docs/architecture.md#trusted-copies).
 */
export const TRUST_MS = 10_000;

/** Whether a copy read at `readAt` may still be used at `now` (a copy as old as the bound is not). */
export const stillTrusted = (readAt: number, now: number, boundMs = TRUST_MS): boolean => now - readAt < boundMs;

export type TrustedCopyOptions<V> = {
  /** the bound; TRUST_MS unless a test says otherwise */
  boundMs?: number;
  /** past this many copies the oldest goes */
  maxEntries?: number;
  /** whether an answer may be kept at all (a key's copy keeps only valid keys, so a new key works at once) */
  keep?: (value: V) => boolean;
};

/**
 * An isolate's copies of answers read from one object, by key, each trusted until it is as old as
 * the bound and read again after. The helper does no I/O itself: the caller hands it the read.
 * Concurrent lookups of a key whose copy is stale share one read, and a failed read keeps nothing.
 * The age of a copy counts from before its read began, so a change written while it was being read
 * is still seen within the bound. `forget` is for changes made through this isolate: they apply
 * here from the next lookup, and a read that was in flight across it is answered but not kept.
 */
export class TrustedCopy<V> {
  private readonly copies = new Map<string, { value: V; readAt: number }>();
  private readonly reading = new Map<string, Promise<V>>();
  /** bumped by every `forget`: a read that was in flight across one must not be kept */
  private generation = 0;
  private readonly boundMs: number;
  private readonly maxEntries: number;

  constructor(private readonly options: TrustedCopyOptions<V> = {}) {
    this.boundMs = options.boundMs ?? TRUST_MS;
    this.maxEntries = options.maxEntries ?? 10_000;
  }

  async get(key: string, read: () => Promise<V>, now: () => number = Date.now): Promise<V> {
    const copy = this.copies.get(key);
    if (copy && stillTrusted(copy.readAt, now(), this.boundMs)) return copy.value;
    this.copies.delete(key);
    return this.reading.get(key) ?? this.readOnce(key, read, now);
  }

  /** Drop every copy (no `which`), or those `which` picks; either way no read in flight is kept. */
  forget(which?: (value: V, key: string) => boolean): void {
    this.generation++;
    this.reading.clear();
    if (!which) this.copies.clear();
    else for (const [key, copy] of this.copies) if (which(copy.value, key)) this.copies.delete(key);
  }

  private readOnce(key: string, read: () => Promise<V>, now: () => number): Promise<V> {
    const generation = this.generation;
    const readAt = now();
    const reading = read().then((value) => {
      if (generation === this.generation && (this.options.keep?.(value) ?? true)) {
        this.copies.set(key, { value, readAt });
        if (this.copies.size > this.maxEntries) this.copies.delete(this.copies.keys().next().value!);
      }
      return value;
    });
    this.reading.set(key, reading);
    // Cleared whether it worked or not: a failed read is retried by the next lookup.
    const done = () => {
      if (this.reading.get(key) === reading) this.reading.delete(key);
    };
    reading.then(done, done);
    return reading;
  }
}
