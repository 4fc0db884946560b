import type { Summary } from "./stats.js";

/** One reported number; a ratio with a target says whether it met it. */
export type Metric = {
  name: string;
  value: number;
  unit: "ratio" | "ms" | "MB" | "per_s" | "count" | "bytes";
  target?: { op: "<=" | ">=" | "=="; value: number };
  note?: string;
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
