import { MAX_FLEET_DEVICES, type MessageRequest } from "@edgeloop/protocol";
import { hubFor, poolRegistryFor } from "../addresses.js";
import type { WorkerConfig } from "./front-door-config.js";
import type { FrontDoorEnv } from "./front-door-env.js";

export type Target =
  /** `fleet`: every device of a fleet message, `agent_id` (its home device) first */
  | { ok: true; agent_id: string; fleet?: string[] }
  | { ok: false; status: 400 | 404 | 503; title: string; detail: string; field?: string };

/**
 * The device a message goes to. An `agent_id` must name a known device (unknown-device rule in
 * docs/architecture.md): a DEVICE_TOKENS entry (config, no call), else its own hub (one object per
 * device, no registry call on this path). A `pool` asks that pool's own registry, which keeps the
 * conversation on its device while that is online (no object shared by all pools on this path).
 * A fleet (docs/fleet.md) is every one of its devices, the first being the conversation's home:
 * `agent_ids`, each known as above, or a pool in fleet mode, its members as POOLS lists them (one
 * that never connected has no tools to offer yet).
 */
export async function routeMessage(
  env: FrontDoorEnv,
  cfg: WorkerConfig,
  msg: MessageRequest,
  conversationId: string,
): Promise<Target> {
  if (msg.agent_id) {
    if (await isKnown(env, cfg, msg.agent_id)) return { ok: true, agent_id: msg.agent_id };
    return unknownDevice(msg.agent_id, "agent_id");
  }
  if (msg.agent_ids) {
    // A fleet: each device is asked of its own hub, never of the registry (docs/fleet.md).
    const known = await Promise.all(msg.agent_ids.map((id) => isKnown(env, cfg, id)));
    const unknown = msg.agent_ids.find((_, i) => !known[i]);
    if (unknown !== undefined) return unknownDevice(unknown, "agent_ids");
    return { ok: true, agent_id: msg.agent_ids[0]!, fleet: [...msg.agent_ids] };
  }
  const pool = msg.pool!;
  const members = cfg.POOLS.get(pool);
  if (!members) {
    const known = [...cfg.POOLS.keys()];
    return {
      ok: false,
      status: 400,
      title: "Unknown pool",
      detail: `no pool '${pool}' (configured: ${known.join(", ") || "none"})`,
      field: "pool",
    };
  }
  // A pool in fleet mode uses all its members; offline ones are skipped call by call.
  if (msg.mode === "fleet") {
    if (members.length <= MAX_FLEET_DEVICES) return { ok: true, agent_id: members[0]!, fleet: [...members] };
    return {
      ok: false,
      status: 400,
      title: "Pool too large for a fleet",
      detail: `pool '${pool}' has ${members.length} devices; a fleet message takes at most ${MAX_FLEET_DEVICES}`,
      field: "mode",
    };
  }
  const routed = await poolRegistryFor(env, pool).route({
    conversation_id: conversationId,
    pool,
    members,
    tools: msg.tools ?? [],
  });
  if (!routed.ok) return { ok: false, status: 503, title: "No device available", detail: routed.detail };
  return { ok: true, agent_id: routed.agent_id };
}

const isKnown = async (env: FrontDoorEnv, cfg: WorkerConfig, agentId: string) =>
  cfg.DEVICE_TOKENS.has(agentId) || (await hubFor(env, agentId).isKnown());

function unknownDevice(agentId: string, field: "agent_id" | "agent_ids"): Target {
  return {
    ok: false,
    status: 404,
    title: "Unknown device",
    detail:
      `no device '${agentId}': it has no token (DEVICE_TOKENS or issued) and never connected; ` +
      "check the id (GET /v1/devices lists known devices) or issue it a token",
    field,
  };
}
