import { readConfig } from "../../worker/config.js";
import type { Env } from "../../worker/env.js";

export type HubConfig = {
  graceMs: number;
  heartbeatIntervalMs: number;
  heartbeatMisses: number;
  maxFrameBytes: number;
  auditRetentionMs: number;
};

/**
 * Parsed once per env object: vars cannot change while an isolate lives, and parsing every var
 * (DEVICE_TOKENS included) on each frame and dispatch was a visible part of a step's CPU
 * (bench/profile-cpu.ts).
 */
const cache = new WeakMap<Env, HubConfig>();

/** The hub's settings from the vars; a bad var falls back to the defaults (the worker reports it). */
export function hubConfig(env: Env): HubConfig {
  let cfg = cache.get(env);
  if (!cfg) {
    cfg = parseHubConfig(env);
    cache.set(env, cfg);
  }
  return cfg;
}

function parseHubConfig(env: Env): HubConfig {
  const cfg = readConfig(env);
  const c = cfg.ok ? cfg.config : null;
  return {
    graceMs: c?.DEVICE_RESULT_GRACE_MS ?? 3_000,
    heartbeatIntervalMs: c?.HEARTBEAT_INTERVAL_MS ?? 20_000,
    heartbeatMisses: c?.HEARTBEAT_MISSES ?? 3,
    maxFrameBytes: c?.DEVICE_MAX_FRAME_BYTES ?? 4 * 1024 * 1024,
    auditRetentionMs: (c?.AUDIT_RETENTION_DAYS ?? 30) * 24 * 60 * 60 * 1000,
  };
}

/** Whether a frame is over `limit` bytes, without encoding it when it clearly is not (≤ 3 bytes per UTF-16 unit). */
export function frameOverLimit(message: string | ArrayBuffer, limit: number): boolean {
  if (typeof message !== "string") return message.byteLength > limit;
  if (message.length * 3 <= limit) return false;
  return new TextEncoder().encode(message).byteLength > limit;
}
