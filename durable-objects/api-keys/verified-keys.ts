import type { ApiKeyView } from "@edgeloop/protocol/api-keys";

/**
 * How long an isolate trusts a key it has checked before asking the keys' object again: the bound
 * on how late a revocation reaches the other isolates (docs/architecture.md#key-revocation-bound).
 * The isolate that revokes a key forgets it at once.
 */
export const KEY_TRUST_MS = 10_000;

/** Enough for every key a deployment issues; past it the oldest entry goes. */
const MAX_ENTRIES = 10_000;

/**
 * The worker isolate's cache of keys the keys' object said are valid, by SHA-256: a request made
 * with a key asks the one per-deployment keys object at most once per KEY_TRUST_MS per isolate,
 * not once per request. Only valid keys are kept, so a new key works at once and an unknown
 * token always asks.
 */
export class VerifiedKeys {
  private readonly entries = new Map<string, { key: ApiKeyView; checkedAt: number }>();
  /** bumped by every `forget`: a check that was in flight across one must not be kept */
  private generation = 0;

  constructor(private readonly trustMs = KEY_TRUST_MS) {}

  async verify(
    hash: string,
    ask: (hash: string) => Promise<ApiKeyView | null>,
    now: () => number = Date.now,
  ): Promise<ApiKeyView | null> {
    const hit = this.entries.get(hash);
    if (hit && now() - hit.checkedAt < this.trustMs) return hit.key;
    this.entries.delete(hash);
    const generation = this.generation;
    const checkedAt = now();
    const key = await ask(hash);
    if (key && generation === this.generation) {
      this.entries.set(hash, { key, checkedAt });
      if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    }
    return key;
  }

  /** A key was revoked through this isolate: refused here from the next request on. */
  forget(keyId: string): void {
    this.generation++;
    for (const [hash, e] of this.entries) if (e.key.key_id === keyId) this.entries.delete(hash);
  }
}

/** This isolate's cache. */
export const verifiedKeys = new VerifiedKeys();
