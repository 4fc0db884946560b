import { readdirSync, readFileSync } from "node:fs";

/**
 * CPU time (user + system, ms) used so far by every process of a process group, by command name
 * (Linux /proc). The local runtime runs as one group (the dev server's Node process, workerd and
 * esbuild; see startChild), so the difference of two readings is what the runtime spent in between.
 */
const TICK_MS = 10; // USER_HZ is 100 on Linux

export function groupCpuMs(pgid: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    } catch {
      continue;
    }
    const close = stat.lastIndexOf(")");
    const comm = stat.slice(stat.indexOf("(") + 1, close);
    const fields = stat.slice(close + 2).split(" ");
    // fields[0] is field 3 (state): pgrp is field 5, utime 14, stime 15
    if (Number(fields[2]) !== pgid) continue;
    out[comm] = (out[comm] ?? 0) + (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  }
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
