/**
 * Bench-only, runs in workerd: counts what Cloudflare bills a Durable Object for, from inside the
 * object, so the cost scenario reports counted numbers rather than estimates.
 *
 * `meteredClass(Base, name, rpc?)` returns a subclass that, when its env has `COST_METER=on`:
 * - counts SQLite rows read and written from the storage cursors (`cursor.rowsRead/rowsWritten`,
 *   the numbers the billing uses), statements, and `databaseSize`;
 * - counts the storage API's key-value calls as rows (that is how a SQLite-backed object is billed
 *   for them) and alarms set;
 * - counts commits: the runtime commits an object's writes together at the end of the turn of
 *   the event loop that made them (its implicit transaction), so a turn with at least one row or
 *   key written is one commit. A turn ends at a zero-delay timer or when a request comes in
 *   (a new event: the runtime has committed the last one's writes before delivering it). A
 *   continuation after the object's own I/O that runs before the timer is not seen as a new
 *   turn, so the count is a lower bound: it may merge two commits, never split one;
 * - counts requests into the object as the runtime delivers them: RPC calls (by method), fetches,
 *   alarms, WebSocket messages. A method the object calls on itself is not a request: only calls
 *   that arrive from outside any metered entry (tracked with AsyncLocalStorage) are counted.
 * Without COST_METER=on it only forwards. Every so often (after activity settles) it logs one JSON
 * line with its running totals: `{"cost_meter": {...}}`; bench/lib/cost-log.ts reads them from the
 * runtime's output. The product is metered through a generated entry (bench/lib/cost-worker.ts), so
 * no product file knows about this.
 */
import { AsyncLocalStorage } from "node:async_hooks";

type Cursor = { rowsRead: number; rowsWritten: number };
type SqlStorage = { exec: (query: string, ...bindings: unknown[]) => Cursor; databaseSize: number };
type KvStorage = {
  get?: (key: string | string[]) => Promise<unknown>;
  put?: (key: string | Record<string, unknown>, value?: unknown) => Promise<void>;
  delete?: (key: string | string[]) => Promise<unknown>;
  list?: (options?: unknown) => Promise<Map<string, unknown>>;
  setAlarm?: (at: number | Date) => Promise<void>;
};
type Storage = KvStorage & { sql: SqlStorage };
type State = { storage: Storage; id: { toString(): string; name?: string } };

/** What one object counted since it was constructed (one line of the log). */
export type CostCounters = {
  class: string;
  id: string;
  /** a fresh value per construction, so a restarted object's totals start a new series */
  instance: string;
  requests: { rpc: Record<string, number>; fetch: number; alarm: number; websocket_message: number };
  rows_read: number;
  rows_written: number;
  statements: number;
  /** turns of the event loop that wrote: one implicit transaction, one commit, each */
  commits: number;
  /** commits by what they wrote: the tables written (and `kv`), sorted, joined with "+" */
  by_commit: Record<string, number>;
  kv_rows_read: number;
  kv_rows_written: number;
  alarms_set: number;
  db_bytes: number;
  /** by statement (its SQL, whitespace folded, first 100 characters): [count, rows read, rows written] */
  by_statement: Record<string, [number, number, number]>;
};

const HANDLERS: Record<string, "fetch" | "alarm" | "websocket_message" | null> = {
  fetch: "fetch",
  alarm: "alarm",
  webSocketMessage: "websocket_message",
  // Closes and errors are not billed as requests; they are still entries (not counted as RPC).
  webSocketClose: null,
  webSocketError: null,
};

const inEntry = new AsyncLocalStorage<true>();

type Turn = { cursors: Cursor[]; tables: string[]; kv: boolean };

/** The table a statement writes (`INSERT INTO t`, `UPDATE t`, `DELETE FROM t`, `CREATE TABLE … t`), else its first word. */
function writtenTable(query: string): string {
  const m =
    /^\s*(?:INSERT(?:\s+OR\s+\w+)?\s+INTO|UPDATE|DELETE\s+FROM|REPLACE\s+INTO|CREATE\s+(?:TABLE|INDEX)(?:\s+IF\s+NOT\s+EXISTS)?)\s+(\w+)/i.exec(
      query,
    );
  if (!m) return query.trim().split(/\s/)[0]!.toLowerCase();
  return /^\s*CREATE/i.test(query) ? "schema" : m[1]!;
}
const meters = new WeakMap<object, Meter>();

