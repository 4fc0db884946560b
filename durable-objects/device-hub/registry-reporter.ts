import { log } from "../../runtime/log.js";
import { registryOf } from "../addresses.js";
import type { AlarmSchedule } from "../alarm-schedule.js";
import type { DurableObjectBindings } from "../bindings.js";
import type { DeviceStore } from "./device-record.js";
import type { DeviceSockets } from "./device-sockets.js";

/** How soon a failed report is tried again. */
export const REPORT_RETRY_MS = 5_000;

/**
 * Tells the registry what the device looks like now (online, last seen, version, tools) when that
 * changes. A failure is remembered and retried by the hub's alarm, so the registry catches up
 * without the device having to do anything.
 */
export class RegistryReporter {
  constructor(
    private readonly env: Pick<DurableObjectBindings, "REGISTRY">,
    private readonly store: DeviceStore,
    private readonly sockets: DeviceSockets,
    private readonly alarms: AlarmSchedule,
  ) {}

  /** A report failed and is still owed. */
  owed(): boolean {
    return this.store.flag("registry_dirty");
  }

  async report(reason: string): Promise<void> {
    const agentId = this.store.agentId();
    if (!agentId) return;
    const record = this.store.load(agentId);
    const online = this.sockets.live() !== null;
    try {
      await registryOf(this.env).report({
        agent_id: agentId,
        online,
        last_seen: online ? Date.now() : record.last_seen,
        version: record.version,
        tools: record.skills.flatMap((s) => s.tools.map((t) => t.name)),
        reason,
      });
      this.store.setFlag("registry_dirty", false);
    } catch (e) {
      log("warn", "registry report failed, will retry", { agent_id: agentId, error: String(e) });
      this.store.setFlag("registry_dirty", true);
      await this.alarms.atMost(Date.now() + REPORT_RETRY_MS);
    }
  }
}
