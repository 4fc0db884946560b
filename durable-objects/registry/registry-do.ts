import { DurableObject } from "cloudflare:workers";
import { hubFor } from "../addresses.js";
import type { DurableObjectBindings } from "../bindings.js";
import type { DeviceReport, DeviceSummary, RegistryRpc, RouteRequest, RouteResult } from "./registry-rpc.js";
import { rendezvousPick } from "./rendezvous.js";

type DeviceRow = {
  agent_id: string;
  online: number;
  last_seen: number | null;
  version: string | null;
  tools: string;
  last_change: string;
  updated_at: number;
  /** from the `revoked` table, joined when read */
  revoked?: number;
};

/** Pool assignments unused for this long are forgotten. */
const ASSIGNMENT_TTL_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * The device registry: one instance ("global") for every device, and one per pool (`pool:<name>`)
 * for that pool's members. Hubs report to both when their device says hello, disconnects or
 * misses its heartbeats, so a registry is written on state changes only, never per message. The
 * global one is read by `GET /v1/devices` and the audit fan-out; a pool's by that pool's routing
 * (messages that name a `pool`; messages that name an `agent_id` touch no registry), so no
 * object shared by the whole deployment is on a message's path.
 */
export class RegistryDO extends DurableObject<Pick<DurableObjectBindings, "DEVICE_HUB">> implements RegistryRpc {
  constructor(ctx: DurableObjectState, env: Pick<DurableObjectBindings, "DEVICE_HUB">) {
    super(ctx, env);
    const sql = ctx.storage.sql;
    sql.exec(`CREATE TABLE IF NOT EXISTS device (
      agent_id TEXT PRIMARY KEY, online INTEGER NOT NULL, last_seen INTEGER, version TEXT,
      tools TEXT NOT NULL, last_change TEXT NOT NULL, updated_at INTEGER NOT NULL)`);
    // Apart from `device`, so registries written before it need no migration.
    sql.exec("CREATE TABLE IF NOT EXISTS revoked (agent_id TEXT PRIMARY KEY)");
    sql.exec(`CREATE TABLE IF NOT EXISTS assignment (
      conversation_id TEXT NOT NULL, pool TEXT NOT NULL, agent_id TEXT NOT NULL, used_at INTEGER NOT NULL,
      PRIMARY KEY (conversation_id, pool))`);
  }

  async report(r: DeviceReport): Promise<void> {
    this.ctx.storage.sql.exec(
      `INSERT INTO device (agent_id, online, last_seen, version, tools, last_change, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(agent_id) DO UPDATE SET online = excluded.online, last_seen = excluded.last_seen,
         version = COALESCE(excluded.version, device.version),
         tools = CASE WHEN excluded.tools = '[]' AND excluded.online = 0 THEN device.tools ELSE excluded.tools END,
         last_change = excluded.last_change, updated_at = excluded.updated_at`,
      r.agent_id,
      r.online ? 1 : 0,
      r.last_seen,
      r.version,
      JSON.stringify(r.tools),
      r.reason,
      Date.now(),
    );
    this.noteRevoked(r.agent_id, r.revoked);
  }

  private noteRevoked(agentId: string, revoked: boolean | undefined): void {
    if (revoked) this.ctx.storage.sql.exec("INSERT OR IGNORE INTO revoked (agent_id) VALUES (?)", agentId);
    else this.ctx.storage.sql.exec("DELETE FROM revoked WHERE agent_id = ?", agentId);
  }

  private readonly selectDevices =
    "SELECT device.*, revoked.agent_id IS NOT NULL AS revoked FROM device LEFT JOIN revoked USING (agent_id)";

  async list(): Promise<DeviceSummary[]> {
    return this.ctx.storage.sql.exec<DeviceRow>(`${this.selectDevices} ORDER BY agent_id`).toArray().map(decode);
  }

