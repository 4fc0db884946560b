import type { FilteredTool, HelloFrame, ManifestUpdateFrame, SkillManifest } from "@edgeloop/protocol";

/** What the hub knows about its device, kept across restarts so tools are known while offline. */
export type DeviceRecord = {
  agent_id: string;
  version: string | null;
  capabilities: string[];
  skills: SkillManifest[];
  filtered: FilteredTool[];
  last_seen: number | null;
  connected_at: number | null;
};

export function emptyRecord(agentId: string): DeviceRecord {
  return {
    agent_id: agentId,
    version: null,
    capabilities: [],
    skills: [],
    filtered: [],
    last_seen: null,
    connected_at: null,
  };
}

export function recordFromHello(prev: DeviceRecord, hello: HelloFrame, now: number): DeviceRecord {
  return {
    ...prev,
    agent_id: hello.agent_id,
    version: hello.version,
    capabilities: hello.capabilities,
    skills: hello.skills,
    filtered: hello.filtered,
    last_seen: now,
    connected_at: now,
  };
}

export function manifestUpdated(prev: DeviceRecord, update: ManifestUpdateFrame): DeviceRecord {
  return { ...prev, capabilities: update.capabilities, skills: update.skills, filtered: update.filtered };
}

/** How often `last_seen` is written while a device keeps reporting (the live socket shows it meanwhile). */
const LAST_SEEN_WRITE_MS = 5_000;

export class DeviceStore {
  constructor(private readonly sql: SqlStorage) {
    sql.exec("CREATE TABLE IF NOT EXISTS device (k TEXT PRIMARY KEY, v TEXT NOT NULL)");
    sql.exec("CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, n INTEGER NOT NULL)");
  }

  /** The object owns its storage, so the parsed record is kept in memory after the first read. */
  private cached: DeviceRecord | null = null;

  load(agentId: string): DeviceRecord {
    if (!this.cached) {
      const row = this.sql.exec<{ v: string }>("SELECT v FROM device WHERE k = 'record'").toArray()[0];
      if (!row) return emptyRecord(agentId);
      this.cached = JSON.parse(row.v) as DeviceRecord;
      const seen = this.sql.exec<{ v: string }>("SELECT v FROM device WHERE k = 'last_seen'").toArray()[0];
      if (seen) this.cached.last_seen = Math.max(this.cached.last_seen ?? 0, Number(seen.v));
    }
    return { ...this.cached };
  }

  save(record: DeviceRecord): void {
    this.sql.exec(
      "INSERT INTO device (k, v) VALUES ('record', ?) ON CONFLICT(k) DO UPDATE SET v = excluded.v",
      JSON.stringify(record),
    );
    this.cached = { ...record };
  }

  /**
   * Last seen changes on every result: one small row, not the whole record with its manifests,
   * and written at most every few seconds while results stream in (`force` on disconnect).
   */
  touch(now: number, force = false): void {
    if (this.cached) this.cached.last_seen = now;
    if (!force && now - this.lastSeenWritten < LAST_SEEN_WRITE_MS) return;
    this.sql.exec(
      "INSERT INTO device (k, v) VALUES ('last_seen', ?) ON CONFLICT(k) DO UPDATE SET v = excluded.v",
      String(now),
    );
    this.lastSeenWritten = now;
  }
  private lastSeenWritten = 0;

  /**
   * Why the device is offline, as whoever held its socket said when closing it (a bridge that found
   * the device unreachable behind it); null once the device says hello again.
   */
  offlineReason(): string | null {
    if (this.reason === undefined)
      this.reason =
        this.sql.exec<{ v: string }>("SELECT v FROM device WHERE k = 'offline_reason'").toArray()[0]?.v ?? null;
    return this.reason;
  }

  setOfflineReason(reason: string | null): void {
    if (reason === this.offlineReason()) return;
    if (reason === null) this.sql.exec("DELETE FROM device WHERE k = 'offline_reason'");
    else
      this.sql.exec(
        "INSERT INTO device (k, v) VALUES ('offline_reason', ?) ON CONFLICT(k) DO UPDATE SET v = excluded.v",
        reason,
      );
    this.reason = reason;
  }
  private reason: string | null | undefined = undefined;

  /** Whether a device ever connected to this hub (its record is written on its first hello). */
  everSeen(): boolean {
    if (this.cached) return true;
    return this.sql.exec("SELECT 1 FROM device WHERE k IN ('record', 'last_seen')").toArray().length > 0;
  }

  /** The hub's agent id, learned from the first call that names it (RPCs from conversations do not). */
  agentId(): string | null {
    if (this.known) return this.known;
    const row = this.sql.exec<{ v: string }>("SELECT v FROM device WHERE k = 'agent_id'").toArray()[0];
    if (row) this.known = row.v;
    return row ? row.v : null;
  }

  rememberAgentId(agentId: string): void {
    if (this.known === agentId) return;
    this.sql.exec("INSERT INTO device (k, v) VALUES ('agent_id', ?) ON CONFLICT(k) DO NOTHING", agentId);
    this.known = agentId;
  }
  private known: string | null = null;

  /** The pools whose registries follow this device (registry-reporter.ts), kept in memory once read. */
  followedPools(): string[] {
    if (!this.pools) {
      const row = this.sql.exec<{ v: string }>("SELECT v FROM device WHERE k = 'pools'").toArray()[0];
      this.pools = row ? (JSON.parse(row.v) as string[]) : [];
    }
    return this.pools;
  }

  follow(pool: string): void {
    const pools = this.followedPools();
    if (pools.includes(pool)) return;
    this.pools = [...pools, pool];
    this.sql.exec(
      "INSERT INTO device (k, v) VALUES ('pools', ?) ON CONFLICT(k) DO UPDATE SET v = excluded.v",
      JSON.stringify(this.pools),
    );
  }
  private pools: string[] | null = null;

  flag(name: string): boolean {
    return this.sql.exec("SELECT 1 FROM device WHERE k = ?", `flag:${name}`).toArray().length > 0;
  }

  setFlag(name: string, on: boolean): void {
    if (on) this.sql.exec("INSERT INTO device (k, v) VALUES (?, '1') ON CONFLICT(k) DO NOTHING", `flag:${name}`);
    else this.sql.exec("DELETE FROM device WHERE k = ?", `flag:${name}`);
  }

  count(name: string, by = 1): void {
    this.sql.exec(
      "INSERT INTO counters (name, n) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET n = n + excluded.n",
      name,
      by,
    );
  }

  counters(): Record<string, number> {
    return Object.fromEntries(
      this.sql
        .exec<{ name: string; n: number }>("SELECT name, n FROM counters")
        .toArray()
        .map((r) => [r.name, r.n]),
    );
  }
}
