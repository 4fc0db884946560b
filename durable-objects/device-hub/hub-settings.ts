import type { Result } from "@edgeloop/protocol/result";
import { z } from "zod";
import { log } from "../../runtime/log.js";
import { RestartWindowVarsSchema } from "../../runtime/restart-window.js";
import { intVar, oncePerEnv, parseVars, type VarsOf } from "../../runtime/vars.js";

export const HubVarsSchema = z
  .object({
    DEVICE_RESULT_GRACE_MS: intVar(0, 600_000)
      .default(3_000)
      .describe(
        "How long past a call's timeout the hub waits for the device before it ends the call `outcome_unknown` (or `not_sent`).",
      ),
    HEARTBEAT_INTERVAL_MS: intVar(1_000, 3_600_000)
      .default(20_000)
      .describe(
        "A device with no frame and no answered ping for HEARTBEAT_INTERVAL_MS × HEARTBEAT_MISSES is closed " +
          "(4010) and marked offline.",
      ),
    HEARTBEAT_MISSES: intVar(1, 100).default(3).describe("Unanswered heartbeats before a device counts as gone."),
    DEVICE_MAX_FRAME_BYTES: intVar(1024, 32 * 1024 * 1024)
      .default(4 * 1024 * 1024)
      .describe("Largest frame a device may send; larger ones are rejected and counted."),
    AUDIT_RETENTION_DAYS: intVar(1, 3650)
      .default(30)
      .describe("Audit rows older than this are pruned by the hub's alarm."),
  })
  .extend(RestartWindowVarsSchema.shape);

/** The vars a device hub reads. */
export type HubVars = VarsOf<typeof HubVarsSchema.shape>;

export type HubSettings = {
  /** how long past a call's timeout the hub waits for the device before it reports `timeout` */
  graceMs: number;
  /** how long after the hub's restart a device may still send results of calls whose deadlines passed meanwhile */
  reconnectWindowMs: number;
  heartbeatIntervalMs: number;
  heartbeatMisses: number;
  maxFrameBytes: number;
  auditRetentionMs: number;
};

/** The hub's settings, or the first bad var; parsed once per isolate. The worker refuses requests naming a bad one. */
export const parseHubSettings = oncePerEnv((env: HubVars): Result<HubSettings> => {
  const vars = parseVars(HubVarsSchema, env);
  if (!vars.ok) return vars;
  const v = vars.value;
  return {
    ok: true,
    value: {
      graceMs: v.DEVICE_RESULT_GRACE_MS,
      reconnectWindowMs: v.DEVICE_RECONNECT_WINDOW_MS,
      heartbeatIntervalMs: v.HEARTBEAT_INTERVAL_MS,
      heartbeatMisses: v.HEARTBEAT_MISSES,
      maxFrameBytes: v.DEVICE_MAX_FRAME_BYTES,
      auditRetentionMs: v.AUDIT_RETENTION_DAYS * 24 * 60 * 60 * 1000,
    },
  };
});

const DEFAULTS = parseHubSettings({}) as { ok: true; value: HubSettings };

/**
 * The settings a hub runs with: a bad var falls back to the defaults rather than leaving devices
 * without a hub (the front door answers 500 naming the var until it is fixed).
 */
export const hubSettings = oncePerEnv((env: HubVars): HubSettings => {
  const parsed = parseHubSettings(env);
  if (parsed.ok) return parsed.value;
  log("error", "device hub settings invalid, using defaults", { error: parsed.error });
  return DEFAULTS.value;
});

/** Whether a frame is over `limit` bytes, without encoding it when it clearly is not (≤ 3 bytes per UTF-16 unit). */
export function frameOverLimit(message: string | ArrayBuffer, limit: number): boolean {
  if (typeof message !== "string") return message.byteLength > limit;
  if (message.length * 3 <= limit) return false;
  return new TextEncoder().encode(message).byteLength > limit;
}
