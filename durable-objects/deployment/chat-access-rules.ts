import type { KeyScope } from "@edgeloop/protocol/api-keys";
import type { ChannelGrant, ChannelPlatform } from "@edgeloop/protocol/channels";

/** What a chat user may reach when nothing narrower is asked for: messages, and their own conversations. */
export const DEFAULT_CHAT_SCOPES: KeyScope[] = ["messages", "conversations:read", "conversations:write"];

/** The same pairing code is sent again to a chat user who keeps writing, at most this often. */
export const RESEND_CODE_MS = 10 * 60_000;

/**
 * The grant that answers for a chat user in a chat: the user's own, else the group chat's; null:
 * the user reaches nothing. `grants` as `grantsByKey` makes them.
 */
export function grantIn(
  grants: ReadonlyMap<string, ChannelGrant>,
  platform: ChannelPlatform,
  userId: string,
  chatId: string,
): ChannelGrant | null {
  return grants.get(grantKey(platform, `user:${userId}`)) ?? grants.get(grantKey(platform, `chat:${chatId}`)) ?? null;
}

/** Every grant by platform and subject, as `grantIn` looks them up. */
export const grantsByKey = (grants: readonly ChannelGrant[]): Map<string, ChannelGrant> =>
  new Map(grants.map((g) => [grantKey(g.platform, g.subject), g]));

const grantKey = (platform: string, subject: string) => `${platform}\n${subject}`;
