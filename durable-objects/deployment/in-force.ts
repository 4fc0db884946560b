import type { ApiKeyView } from "@edgeloop/protocol/api-keys";
import type { ApprovalRule, ApprovalRuleMatch } from "@edgeloop/protocol/approval-rules";
import type { ChannelGrant, ChannelPlatform } from "@edgeloop/protocol/channels";
import { deploymentOf } from "../addresses.js";
import type { DurableObjectBindings } from "../bindings.js";
import { grantIn, grantsByKey } from "./chat-access-rules.js";
import { rulesFor } from "./rules-for.js";
import { TrustedCopy } from "./trusted-copy.js";

type Env = Pick<DurableObjectBindings, "DEPLOYMENT">;

/**
 * This isolate's trusted copies of what the deployment object answers on a hot path: a key's
 * check, the approval rules in force, the chat grants. Each is read at most once per bound per
 * isolate, and a change made through this isolate is forgotten here at once
 * (docs/architecture.md#trusted-copies).
 */
const verifiedKeys = new TrustedCopy<ApiKeyView | null>({ keep: (key) => key !== null });
const rulesInForce = new TrustedCopy<ApprovalRule[]>();
const grantsInForce = new TrustedCopy<Map<string, ChannelGrant>>();

/** The copies hold the whole list under one name: rules and grants are few and small. */
const ALL = "all";

/** The active key with this SHA-256, or null. Only valid keys are kept, so a new key works at once. */
export function verifiedKey(env: Env, hash: string, now?: () => number): Promise<ApiKeyView | null> {
  return verifiedKeys.get(hash, () => deploymentOf(env).verifyKey(hash), now);
}

/** A key was revoked through this isolate: refused here from the next request on. */
export function forgetKey(keyId: string): void {
  verifiedKeys.forget((key) => key?.key_id === keyId);
}

/** The rules in force for one device in a conversation of `owner` (rules-for.ts). */
export async function rulesInForceFor(
  env: Env,
  agentId: string,
  owner: string | null,
  now: () => number = Date.now,
): Promise<ApprovalRuleMatch[]> {
  const rules = await rulesInForce.get(ALL, () => deploymentOf(env).rulesInForce(), now);
  return rulesFor(rules, agentId, owner, now());
}

/** A rule was made or revoked through this isolate: read again from the next message on. */
export function forgetRules(): void {
  rulesInForce.forget();
}

/** The grant that answers for a chat user in a chat (chat-access-rules.ts), or null. */
export async function grantInForce(
  env: Env,
  platform: ChannelPlatform,
  userId: string,
  chatId: string,
  now?: () => number,
): Promise<ChannelGrant | null> {
  const grants = await grantsInForce.get(ALL, async () => grantsByKey(await deploymentOf(env).grants()), now);
  return grantIn(grants, platform, userId, chatId);
}

/** A grant was made or revoked through this isolate: read again from the next message on. */
export function forgetGrants(): void {
  grantsInForce.forget();
}
