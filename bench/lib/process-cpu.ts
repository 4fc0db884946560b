import { groupMembers } from "./process-group.js";

/**
 * CPU time (user + system, ms) used so far by every process of a process group, by command name
 * (Linux /proc). The local runtime runs as one group (the dev server's Node process, workerd and
 * esbuild; see startChild), so the difference of two readings is what the runtime spent in between.
 */
export function groupCpuMs(pgid: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of groupMembers(pgid)) out[m.comm] = (out[m.comm] ?? 0) + m.userMs + m.systemMs;
  return out;
}

/** What each command of the group used between two readings, and the total. */
export function cpuDelta(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = { total: 0 };
  for (const [k, v] of Object.entries(after)) {
    out[k] = v - (before[k] ?? 0);
    out.total! += out[k]!;
  }
  return out;
}
