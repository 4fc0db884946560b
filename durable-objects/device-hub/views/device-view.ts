import type { DeviceView } from "../device-hub-rpc.js";
import type { Ledger } from "../ledger/ledger.js";
import type { DeviceSockets } from "../sockets/device-sockets.js";
import type { DeviceStore } from "../storage/device-record.js";
import type { DeviceTokens } from "../storage/device-tokens.js";
import type { NodeCredentials } from "../wires/openclaw/node-credentials.js";

/** The whole view of a device for the API and the dashboard: its record, liveness, the ledger's counts, counters. */
export function deviceView(
  store: DeviceStore,
  ledger: Ledger,
  sockets: DeviceSockets,
  tokens: DeviceTokens,
  credentials: NodeCredentials,
  agentId: string,
): DeviceView {
  store.rememberAgentId(agentId);
  const record = store.load(agentId);
  const ws = sockets.live();
  return {
    ...record,
    online: ws !== null,
    last_alive: ws ? sockets.lastAlive(ws) : record.last_seen,
    commands: ledger.counts(),
    counters: store.counters(),
    tokens: tokens.list().length,
    revoked_keys: credentials.revokedKeys(),
    offline_reason: ws ? null : store.offlineReason(),
  };
}
