import { DurableObject } from "cloudflare:workers";
import type { ApiKeyView, IssuedKey } from "@edgeloop/protocol/api-keys";
import type { ApprovalRule } from "@edgeloop/protocol/approval-rules";
import type { ChannelAuditEntry, ChannelGrant, ChannelPlatform, PendingPairing } from "@edgeloop/protocol/channels";
import type { PairingRequestBody, PairingView } from "@edgeloop/protocol/pairing";
import { log } from "../../runtime/log.js";
import { hubFor } from "../addresses.js";
import type { DurableObjectBindings } from "../bindings.js";
import { ApiKeyStore, type NewKey } from "./api-keys.js";
import { ApprovalRuleStore, type NewApprovalRule, type RuleQuery } from "./approval-rules.js";
import { ChatAccessStore, type NewGrant } from "./chat-access.js";
import type { DeploymentRpc } from "./deployment-rpc.js";
import { GrantKeyStore } from "./grant-keys.js";
import { type McpAuthEnv, McpOAuthStore } from "./mcp-oauth-store.js";
import type { ConnectOutcome, FinishOutcome, McpServerAuthStatus, TokenOutcome } from "./mcp-oauth-types.js";
import type { PairingSettings } from "./pairing-settings.js";
import {
  type ClaimAnswer,
  type DecideOutcome,
  type Decision,
  type OpenOutcome,
  PairingStore,
} from "./pairing-store.js";
import { RejectionCounts } from "./rejection-counts.js";

type DeploymentEnv = Pick<DurableObjectBindings, "DEVICE_HUB"> & McpAuthEnv;

/**
 * The deployment's control plane (one object, `"global"`): scoped API keys (and which carry an
 * OAuth grant: grant-keys.ts), approval rules, chat
 * grants and chat pairing codes, devices' pairing requests, refusal counts, and remote MCP servers'
 * OAuth connections (mcp-oauth-store.ts), each a store over
 * this object's SQLite. None of it is on a message's or a tool round's path: the hot reads (keys,
 * rules, grants) go through each isolate's trusted copy (in-force.ts), pairing is a few calls per
 * device, and counts are written only on refusals, after the response
 * (docs/architecture.md#the-control-plane). This class is only the RPC surface; the rules are the
 * stores'.
 */
export class DeploymentDO extends DurableObject<DeploymentEnv> implements DeploymentRpc {
  private readonly keys: ApiKeyStore;
  private readonly keyGrants: GrantKeyStore;
  private readonly rules: ApprovalRuleStore;
  private readonly chat: ChatAccessStore;
  private readonly pairing: PairingStore;
  private readonly counts: RejectionCounts;
  private readonly mcpOAuth: McpOAuthStore;

  constructor(ctx: DurableObjectState, env: DeploymentEnv) {
    super(ctx, env);
    const sql = ctx.storage.sql;
    this.keys = new ApiKeyStore(sql);
    this.keyGrants = new GrantKeyStore(sql);
    this.rules = new ApprovalRuleStore(sql);
    this.chat = new ChatAccessStore(sql);
    this.pairing = new PairingStore(sql);
    this.counts = new RejectionCounts(sql);
    this.mcpOAuth = new McpOAuthStore(sql, env);
  }

  async mcpOAuthBegin(name: string, workerOrigin: string): Promise<ConnectOutcome> {
    return this.mcpOAuth.beginConnect(name, workerOrigin);
  }
  async mcpOAuthFinish(state: string, code: string | null, error: string | null): Promise<FinishOutcome> {
    return this.mcpOAuth.finish(state, code, error);
  }
  async mcpOAuthToken(name: string, refused?: string): Promise<TokenOutcome> {
    return this.mcpOAuth.token(name, refused);
  }
  async mcpOAuthInsufficientScope(name: string, scope: string | undefined): Promise<string> {
    return this.mcpOAuth.insufficientScope(name, scope);
  }
  async mcpOAuthStatus(): Promise<McpServerAuthStatus[]> {
    return this.mcpOAuth.status();
  }

  async createKey(input: NewKey): Promise<IssuedKey> {
    return this.keys.create(input);
  }
  async listKeys(): Promise<ApiKeyView[]> {
    return this.keys.list();
  }
  async getKey(keyId: string): Promise<ApiKeyView | null> {
    return this.keys.get(keyId);
  }
  async verifyKey(hash: string): Promise<ApiKeyView | null> {
    return this.keys.verify(hash);
  }
  async revokeKey(keyId: string): Promise<{ found: boolean; revoked: boolean }> {
    return this.keys.revoke(keyId);
  }
  async linkGrantKey(keyId: string, grantId: string): Promise<void> {
    this.keyGrants.link(keyId, grantId);
  }
  async grantKeys(): Promise<{ key_id: string; grant_id: string }[]> {
    return this.keyGrants.active();
  }

