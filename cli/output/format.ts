/** Small text formatters shared by the commands. */

export function ago(ms: number | null | undefined, now = Date.now()): string {
  if (!ms) return "never";
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.round(s / 60)}m ago`;
  if (s < 86_400) return `${Math.round(s / 3600)}h ago`;
  return `${Math.round(s / 86_400)}d ago`;
}

export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return "-";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)}m${String(Math.round((ms % 60_000) / 1000)).padStart(2, "0")}s`;
}

/** One line, for table cells and event lines: newlines shown as ⏎, long text cut. */
export function oneLine(value: unknown, max = 200): string {
  const s = typeof value === "string" ? value : (JSON.stringify(value) ?? String(value));
  const flat = s.trim().replace(/\s*\n\s*/g, " ⏎ ");
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export function percent(part: number, total: number): string {
  return total === 0 ? "-" : `${Math.round((part / total) * 1000) / 10}%`;
}

export function localTime(iso: string | number): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? String(iso) : d.toISOString().replace("T", " ").slice(0, 19);
}

/** `--since`: an ISO date, unix ms, or a relative time like `30s`, `15m`, `2h`, `7d`. */
export function parseSince(value: string, now = Date.now()): number | null {
  const rel = value.match(/^(\d+)\s*(s|m|h|d)$/);
  if (rel)
    return now - Number(rel[1]) * { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[rel[2] as "s" | "m" | "h" | "d"];
  if (/^\d+$/.test(value)) return Number(value);
  const t = Date.parse(value);
  return Number.isNaN(t) ? null : t;
}
