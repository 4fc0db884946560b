import { readdirSync, readFileSync } from "node:fs";

/** A process of a group as /proc/<pid>/stat gives it (Linux). */
export type GroupMember = { pid: number; comm: string; userMs: number; systemMs: number };

const TICK_MS = 10; // USER_HZ is 100 on Linux

/**
 * The processes whose process group is `pgid`: a local runtime is one group (wrangler's dev server,
 * workerd, esbuild; see startChild), so its CPU and memory are read over its members.
 */
export function groupMembers(pgid: number): GroupMember[] {
  const members: GroupMember[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, "utf8");
    } catch {
      continue; // gone meanwhile
    }
    // "pid (comm) state ppid pgrp …": the command name may hold spaces and parentheses.
    const close = stat.lastIndexOf(")");
    const fields = stat.slice(close + 2).split(" ");
    // fields[0] is field 3 (state): pgrp is field 5, utime 14, stime 15
    if (Number(fields[2]) !== pgid) continue;
    members.push({
      pid: Number(name),
      comm: stat.slice(stat.indexOf("(") + 1, close),
      userMs: Number(fields[11]) * TICK_MS,
      systemMs: Number(fields[12]) * TICK_MS,
    });
  }
  return members;
}
