import { ANY_AGENT, type KeyScope } from "@edgeloop/protocol/api-keys";

/**
 * Who a request speaks for, and the rules of what it may see and do. Pure, shared by the worker's
 * routes (authentication makes the principal), the conversation (it records its owner and checks
 * every later access and sub-task), the scheduler and the approval rules; unit-tested in Node.
 *
 * - Unscoped principals (the admin token and dashboard session, the API token, webhook senders
 *   not bound by WEBHOOK_SCOPES) see and drive every conversation and device.
 * - A scoped principal (a key from `/v1/keys`, a webhook sender bound by WEBHOOK_SCOPES) messages
 *   only its devices and sees only the conversations it started; any other answers as if it did
 *   not exist.
 */

/** Devices a principal may message: every one, or these. */
export type Reach = typeof ANY_AGENT | readonly string[];

export type Principal = {
  /**
   * `admin`, `api`, `key:<key_id>` or `webhook:<sender>`: the sender its rate limits and
   * idempotency keys are counted under, and the owner recorded on what it creates.
   */
  id: string;
  scoped: boolean;
  /** the admin token or the dashboard session */
  admin: boolean;
  reach: Reach;
  /** pools it may name in a message */
  pools: typeof ANY_AGENT | readonly string[];
  scopes: "all" | readonly KeyScope[];
};

/** What a conversation (schedule, rule, MCP session) records of who made it: enough to check later access. */
export type Owner = { id: string; scoped: boolean; reach: Reach };

export const ownerOf = (p: Pick<Principal, "id" | "scoped" | "reach">): Owner => ({
  id: p.id,
  scoped: p.scoped,
  reach: p.reach,
});

export const unscoped = (id: string, admin = false): Principal => ({
  id,
  scoped: false,
  admin,
  reach: ANY_AGENT,
  pools: ANY_AGENT,
  scopes: "all",
});

/**
 * A scoped principal's devices: its agents (or every one, for `"*"`) and the members of its pools
 * as the deployment's POOLS define them now.
 */
export function scopedPrincipal(
  id: string,
  grant: { agents: readonly string[]; pools: readonly string[]; scopes: "all" | readonly KeyScope[] },
  pools: ReadonlyMap<string, readonly string[]>,
): Principal {
  const reach: Reach = grant.agents.includes(ANY_AGENT)
    ? ANY_AGENT
    : [...new Set([...grant.agents, ...grant.pools.flatMap((p) => pools.get(p) ?? [])])].sort();
  return { id, scoped: true, admin: false, reach, pools: [...grant.pools], scopes: grant.scopes };
}

export const mayReach = (reach: Reach, agentId: string): boolean => reach === ANY_AGENT || reach.includes(agentId);

/** Whether the principal may see (and act on) something `ownerId` made; null: made before owners were recorded. */
export const canSee = (p: Pick<Principal, "id" | "scoped">, ownerId: string | null): boolean =>
  !p.scoped || ownerId === p.id;

export const hasScope = (p: Pick<Principal, "scopes">, scope: KeyScope): boolean =>
  p.scopes === "all" || p.scopes.includes(scope);

/** Why the principal may not message this target (an agent or a pool), or null when it may. */
export function targetRefusal(
  p: Pick<Principal, "reach" | "pools">,
  target: { agent_id?: string | undefined; agent_ids?: readonly string[] | undefined; pool?: string | undefined },
): { field: "agent_id" | "agent_ids" | "pool"; detail: string } | null {
  if (target.pool !== undefined) {
    if (p.pools === ANY_AGENT || p.pools.includes(target.pool)) return null;
    return { field: "pool", detail: `pool '${target.pool}' is not one this credential may use` };
  }
  if (target.agent_id !== undefined && !mayReach(p.reach, target.agent_id))
    return { field: "agent_id", detail: `agent '${target.agent_id}' is not one this credential may message` };
  // A fleet: every device must be one the credential may message (docs/fleet.md).
  const outside = target.agent_ids?.find((id) => !mayReach(p.reach, id));
  if (outside !== undefined)
    return { field: "agent_ids", detail: `agent '${outside}' is not one this credential may message` };
  return null;
}
