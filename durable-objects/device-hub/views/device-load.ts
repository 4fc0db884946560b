import type { Ledger } from "../ledger/ledger.js";
import type { DeviceSockets } from "../sockets/device-sockets.js";
import type { DeviceRecord } from "../storage/device-record.js";

/**
 * What fleet routing asks of a device's hub for every round that may send it a call
 * (docs/fleet.md#routing): whether it is online, its calls in flight and when it was last alive
 * (for the model's "offline" outcome). Unlike `getDevice` it neither groups the whole ledger nor
 * reads tokens and counters: one count over the partial index of open rows.
 */
export type DeviceLoad = { online: boolean; in_flight: number; last_alive: number | null };

export function deviceLoad(
  sql: SqlStorage,
  ledger: Ledger,
  sockets: DeviceSockets,
  record: Pick<DeviceRecord, "last_seen">,
): DeviceLoad {
  // Staged commands are in flight too: written first, so the count sees them.
  ledger.flush();
  const { n } = sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM ledger WHERE state != 'done'").one();
  const ws = sockets.live();
  return { online: ws !== null, in_flight: n, last_alive: ws ? sockets.lastAlive(ws) : record.last_seen };
}
