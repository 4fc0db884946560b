import { log } from "../../runtime/log.js";
import { heldForDevice } from "../../runtime/restart-window.js";
import type { AlarmSchedule } from "../alarm-schedule.js";
import type { HubSettings } from "./hub-settings.js";
import { endingAtDeadline, mayBeOnDevice } from "./ledger/call-endings.js";
import { type CommandOutcomes, REDELIVER_MS } from "./ledger/command-outcomes.js";
import type { Ledger } from "./ledger/ledger.js";
import { CLOSE } from "./sockets/close-codes.js";
import type { DeviceSockets } from "./sockets/device-sockets.js";
import type { AuditLog } from "./storage/audit-log.js";
import type { DeviceStore } from "./storage/device-record.js";
import { REPORT_RETRY_MS, type RegistryReporter } from "./views/registry-reporter.js";
import type { WireSet } from "./wires/wire-set.js";

type Deps = {
  ledger: Ledger;
  store: DeviceStore;
  audit: AuditLog;
  sockets: DeviceSockets;
  /** frames go out through the socket's wire, which also says how long its socket may stay silent */
  wires: WireSet;
  outcomes: CommandOutcomes;
  registry: RegistryReporter;
  alarms: AlarmSchedule;
  settings: HubSettings;
  /** when this instance of the hub started: deadlines that passed before it get a reconnect window */
  startedAt: number;
};

/**
 * What the hub's alarm does: commands past their deadline end as `outcome_unknown` (sent or taken)
 * or `not_sent` (the device stayed offline; see call-endings.ts), except a sent command whose
 * deadline passed while the hub was down, which waits for its device to reconnect first (docs/architecture.md#held-deadlines);
 * outcomes the conversation did not take are offered again; a device that missed its heartbeats
 * is closed and marked offline; old audit rows are pruned; a registry report still owed is
 * retried. Then the alarm is set for the earliest of the next such times.
 */
export class HubChecks {
  constructor(private readonly d: Deps) {}

  async run(now: number): Promise<void> {
    const { ledger, sockets, wires, outcomes, audit, settings } = this.d;
    const ws = sockets.live();
    for (const row of ledger.expired(now)) {
      const held = heldForDevice(row.deadline, this.d.startedAt, settings.reconnectWindowMs, {
        sentBeforeStart: row.created_at < this.d.startedAt,
        deviceBack: ws !== null,
      });
      if (mayBeOnDevice(row) && held > now) {
        ledger.postpone(row.request_id, held);
        log("info", "deadline passed while the hub was down; waiting for the device", {
          request_id: row.request_id,
          conversation_id: row.conversation_id,
          until: held,
        });
        continue;
      }
      const outcome = endingAtDeadline(row, ws ? null : this.d.store.offlineReason());
      if (ws && mayBeOnDevice(row)) wires.send(ws, { type: "command", command: "cancel", request_id: row.request_id });
      outcomes.complete(row, outcome, true);
      log("warn", "command expired", {
        request_id: row.request_id,
        conversation_id: row.conversation_id,
        tool: row.tool,
        error_type: outcome.status === "error" ? outcome.error_type : undefined,
      });
    }
    for (const row of ledger.undelivered()) await outcomes.deliver(row);
    ledger.prune(now);
    await this.checkHeartbeats(now, settings.heartbeatIntervalMs * settings.heartbeatMisses);
    const pruned = audit.prune(now - settings.auditRetentionMs);
    if (pruned > 0) log("info", "audit rows pruned", { rows: pruned });
    if (this.d.registry.owed()) await this.d.registry.report("retry");
    await this.schedule(now);
  }

  /** Set the alarm for the earliest deadline, retry, heartbeat allowance or audit expiry. */
  async schedule(now = Date.now()): Promise<void> {
    const { ledger, sockets, wires, audit, settings } = this.d;
    const times: (number | null)[] = [ledger.nextDeadline()];
    if (ledger.hasUndelivered()) times.push(now + REDELIVER_MS);
    if (this.d.registry.owed()) times.push(now + REPORT_RETRY_MS);
    // Heartbeat check: when the quietest socket would run out of allowance.
    const allowance = settings.heartbeatIntervalMs * settings.heartbeatMisses;
    for (const { ws, att } of sockets.open())
      times.push(sockets.lastAlive(ws) + wires.silenceAllowed(att, allowance) + 1);
    const oldest = audit.oldest();
    if (oldest !== null) times.push(oldest + settings.auditRetentionMs + 1);
    const next = times.filter((t): t is number => t !== null).sort((a, b) => a - b)[0];
    if (next !== undefined) await this.d.alarms.atMost(next);
  }

  /** A socket with no frame and no answered ping for `allowedMs` is dead: close it, mark offline. */
  private async checkHeartbeats(now: number, allowedMs: number): Promise<void> {
    const { sockets, wires, store } = this.d;
    let missed = false;
    for (const { ws, att } of sockets.open()) {
      if (!att) continue;
      const alive = sockets.lastAlive(ws);
      if (now - alive <= wires.silenceAllowed(att, allowedMs)) continue;
      if (att.hello) store.save({ ...store.load(att.agent_id), last_seen: alive });
      sockets.closeReported(ws, CLOSE.HEARTBEAT_MISSED);
      store.count("heartbeats_missed");
      log("warn", "device missed its heartbeats", { agent_id: att.agent_id, last_alive: alive, allowed_ms: allowedMs });
      missed = true;
    }
    if (missed) await this.d.registry.report("heartbeat_missed");
  }
}
