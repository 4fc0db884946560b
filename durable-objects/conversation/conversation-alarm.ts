import { backstopAt } from "../../runtime/restart-window.js";
import { isCallDeadline } from "./core/index.js";
import type { EffectRunner } from "./effects/effect-runner.js";
import type { ConversationStore } from "./storage/conversation-store.js";

/** While an outbound effect runs, look again this often: a restart loses in-memory work. */
const WATCHDOG_MS = 30_000;

/**
 * The deadlines that are due now, each cleared just before it is handed out, so a step that fails
 * for one leaves the later ones set for the next alarm. A call's backstop that falls inside the
 * reconnect window after this instance started is moved to the window's end instead
 * (docs/architecture.md#held-deadlines); `window` is that window plus the call deadline's grace.
 */
export function* dueDeadlines(store: ConversationStore, now: number, startedAt: number, window: number) {
  for (const { key, at } of store.dueDeadlines(now)) {
    const held = isCallDeadline(key) ? backstopAt(at, startedAt, window) : at;
    if (held > now) {
      store.setDeadline(key, held);
      continue;
    }
    store.clearDeadline(key);
    yield key;
  }
}

/** When the alarm should next go off: the earliest deadline or outbox retry; an effect in flight is watched. */
export function nextAlarmAt(store: ConversationStore, runner: EffectRunner, now: number): number | null {
  const times: number[] = [];
  const deadline = store.nextDeadline();
  if (deadline !== null) times.push(deadline);
  for (const row of store.pendingTimes())
    times.push(runner.isInflight(row.id) ? now + WATCHDOG_MS : Math.max(row.next_at, now));
  return times.length === 0 ? null : Math.min(...times);
}
