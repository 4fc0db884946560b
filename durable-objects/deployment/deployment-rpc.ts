import type { ApiKeyView, IssuedKey } from "@edgeloop/protocol/api-keys";
import type { ApprovalRule } from "@edgeloop/protocol/approval-rules";
import type { ChannelAuditEntry, ChannelGrant, ChannelPlatform, PendingPairing } from "@edgeloop/protocol/channels";
import type { PairingRequestBody, PairingView } from "@edgeloop/protocol/pairing";
import type { NewKey } from "./api-keys.js";
import type { NewApprovalRule, RuleQuery } from "./approval-rules.js";
import type { NewGrant } from "./chat-access.js";
import type { McpOAuthRpc } from "./mcp-oauth-types.js";
import type { PairingSettings } from "./pairing-settings.js";
import type { ClaimAnswer, DecideOutcome, Decision, OpenOutcome } from "./pairing-store.js";

/**
 * What the deployment object offers its callers: the deployment's control plane, one object for
 * the whole deployment (docs/architecture.md#the-control-plane). Declared apart from the class, as
 * the hub's and the conversation's are, so addresses.ts can type its stub without importing the
 * object it calls. Each group is one store in the object's SQLite.
 */
export interface DeploymentRpc extends McpOAuthRpc {
  // Scoped API keys (`/v1/keys`; api-keys.ts).
  createKey(input: NewKey): Promise<IssuedKey>;
  /** Newest first, revoked ones included (with `revoked_at`). */
  listKeys(): Promise<ApiKeyView[]>;
  getKey(keyId: string): Promise<ApiKeyView | null>;
  /** The active key whose SHA-256 this is, or null (unknown or revoked). Marks it used. */
  verifyKey(hash: string): Promise<ApiKeyView | null>;
  revokeKey(keyId: string): Promise<{ found: boolean; revoked: boolean }>;
  /** The key carries this OAuth grant (worker/oauth/grant-links.ts). */
  linkGrantKey(keyId: string, grantId: string): Promise<void>;
  /** The active keys that carry an OAuth grant, with the grant's id. */
  grantKeys(): Promise<{ key_id: string; grant_id: string }[]>;

  // Remembered approval decisions (`/v1/approval-rules`; approval-rules.ts).
  createRule(input: NewApprovalRule): Promise<ApprovalRule>;
  listRules(q?: RuleQuery): Promise<ApprovalRule[]>;
  getRule(ruleId: string): Promise<ApprovalRule | null>;
  revokeRule(ruleId: string): Promise<{ found: boolean; revoked: boolean }>;
  /** Every rule in force now, for the isolates' trusted copies (in-force.ts). */
  rulesInForce(): Promise<ApprovalRule[]>;

  // Chat access: grants, chat users' pairing codes, refusals (`/v1/channels`; chat-access.ts).
  putGrant(grant: NewGrant): Promise<ChannelGrant>;
  deleteGrant(platform: ChannelPlatform, subject: string): Promise<boolean>;
  grants(): Promise<ChannelGrant[]>;
  /** The code an unknown chat user is given, and whether to tell them again. */
  chatPairingFor(
    platform: ChannelPlatform,
    user: { id: string; name: string },
    chat: { chatId: string; threadId?: string },
  ): Promise<{ code: string; notify: boolean }>;
  chatPairings(): Promise<PendingPairing[]>;
  /** The user given `code` gets the grant; null: no such code waiting. */
  approveChatPairing(
    code: string,
    grant: Pick<NewGrant, "agents" | "pools" | "scopes" | "target">,
  ): Promise<{ pairing: PendingPairing; grant: ChannelGrant } | null>;
  auditChat(entry: Omit<ChannelAuditEntry, "at">): Promise<void>;
  recentChatAudit(limit?: number): Promise<ChannelAuditEntry[]>;

  // Devices' pairing requests (`/v1/pairing`, OpenClaw onboarding, `/approve` in a chat; pairing-store.ts).
  /** `settings` as the worker parsed them (pairing-settings.ts), so every request is judged by the deployment's vars. */
  openPairing(req: PairingRequestBody, settings: PairingSettings): Promise<OpenOutcome>;
  pendingPairings(): Promise<PairingView[]>;
  getPairing(code: string): Promise<PairingView | null>;
  /** `decision.by` is recorded as who approved: "admin", "admin (dashboard)", a channel's approver… */
  approvePairing(code: string, decision: Decision): Promise<DecideOutcome>;
  denyPairing(code: string, by: string): Promise<DecideOutcome>;
  /** The device collects with its claim secret: pending, denied, or its own token (once). */
  claimPairing(claimSecret: string): Promise<ClaimAnswer>;

  // Refusal counts (`GET /v1/limits`; rejection-counts.ts).
  countRejection(name: string): Promise<void>;
  rejections(): Promise<Record<string, number>>;
}
