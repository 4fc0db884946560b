import { log } from "../../../runtime/log.js";
import { poolRegistryFor, registryOf } from "../../addresses.js";
import type { AlarmSchedule } from "../../alarm-schedule.js";
import type { DurableObjectBindings } from "../../bindings.js";
import type { DeviceReport } from "../../registry/registry-rpc.js";
import type { DeviceSockets } from "../sockets/device-sockets.js";
import type { DeviceStore } from "../storage/device-record.js";
import type { NodeCredentials } from "../wires/openclaw/node-credentials.js";

/** How soon a failed report is tried again. */
export const REPORT_RETRY_MS = 5_000;

/**
 * Tells the registry what the device looks like now (online, last seen, version, tools) when that
 * changes, and the registry of each pool that routes to the device (it asked to follow it the
 * first time it routed a message of the pool: `follow`). A failure is remembered and retried by the hub's alarm, so the registry catches up
 * without the device having to do anything.
 */
export class RegistryReporter {
  constructor(
    private readonly env: Pick<DurableObjectBindings, "REGISTRY">,
    private readonly store: DeviceStore,
    private readonly sockets: DeviceSockets,
    private readonly alarms: AlarmSchedule,
    private readonly credentials: Pick<NodeCredentials, "revokedKeys">,
  ) {}

  /** A report failed and is still owed. */
  owed(): boolean {
    return this.store.flag("registry_dirty");
  }

  /** A pool's registry follows the device from now on; it gets the device as it is now. */
  follow(agentId: string, pool: string): DeviceReport {
    this.store.follow(pool);
    return this.current(agentId, "followed");
  }

  private current(agentId: string, reason: string): DeviceReport {
    const record = this.store.load(agentId);
    const online = this.sockets.live() !== null;
    return {
      agent_id: agentId,
      online,
      last_seen: online ? Date.now() : record.last_seen,
      version: record.version,
      tools: record.skills.flatMap((s) => s.tools.map((t) => t.name)),
      revoked: this.credentials.revokedKeys().length > 0,
      reason,
    };
  }

  async report(reason: string): Promise<void> {
    const agentId = this.store.agentId();
    if (!agentId) return;
    const report = this.current(agentId, reason);
    const pools = this.store.followedPools().map((p) => poolRegistryFor(this.env, p));
    try {
      await Promise.all([registryOf(this.env), ...pools].map((r) => r.report(report)));
      this.store.setFlag("registry_dirty", false);
    } catch (e) {
      log("warn", "registry report failed, will retry", { agent_id: agentId, error: String(e) });
      this.store.setFlag("registry_dirty", true);
      await this.alarms.atMost(Date.now() + REPORT_RETRY_MS);
    }
  }
}
