import { readFileSync, writeFileSync } from "node:fs";
import { groupMembers } from "./process-group.js";

/** A process's memory from /proc (Linux): current RSS, peak RSS (VmHWM), anonymous RSS, in MB. */
function statusField(pid: number, field: "VmRSS" | "VmHWM" | "RssAnon"): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8")
    .split("\n")
    .find((l) => l.startsWith(`${field}:`));
  if (!line) throw new Error(`no ${field} for pid ${pid}`);
  return Number(line.split(/\s+/)[1]) / 1024;
}

export const rssMb = (pid: number): number => statusField(pid, "VmRSS");
export const peakRssMb = (pid: number): number => statusField(pid, "VmHWM");
/** What a fork must copy-on-write: its price grows with it (bench/lib/spawn-floor.mjs). */
export const anonRssMb = (pid: number): number => statusField(pid, "RssAnon");

/** RSS in MB, or 0 for a process that ended meanwhile (or never started). */
export function rssMbOrZero(pid: number): number {
  try {
    return rssMb(pid);
  } catch {
    return 0;
  }
}

/**
 * RSS in MB summed over the processes whose process group is `pgid` (a local runtime: wrangler's
 * dev server, workerd, esbuild; see startChild), and that of the workerd among them.
 */
export function groupRssMb(pgid: number): { all: number; workerd: number } {
  let all = 0;
  let workerd = 0;
  for (const m of groupMembers(pgid)) {
    const rss = rssMbOrZero(m.pid);
    all += rss;
    if (m.comm === "workerd") workerd += rss;
  }
  return { all, workerd };
}

/** Resets VmHWM to the current RSS (`5` > clear_refs), so the next peak is this run's own. */
export function resetPeakRss(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, "5");
}

/** Samples RSS every `everyMs` until stopped; returns the highest seen. */
export function sampleRss(pid: number, everyMs = 10): { stop: () => number } {
  let max = rssMb(pid);
  const timer = setInterval(() => {
    try {
      max = Math.max(max, rssMb(pid));
    } catch {
      // the process ended; keep what we saw
    }
  }, everyMs);
  return {
    stop: () => {
      clearInterval(timer);
      return max;
    },
  };
}