  async get(agentId: string): Promise<DeviceSummary | null> {
    const row = this.ctx.storage.sql.exec<DeviceRow>(`${this.selectDevices} WHERE agent_id = ?`, agentId).toArray()[0];
    return row ? decode(row) : null;
  }

  /**
   * Pick a device of `pool` for a conversation: the one it already has while that one is online
   * (and still has the tools), else the rendezvous-hash winner over the pool's online devices
   * that have every tool in `tools`. The choice is stored so the conversation stays put even
   * when another device joins the pool later.
   */
  async route(req: RouteRequest): Promise<RouteResult> {
    const sql = this.ctx.storage.sql;
    const rows = new Map<string, DeviceRow | undefined>();
    for (const id of req.members)
      rows.set(id, sql.exec<DeviceRow>("SELECT * FROM device WHERE agent_id = ?", id).toArray()[0]);
    await this.askUnreported(req.pool, rows);
    const now = Date.now();
    const eligible = new Set(
      req.members.filter((id) => {
        const d = rows.get(id);
        if (d?.online !== 1) return false;
        const tools = new Set(JSON.parse(d.tools) as string[]);
        return req.tools.every((t) => tools.has(t));
      }),
    );
    const current = sql
      .exec<{ agent_id: string }>(
        "SELECT agent_id FROM assignment WHERE conversation_id = ? AND pool = ?",
        req.conversation_id,
        req.pool,
      )
      .toArray()[0];
    if (current && eligible.has(current.agent_id)) {
      sql.exec(
        "UPDATE assignment SET used_at = ? WHERE conversation_id = ? AND pool = ?",
        now,
        req.conversation_id,
        req.pool,
      );
      return { ok: true, agent_id: current.agent_id, sticky: true };
    }
    const pick = rendezvousPick(req.conversation_id, [...eligible]);
    if (!pick) {
      const need = req.tools.length ? ` with tools [${req.tools.join(", ")}]` : "";
      return { ok: false, detail: `no online device in pool '${req.pool}'${need}` };
    }
    sql.exec(
      `INSERT INTO assignment (conversation_id, pool, agent_id, used_at) VALUES (?, ?, ?, ?)
       ON CONFLICT(conversation_id, pool) DO UPDATE SET agent_id = excluded.agent_id, used_at = excluded.used_at`,
      req.conversation_id,
      req.pool,
      pick,
      now,
    );
    sql.exec("DELETE FROM assignment WHERE used_at < ?", now - ASSIGNMENT_TTL_MS);
    return { ok: true, agent_id: pick, sticky: false };
  }

  /**
   * A pool's registry knows a member from the first message it routes among them on: it asks the
   * member's hub to follow it (the hub then reports here too) and takes the answer as the row. A
   * report that lands meanwhile is newer and wins.
   */
  private async askUnreported(pool: string, rows: Map<string, DeviceRow | undefined>): Promise<void> {
    const missing = [...rows].filter(([, row]) => !row).map(([id]) => id);
    await Promise.all(
      missing.map(async (id) => {
        const d = await hubFor(this.env, id).followPool(id, pool);
        this.ctx.storage.sql.exec(
          `INSERT OR IGNORE INTO device (agent_id, online, last_seen, version, tools, last_change, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?)`,
          id,
          d.online ? 1 : 0,
          d.last_seen,
          d.version,
          JSON.stringify(d.tools),
          d.reason,
          Date.now(),
        );
        this.noteRevoked(id, d.revoked);
        rows.set(id, this.ctx.storage.sql.exec<DeviceRow>("SELECT * FROM device WHERE agent_id = ?", id).toArray()[0]);
      }),
    );
  }
}

function decode(r: DeviceRow): DeviceSummary {
  return {
    agent_id: r.agent_id,
    online: r.online === 1,
    last_seen: r.last_seen,
    version: r.version,
    tools: JSON.parse(r.tools) as string[],
    revoked: r.revoked === 1,
    last_change: r.last_change,
    updated_at: r.updated_at,
  };
}
