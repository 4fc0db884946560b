/**
 * What others may ask of a registry (the global one, or a pool's): hubs report their device's
 * changes, the worker lists devices, the front door routes a pool's messages. RegistryDO
 * implements it, and addresses.ts types the REGISTRY namespace by it.
 */
export interface RegistryRpc {
  report(r: DeviceReport): Promise<void>;
  list(): Promise<DeviceSummary[]>;
  get(agentId: string): Promise<DeviceSummary | null>;
  /** A pool's registry: the device a pool message of this conversation goes to. */
  route(req: RouteRequest): Promise<RouteResult>;
}

/** What a hub tells the registry about its device. */
export type DeviceReport = {
  agent_id: string;
  online: boolean;
  last_seen: number | null;
  version: string | null;
  tools: string[];
  /** a device key of this agent id is revoked: refused until an admin clears it */
  revoked: boolean;
  /** why the state changed: hello, close, heartbeat_missed, revoked… */
  reason: string;
};

export type DeviceSummary = Omit<DeviceReport, "reason"> & { last_change: string; updated_at: number };

export type RouteRequest = { conversation_id: string; pool: string; members: string[]; tools: string[] };
export type RouteResult = { ok: true; agent_id: string; sticky: boolean } | { ok: false; detail: string };