  async createRule(input: NewApprovalRule): Promise<ApprovalRule> {
    return this.rules.create(input);
  }
  async listRules(q: RuleQuery = {}): Promise<ApprovalRule[]> {
    return this.rules.list(q);
  }
  async getRule(ruleId: string): Promise<ApprovalRule | null> {
    return this.rules.get(ruleId);
  }
  async revokeRule(ruleId: string): Promise<{ found: boolean; revoked: boolean }> {
    return this.rules.revoke(ruleId);
  }
  async rulesInForce(): Promise<ApprovalRule[]> {
    return this.rules.inForce();
  }

  async putGrant(grant: NewGrant): Promise<ChannelGrant> {
    return this.chat.putGrant(grant);
  }
  async deleteGrant(platform: ChannelPlatform, subject: string): Promise<boolean> {
    return this.chat.deleteGrant(platform, subject);
  }
  async grants(): Promise<ChannelGrant[]> {
    return this.chat.grants();
  }
  async chatPairingFor(
    platform: ChannelPlatform,
    user: { id: string; name: string },
    chat: { chatId: string; threadId?: string },
  ): Promise<{ code: string; notify: boolean }> {
    return this.chat.pairingFor(platform, user, chat);
  }
  async chatPairings(): Promise<PendingPairing[]> {
    return this.chat.pairings();
  }
  async approveChatPairing(
    code: string,
    grant: Pick<NewGrant, "agents" | "pools" | "scopes" | "target">,
  ): Promise<{ pairing: PendingPairing; grant: ChannelGrant } | null> {
    return this.chat.approvePairing(code, grant);
  }
  async auditChat(entry: Omit<ChannelAuditEntry, "at">): Promise<void> {
    this.chat.audit(entry);
  }
  async recentChatAudit(limit?: number): Promise<ChannelAuditEntry[]> {
    return this.chat.recentAudit(limit);
  }

  async openPairing(req: PairingRequestBody, settings: PairingSettings): Promise<OpenOutcome> {
    const outcome = await this.pairing.open(req, Date.now(), settings.codeTtlMs, settings.maxPending);
    if (outcome.ok)
      log("info", "pairing requested", { code: outcome.opened.code, agent_id: req.agent_id, kind: req.kind });
    else log("warn", "pairing refused: too many waiting", { agent_id: req.agent_id, kind: req.kind });
    return outcome;
  }
  async pendingPairings(): Promise<PairingView[]> {
    return this.pairing.pending(Date.now());
  }
  async getPairing(code: string): Promise<PairingView | null> {
    return this.pairing.get(code);
  }
  async approvePairing(code: string, decision: Decision): Promise<DecideOutcome> {
    const outcome = this.pairing.approve(code, decision, Date.now());
    if (outcome.ok)
      log("info", "pairing approved", { code, agent_id: outcome.request.agent_id, approved_by: decision.by });
    return outcome;
  }
  async denyPairing(code: string, by: string): Promise<DecideOutcome> {
    const outcome = this.pairing.deny(code, by, Date.now());
    if (outcome.ok) log("info", "pairing denied", { code, agent_id: outcome.request.agent_id, denied_by: by });
    return outcome;
  }
  /**
   * The device's token is minted by its own hub, as the admin API's `POST /v1/devices/:agent_id/tokens`
   * does, when the device collects its approval (docs/architecture.md#pairing-mints-only-for-the-claim-secret).
   */
  async claimPairing(claimSecret: string): Promise<ClaimAnswer> {
    const found = await this.pairing.claim(claimSecret, Date.now());
    if (found.status === "unknown" || found.status === "expired" || found.status === "claimed")
      return { ok: false, reason: found.status };
    if (found.status !== "approved") return { ok: true, claim: found };
    try {
      const issued = await hubFor(this.env, found.agent_id).issueToken(found.agent_id);
      this.pairing.recordToken(found.code, issued.token_id);
      log("info", "pairing collected", { code: found.code, agent_id: found.agent_id, token_id: issued.token_id });
      return {
        ok: true,
        claim: { status: "approved", agent_id: found.agent_id, token_id: issued.token_id, token: issued.token },
      };
    } catch (e) {
      this.pairing.reopenClaim(found.code);
      throw e;
    }
  }

  async countRejection(name: string): Promise<void> {
    this.counts.increment(name);
  }
  async rejections(): Promise<Record<string, number>> {
    return this.counts.read();
  }
}
