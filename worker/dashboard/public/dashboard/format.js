// @ts-check
/** How values read on the page: pure text, no DOM. */

/** @param {number | null | undefined} ms a time in unix milliseconds */
export function ago(ms) {
  if (!ms) return "never";
  const s = Math.max(0, Math.round((Date.now() - ms) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86400) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86400)} d ago`;
}

/** @param {number} v a duration in milliseconds */
export function ms(v) {
  if (v >= 10000) return `${Math.round(v / 1000)} s`;
  return v >= 1000 ? `${(v / 1000).toFixed(1)} s` : `${Math.round(v)} ms`;
}

/** @param {unknown} v */
export function json(v) {
  if (typeof v === "string") return v;
  try {
    return JSON.stringify(v, null, 2);
  } catch {
    return String(v);
  }
}

/**
 * A tool outcome as a person reads it: the output, or the error and its kind.
 * @param {any} r
 */
export function resultText(r) {
  if (!r || typeof r !== "object") return json(r);
  if (r.status === "error")
    return (r.error_type ? `${r.error_type}: ` : "") + (r.error || "") + (r.stderr ? `\n${r.stderr}` : "");
  if (r.status === "blocked") return `blocked: ${r.reason || ""}`;
  if (typeof r.result === "string") return r.result + (r.stderr ? `\n[stderr] ${r.stderr}` : "");
  return json(r);
}

/**
 * @param {unknown} value
 * @param {number} n the most characters shown
 */
export function clip(value, n) {
  const s = String(value === null || value === undefined ? "" : value);
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}

/**
 * Who answered an approval question, as a card says it.
 * @param {boolean} approved
 * @param {string} decidedBy "person", "timeout" or "rule:<id>"
 * @param {string} [reason]
 */
export function decidedText(approved, decidedBy, reason) {
  if (decidedBy === "timeout") return "denied: nobody decided before the approval deadline";
  const verb = approved ? "approved" : "denied";
  const by = decidedBy.startsWith("rule:") ? `by approval rule ${decidedBy.slice(5)}` : "by a person";
  // A person's reason, without the words the loop puts before it for the model.
  const why = decidedBy === "person" ? reason?.match(/^Denied by a person: (.+)$/)?.[1] : undefined;
  return `${verb} ${by}${why ? ` (${why})` : ""}`;
}

/**
 * A finished call's line: the wait for approval apart from the tool's own run time.
 * @param {string} outcome done, failed or blocked
 * @param {number | undefined} waitedMs
 * @param {number | null} ranMs null when it never ran
 */
export function ranText(outcome, waitedMs, ranMs) {
  const parts = [outcome];
  if (waitedMs !== undefined && waitedMs > 0) parts.push(`waited ${ms(waitedMs)} for approval`);
  if (ranMs !== null) parts.push(`ran ${ms(ranMs)}`);
  return parts.join(" · ");
}
