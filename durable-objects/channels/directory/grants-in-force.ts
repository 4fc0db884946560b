import type { ChannelGrant, ChannelPlatform } from "@edgeloop/protocol/channels";

/**
 * How long an isolate uses the chat grants it read before reading them again: the bound on how
 * late a new or revoked grant reaches chat threads in other isolates
 * (docs/architecture.md#chat-grant-bound). The isolate that writes a grant forgets at once.
 */
export const GRANT_TRUST_MS = 10_000;

/**
 * The grant that answers for a chat user in a chat: the user's own, else the group chat's; null:
 * the user reaches nothing.
 */
export function grantIn(
  grants: ReadonlyMap<string, ChannelGrant>,
  platform: ChannelPlatform,
  userId: string,
  chatId: string,
): ChannelGrant | null {
  return grants.get(grantKey(platform, `user:${userId}`)) ?? grants.get(grantKey(platform, `chat:${chatId}`)) ?? null;
}

const grantKey = (platform: string, subject: string) => `${platform}\n${subject}`;

/**
 * The isolate's copy of every chat grant, read from the one channel directory at most once per
 * GRANT_TRUST_MS, so a chat message or a button press asks no object shared by the whole
 * deployment. The copy is all of them (grants are small, one per paired user or group chat), so
 * a stranger's messages are answered from it too and never ask the directory for a grant.
 * Concurrent lookups while the copy is stale share one read.
 */
export class GrantsInForce {
  private copy: { grants: Map<string, ChannelGrant>; readAt: number } | null = null;
  private reading: Promise<Map<string, ChannelGrant>> | null = null;
  /** bumped by every `forget`: a read that was in flight across one must not be kept */
  private generation = 0;

  constructor(private readonly trustMs = GRANT_TRUST_MS) {}

  async grantFor(
    platform: ChannelPlatform,
    userId: string,
    chatId: string,
    read: () => Promise<ChannelGrant[]>,
    now: () => number = Date.now,
  ): Promise<ChannelGrant | null> {
    const fresh = this.copy && now() - this.copy.readAt < this.trustMs ? this.copy.grants : null;
    return grantIn(fresh ?? (await this.readAll(read, now)), platform, userId, chatId);
  }

  /** A grant was written or revoked through this isolate: read again from the next message on. */
  forget(): void {
    this.generation++;
    this.copy = null;
    this.reading = null;
  }

  private readAll(read: () => Promise<ChannelGrant[]>, now: () => number): Promise<Map<string, ChannelGrant>> {
    if (this.reading) return this.reading;
    const generation = this.generation;
    const readAt = now();
    const reading = read().then((list) => {
      const grants = new Map(list.map((g) => [grantKey(g.platform, g.subject), g]));
      if (generation === this.generation) this.copy = { grants, readAt };
      return grants;
    });
    this.reading = reading;
    // Cleared whether it worked or not: a failed read is retried by the next lookup.
    const done = () => {
      if (this.reading === reading) this.reading = null;
    };
    reading.then(done, done);
    return reading;
  }
}

/** This isolate's copy. */
export const grantsInForce = new GrantsInForce();
