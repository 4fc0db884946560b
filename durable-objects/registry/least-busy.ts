import { hash53 } from "./rendezvous.js";

/** A device that could take a call, as its hub sees it now. */
export type Candidate = { agent_id: string; online: boolean; in_flight: number };

/**
 * The device a fleet call routed by edgeloop goes to (docs/fleet.md#routing): an online one with
 * the fewest calls in flight; among equals, the one `key` (the call's request id) hashes to, so
 * a round's parallel calls spread and every caller agrees. Null when none is online. Pure.
 */
export function leastBusy(key: string, candidates: readonly Candidate[]): string | null {
  let best: Candidate | null = null;
  let bestScore = -1;
  for (const c of candidates) {
    if (!c.online) continue;
    const score = hash53(`${key}\u0000${c.agent_id}`);
    if (best === null || c.in_flight < best.in_flight || (c.in_flight === best.in_flight && score > bestScore)) {
      best = c;
      bestScore = score;
    }
  }
  return best?.agent_id ?? null;
}
