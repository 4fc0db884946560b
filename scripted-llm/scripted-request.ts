/**
 * One model request as received. `received_ms` / `answered_ms` are sub-millisecond clock readings
 * (ms since the epoch) of when its body had arrived and when the whole answer had been written,
 * for benchmarks that time the gaps between model calls. `path` and `headers` are what a client
 * sent them to (an AI Gateway's URL shape, its auth headers).
 */
export type ScriptedRequest = {
  at: string;
  body: unknown;
  received_ms: number;
  answered_ms?: number;
  /** "openai" (Chat Completions) or "anthropic" (Messages API) */
  format: "openai" | "anthropic";
  path: string;
  headers: Record<string, string>;
};
