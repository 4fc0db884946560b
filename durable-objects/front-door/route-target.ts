import type { MessageRequest } from "@edgeloop/protocol";
import { hubFor, poolRegistryFor } from "../addresses.js";
import type { WorkerConfig } from "./front-door-config.js";
import type { FrontDoorEnv } from "./front-door-env.js";

export type Target =
  | { ok: true; agent_id: string }
  | { ok: false; status: 400 | 404 | 503; title: string; detail: string; field?: string };

/**
 * The device a message goes to. An `agent_id` must name a known device (unknown-device rule in
 * docs/architecture.md): a DEVICE_TOKENS entry (config, no call), else its own hub (one object per
 * device, no registry call on this path). A `pool` asks that pool's own registry, which keeps the
 * conversation on its device while that is online (no object shared by all pools on this path).
 */
export async function routeMessage(
  env: FrontDoorEnv,
  cfg: WorkerConfig,
  msg: MessageRequest,
  conversationId: string,
): Promise<Target> {
  if (msg.agent_id) {
    if (cfg.DEVICE_TOKENS.has(msg.agent_id) || (await hubFor(env, msg.agent_id).isKnown()))
      return { ok: true, agent_id: msg.agent_id };
    return {
      ok: false,
      status: 404,
      title: "Unknown device",
      detail:
        `no device '${msg.agent_id}': it has no token (DEVICE_TOKENS or issued) and never connected; ` +
        "check the id (GET /v1/devices lists known devices) or issue it a token",
      field: "agent_id",
    };
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
  const routed = await poolRegistryFor(env, pool).route({
    conversation_id: conversationId,
    pool,
    members,
    tools: msg.tools ?? [],
  });
  if (!routed.ok) return { ok: false, status: 503, title: "No device available", detail: routed.detail };
  return { ok: true, agent_id: routed.agent_id };
}
