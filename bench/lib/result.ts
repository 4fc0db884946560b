import type { Summary } from "./stats.js";

/** One reported number; a ratio with a target says whether it met it. */
export type Metric = {
  name: string;
  value: number;
  unit: "ratio" | "ms" | "MB" | "per_s" | "count" | "bytes";
  target?: { op: "<=" | ">=" | "=="; value: number };
  note?: string;
  /**
   * a target judged on repeats: each repetition's value, made inside one run interleaved with its
   * floor; `value` is their median (see repeats.ts)
   */
  repetitions?: number[];
};

export type ScenarioResult = {
  id: string;
  title: string;
  /** how many measured repetitions the medians are over (the smallest sample set) */
  repetitions: number;
  metrics: Metric[];
  /** what the floor is and why it is the floor */
  floor?: string;
  /** raw summaries and settings, for latest.json */
  details: Record<string, Summary | number | string | boolean | null | unknown>;
  lost?: number;
  duplicated?: number;
};

export function met(m: Metric): boolean | null {
  if (!m.target) return null;
  if (!Number.isFinite(m.value)) return false;
  if (m.target.op === "<=") return m.value <= m.target.value;
  if (m.target.op === ">=") return m.value >= m.target.value;
  return m.value === m.target.value;
}

/** A target is straddled when its repetitions fall on both sides of it: the verdict is the median's, but shaky. */
export function straddles(m: Metric): boolean {
  if (!m.target || !m.repetitions || m.repetitions.length === 0) return false;
  const inside = m.repetitions.map((v) => met({ ...m, value: v, repetitions: undefined }));
  return inside.includes(true) && inside.includes(false);
}
