import { readFileSync, writeFileSync } from "node:fs";

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