class Meter {
  readonly c: CostCounters;
  private open: { cursor: Cursor; key: string }[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** this turn's statements, and whether it wrote a key, until the turn ends */
  private turn: Turn | undefined;

  constructor(
    name: string,
    private readonly state: State,
  ) {
    this.c = {
      class: name,
      id: state.id.name ?? state.id.toString(),
      instance: crypto.randomUUID().slice(0, 8),
      requests: { rpc: {}, fetch: 0, alarm: 0, websocket_message: 0 },
      rows_read: 0,
      rows_written: 0,
      statements: 0,
      commits: 0,
      by_commit: {},
      kv_rows_read: 0,
      kv_rows_written: 0,
      alarms_set: 0,
      db_bytes: 0,
      by_statement: {},
    };
    this.wrapStorage(state.storage);
  }

  /** Cursors count as they are read; a cursor is folded in once its statement's turn is over. */
  private fold(): void {
    for (const o of this.open) {
      this.c.rows_read += o.cursor.rowsRead;
      this.c.rows_written += o.cursor.rowsWritten;
      const s = this.c.by_statement[o.key] ?? [0, 0, 0];
      this.c.by_statement[o.key] = s;
      s[0]++;
      s[1] += o.cursor.rowsRead;
      s[2] += o.cursor.rowsWritten;
    }
    this.open = [];
  }

  /** The current turn (opened on its first statement or key call); a commit if it wrote. */
  private inTurn(): Turn {
    if (this.turn) return this.turn;
    const turn: Turn = { cursors: [], tables: [], kv: false };
    this.turn = turn;
    setTimeout(() => this.endTurn(turn), 0);
    return turn;
  }

  private endTurn(turn: Turn): void {
    if (this.turn !== turn) return;
    this.turn = undefined;
    const wrote = turn.tables.filter((_, i) => turn.cursors[i]!.rowsWritten > 0);
    if (!turn.kv && wrote.length === 0) return;
    this.c.commits++;
    const what = [...new Set([...wrote, ...(turn.kv ? ["kv"] : [])])].sort().join("+");
    this.c.by_commit[what] = (this.c.by_commit[what] ?? 0) + 1;
  }

  private wrapStorage(storage: Storage): void {
    const sql = storage.sql;
    const exec = sql.exec;
    sql.exec = (query, ...bindings) => {
      const cursor = exec.call(sql, query, ...bindings);
      this.c.statements++;
      const turn = this.inTurn();
      turn.cursors.push(cursor);
      turn.tables.push(writtenTable(query));
      this.open.push({ cursor, key: query.replace(/\s+/g, " ").trim().slice(0, 100) });
      this.settle();
      return cursor;
    };
    const count = (n: number, field: "kv_rows_read" | "kv_rows_written") => {
      this.c[field] += n;
      if (field === "kv_rows_written" && n > 0) this.inTurn().kv = true;
      this.settle();
    };
    const keys = (k: unknown) => (Array.isArray(k) ? k.length : 1);
    const wrap = <K extends keyof KvStorage>(key: K, before: (...args: unknown[]) => void) => {
      const original = storage[key] as ((...args: unknown[]) => unknown) | undefined;
      if (typeof original !== "function") return;
      (storage as Record<string, unknown>)[key] = (...args: unknown[]) => {
        before(...args);
        return original.apply(storage, args);
      };
    };
    wrap("get", (k) => count(keys(k), "kv_rows_read"));
    wrap("put", (k) => count(typeof k === "object" && k !== null ? Object.keys(k).length : 1, "kv_rows_written"));
    wrap("delete", (k) => count(keys(k), "kv_rows_written"));
    wrap("setAlarm", () => {
      this.c.alarms_set++;
      this.settle();
    });
    const list = storage.list;
    if (typeof list === "function") {
      storage.list = async (options?: unknown) => {
        const result = await list.call(storage, options);
        count(result.size, "kv_rows_read");
        return result;
      };
    }
  }

  request(kind: "fetch" | "alarm" | "websocket_message" | "rpc", method: string): void {
    if (this.turn) this.endTurn(this.turn);
    if (kind === "rpc") this.c.requests.rpc[method] = (this.c.requests.rpc[method] ?? 0) + 1;
    else this.c.requests[kind]++;
    this.settle();
  }

  /** Logs the totals once activity has settled (trailing writes land after the entry returns). */
  settle(): void {
    if (this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.fold();
      try {
        this.c.db_bytes = this.state.storage.sql.databaseSize;
      } catch {
        // not available in this runtime
      }
      // warn: the dev server prints a worker's warnings at its default log level, not its logs.
      console.warn(JSON.stringify({ cost_meter: this.c }));
    }, 20);
  }
}

type Constructor = abstract new (...args: any[]) => object;

/** Every method name on `proto`'s chain below Object.prototype, but not the constructor. */
function methodNames(proto: object): string[] {
  const names = new Set<string>();
  for (let p: object | null = proto; p && p !== Object.prototype; p = Object.getPrototypeOf(p)) {
    for (const key of Object.getOwnPropertyNames(p)) {
      const d = Object.getOwnPropertyDescriptor(p, key);
      if (key !== "constructor" && typeof d?.value === "function") names.add(key);
    }
  }
  return [...names];
}

/**
 * `rpc`: the methods callers reach by RPC (counted by name); default every method of the class.
 * The runtime's handlers (fetch, alarm, webSocket*) are always wrapped.
 */
export function meteredClass<T extends Constructor>(Base: T, name: string, rpc?: string[]): T {
  // @ts-expect-error a mixin over an abstract constructor type
  class Metered extends Base {
    constructor(...args: any[]) {
      const [state, env] = args as [State, Record<string, unknown>];
      const meter = env?.COST_METER === "on" ? new Meter(name, state) : undefined;
      super(...args);
      if (meter) meters.set(this, meter);
    }
  }
  const proto = (Base as unknown as { prototype: object }).prototype;
  const names = new Set([...(rpc ?? methodNames(proto)), ...Object.keys(HANDLERS)]);
  for (const method of names) {
    const original = (proto as Record<string, unknown>)[method];
    if (typeof original !== "function") continue;
    const kind = method in HANDLERS ? HANDLERS[method]! : "rpc";
    Object.defineProperty(Metered.prototype, method, {
      configurable: true,
      writable: true,
      value: function (this: object, ...args: unknown[]) {
        const meter = meters.get(this);
        if (!meter || inEntry.getStore()) return original.apply(this, args);
        if (kind) meter.request(kind, method);
        return inEntry.run(true, () => original.apply(this, args));
      },
    });
  }
  return Metered as unknown as T;
}
