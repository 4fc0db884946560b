import { z } from "zod";
import { intVar, type VarsOf } from "./vars.js";

/**
 * Deadlines that passed while their object was not running. A device cannot hand its result to a
 * hub that is down, nor a hub its outcome to a conversation that is down: when the runtime comes
 * back after an outage, the calls whose deadlines fell inside it would all end as `timeout` at
 * once, although the device may have finished them and kept the result to send on reconnecting.
 * Such a deadline is enforced `windowMs` after the object started instead. An object woken by its
 * own alarm starts just after the deadline; that is no outage, so a deadline that passed less than
 * `ALARM_LATENESS_MS` before the start is kept. Pure; see docs/architecture.md#held-deadlines.
 */
export const ALARM_LATENESS_MS = 1_000;

/** When a deadline is enforced, given when this instance of its object started. */
export function enforcedAt(deadline: number, startedAt: number, windowMs: number): number {
  if (deadline >= startedAt - ALARM_LATENESS_MS) return deadline;
  return startedAt + windowMs;
}

/**
 * When a hub enforces the deadline of a command that may be on its device: as `enforcedAt`, and
 * also, for a command sent before this instance started, no earlier than the window's end while
 * the device has not come back. A runtime that restarts just before a deadline would otherwise end
 * the call before the device has had time to reconnect and hand over the result it kept. An
 * instance that only woke from hibernation still has the device's socket, so nothing is held.
 */
export function heldForDevice(
  deadline: number,
  startedAt: number,
  windowMs: number,
  command: { sentBeforeStart: boolean; deviceBack: boolean },
): number {
  const at = enforcedAt(deadline, startedAt, windowMs);
  if (!command.sentBeforeStart || command.deviceBack) return at;
  return Math.max(at, startedAt + windowMs);
}

/**
 * `DEVICE_RECONNECT_WINDOW_MS`: how long after the runtime's restart a device gets to reconnect and
 * send results of calls whose deadlines passed while the runtime was down. The default is the
 * device agent's longest reconnect delay. Read by the device hub and the conversation (which waits
 * that long plus its own grace before it gives up on a hub).
 */
export const RestartWindowVarsSchema = z.object({
  DEVICE_RECONNECT_WINDOW_MS: intVar(0, 600_000)
    .default(30_000)
    .describe(
      "After the runtime restarts, how long a device may still send the result of a call whose deadline passed " +
        "while the runtime was down, before the call ends as `timeout` (default: the agent's longest reconnect delay).",
    ),
});

export type RestartWindowVars = VarsOf<typeof RestartWindowVarsSchema.shape>;

/**
 * When a conversation enforces its own backstop for a call (the call's timeout plus its grace):
 * never sooner than `windowMs` (the reconnect window plus that grace) after this instance of the
 * conversation started. Its hub holds the call that long for a device that has not come back
 * (`heldForDevice`), and answers first; a backstop that fired as the runtime came back would end
 * the call while the device's kept result was on its way.
 */
export function backstopAt(deadline: number, startedAt: number, windowMs: number): number {
  return Math.max(deadline, startedAt + windowMs);
}
