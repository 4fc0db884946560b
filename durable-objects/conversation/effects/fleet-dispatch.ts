import type { ToolOutcome } from "@edgeloop/protocol";
import { hubFor } from "../../addresses.js";
import type { DurableObjectBindings } from "../../bindings.js";
import { type Candidate, leastBusy } from "../../registry/least-busy.js";
import type { LoopState } from "../core/index.js";
import type { ConversationStore } from "../storage/conversation-store.js";

/** Where one dispatch goes: a device and the name it knows the tool by, or an outcome without sending. */
export type DispatchTarget = { ok: true; agent_id: string; tool: string } | { ok: false; outcome: ToolOutcome };

/** The stored pick of a routed call, so a re-driven dispatch goes to the same device's hub. */
const pickKey = (requestId: string) => `fleet_pick:${requestId}`;

/**
 * Routes a round's dispatches (docs/fleet.md#routing). A call of a one-device conversation goes to
 * its device. A fleet call goes to the device its name fixes, or to the online, least busy device
 * that has the tool (leastBusy, counting this round's own picks), asked of those devices' hubs
 * once per round. The pick is written before anything is sent (output gates hold the RPC until it
 * is durable), so a re-driven dispatch finds it and the hub's ledger dedupes by request id as
 * for any call: exactly once per device. An offline device, or no online device with the tool,
 * ends the call `not_sent` at once, saying so and naming the other devices that have the tool.
 */
export async function routeDispatches(
  env: Pick<DurableObjectBindings, "DEVICE_HUB">,
  store: ConversationStore,
  state: LoopState,
  calls: readonly { request_id: string; tool: string }[],
): Promise<DispatchTarget[]> {
  const seen = new Map<string, Promise<Candidate & { last_seen: number | null }>>();
  const status = (agentId: string) => {
    let s = seen.get(agentId);
    if (!s) {
      s = hubFor(env, agentId)
        .getDevice(agentId)
        .then((d) => ({
          agent_id: agentId,
          online: d.online,
          in_flight: (d.commands.queued ?? 0) + (d.commands.sent ?? 0) + (d.commands.accepted ?? 0),
          last_seen: d.last_alive,
        }));
      seen.set(agentId, s);
    }
    return s;
  };
  const targets: DispatchTarget[] = [];
  for (const call of calls) {
    const fleet = state.tools.find((t) => t.name === call.tool)?.fleet;
    if (!fleet) {
      targets.push({ ok: true, agent_id: state.agent_id, tool: call.tool });
      continue;
    }
    const picked = store.getValue<string>(pickKey(call.request_id));
    if (picked !== null) {
      targets.push({ ok: true, agent_id: picked, tool: fleet.tool });
      continue;
    }
    const candidates = await Promise.all(fleet.agents.map(status));
    const pick = leastBusy(call.request_id, candidates);
    if (pick === null) {
      targets.push({ ok: false, outcome: offlineOutcome(state, call.tool, fleet.tool, candidates) });
      continue;
    }
    // Kept for a named device's call too: a cancel finds the hub from it after the round is gone.
    store.putValue(pickKey(call.request_id), pick);
    // The next call of the round sees this one in flight.
    candidates.find((c) => c.agent_id === pick)!.in_flight++;
    targets.push({ ok: true, agent_id: pick, tool: fleet.tool });
  }
  return targets;
}

/** The device a call was sent to (its hub holds the call's ledger row): for a cancel. */
export function deviceOfCall(store: ConversationStore, state: LoopState, requestId: string): string {
  return store.getValue<string>(pickKey(requestId)) ?? state.agent_id;
}

/** A blocked call's audit row goes to the device its name fixes, else to the first that has the tool. */
export function deviceOfTool(state: LoopState, name: string): { agent_id: string; tool: string } {
  const fleet = state.tools.find((t) => t.name === name)?.fleet;
  return fleet ? { agent_id: fleet.agents[0]!, tool: fleet.tool } : { agent_id: state.agent_id, tool: name };
}

function offlineOutcome(
  state: LoopState,
  name: string,
  tool: string,
  candidates: readonly (Candidate & { last_seen: number | null })[],
): ToolOutcome {
  const seen = (c: { last_seen: number | null }) =>
    c.last_seen === null ? "never seen" : `last seen ${new Date(c.last_seen).toISOString()}`;
  const which =
    candidates.length === 1
      ? `device '${candidates[0]!.agent_id}' is offline (${seen(candidates[0]!)})`
      : `none of the devices that have it is online (${candidates.map((c) => `${c.agent_id}: ${seen(c)}`).join("; ")})`;
  const down = new Set(candidates.map((c) => c.agent_id));
  const others = state.tools
    .filter((t) => t.fleet?.tool === tool && t.fleet.agents.length === 1 && !down.has(t.fleet.agents[0]!))
    .map((t) => t.name);
  const alternatives = others.length > 0 ? `; the same tool on another device: ${others.join(", ")}` : "";
  return {
    status: "error",
    tool: name,
    error: `the command was not sent: ${which}${alternatives}`,
    error_type: "not_sent",
  };
}
