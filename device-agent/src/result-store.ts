import { mkdir, open, readdir, readFile, rename, unlink } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { Identifier, ResultFrame, ToolName, parseJson } from "../../protocol/index.js";

/**
 * Results by request_id, on disk, so a command delivered twice (a hub retry, a reconnect, an agent
 * restart) runs at most once. One file per request, written to a temp file and renamed, so a crash
 * or power cut leaves either the old record or the new one, never half of one.
 *
 * A "running" record is written when a tool starts. If the agent dies while the tool runs, the
 * next start turns that record into an error result instead of running the tool a second time.
 */
const StoredRecord = z.discriminatedUnion("state", [
  z.object({ state: z.literal("running"), request_id: Identifier, tool: ToolName, started_at: z.number() }),
  z.object({
    state: z.literal("done"),
    request_id: Identifier,
    tool: ToolName,
    started_at: z.number(),
    finished_at: z.number(),
    acked: z.boolean(),
    result: ResultFrame,
  }),
]);
export type StoredRecord = z.infer<typeof StoredRecord>;
export type DoneRecord = Extract<StoredRecord, { state: "done" }>;

export type ResultStoreOptions = {
  dir: string;
  maxEntries: number;
  ttlMs: number;
  now?: () => number;
  onWarning?: (msg: string, fields: Record<string, unknown>) => void;
};

export class ResultStore {
  private readonly records = new Map<string, StoredRecord>();
  /** per-id write chains, so a later write never lands before an earlier one */
  private readonly writes = new Map<string, Promise<void>>();
  private tmpCounter = 0;
  private readonly now: () => number;

  private constructor(private readonly opts: ResultStoreOptions) {
    this.now = opts.now ?? Date.now;
  }

  static async open(opts: ResultStoreOptions): Promise<ResultStore> {
    const store = new ResultStore(opts);
    await mkdir(opts.dir, { recursive: true });
    await store.load();
    return store;
  }

  private async load(): Promise<void> {
    const names = await readdir(this.opts.dir);
    for (const name of names) {
      const path = join(this.opts.dir, name);
      if (name.includes(".tmp-")) {
        await unlink(path).catch(() => {}); // a write the last run did not finish
        continue;
      }
      if (!name.endsWith(".json")) continue;
      const parsed = parseJson(StoredRecord, await readFile(path, "utf8").catch(() => ""));
      if (!parsed.ok || `${parsed.value.request_id}.json` !== name) {
        this.opts.onWarning?.("result store: unreadable record removed", { file: path, error: parsed.ok ? "name mismatch" : parsed.error });
        await unlink(path).catch(() => {});
        continue;
      }
      this.records.set(parsed.value.request_id, parsed.value);
    }
    // Tools that were running when the agent stopped: report, never re-run (at most once).
    for (const record of [...this.records.values()]) {
      if (record.state !== "running") continue;
      await this.finish(
        {
          type: "result",
          request_id: record.request_id,
          status: "error",
          tool: record.tool,
          error: `The device agent restarted while '${record.tool}' was running; it may have partly run and was not started again.`,
          error_type: "execution_failed",
        },
        record.started_at,
      );
    }
    await this.prune();
  }

  get(requestId: string): StoredRecord | undefined {
    return this.records.get(requestId);
  }

  /** Every id with a record: `hello.held` (plus whatever is queued in memory). */
  ids(): string[] {
    return [...this.records.keys()];
  }

  unacked(): DoneRecord[] {
    return [...this.records.values()]
      .filter((r): r is DoneRecord => r.state === "done" && !r.acked)
      .sort((a, b) => a.finished_at - b.finished_at);
  }

  /**
   * The "running" marker is written but not fsynced: it guards against re-running after an agent
   * crash (the page cache survives that); only a power cut mid-tool can lose it. Skipping the
   * fsync takes one disk flush off every command's start.
   */
  async begin(requestId: string, tool: string): Promise<void> {
    await this.put({ state: "running", request_id: requestId, tool, started_at: this.now() }, false);
  }

  async finish(result: ResultFrame, startedAt?: number): Promise<DoneRecord> {
    const prev = this.records.get(result.request_id);
    const record: DoneRecord = {
      state: "done",
      request_id: result.request_id,
      tool: result.tool,
      started_at: startedAt ?? prev?.started_at ?? this.now(),
      finished_at: this.now(),
      acked: false,
      result: ResultFrame.parse(result),
    };
    await this.put(record);
    await this.prune();
    return record;
  }

  /** The hub has the result; keep it (for dedupe, until TTL) but stop re-sending it. */
  async ack(requestIds: string[]): Promise<void> {
    const writes: Promise<void>[] = [];
    for (const id of requestIds) {
      const record = this.records.get(id);
      // put() updates memory at once, so a reconnect right after an ack never re-sends these
      // Not fsynced: losing an ack only means one more re-send, which the hub drops as a duplicate.
      if (record?.state === "done" && !record.acked) writes.push(this.put({ ...record, acked: true }, false));
    }
    await Promise.all(writes);
  }

  /** Forget a "running" marker (a command that was refused before it started). */
  async remove(requestId: string): Promise<void> {
    this.records.delete(requestId);
    await this.chain(requestId, () => unlink(this.file(requestId)).catch(() => {}));
  }

  /** Drop expired records, then the oldest (acked first) beyond the bound; never a running one. */
  async prune(): Promise<void> {
    const now = this.now();
    const done = [...this.records.values()].filter((r): r is DoneRecord => r.state === "done");
    const expired = done.filter((r) => now - r.finished_at > this.opts.ttlMs);
    const live = done
      .filter((r) => now - r.finished_at <= this.opts.ttlMs)
      .sort((a, b) => Number(b.acked) - Number(a.acked) || a.finished_at - b.finished_at);
    const excess = Math.max(0, this.records.size - expired.length - this.opts.maxEntries);
    for (const record of [...expired, ...live.slice(0, excess)]) await this.remove(record.request_id);
  }

  /** Wait for every pending write (shutdown, tests). */
  async flush(): Promise<void> {
    await Promise.allSettled([...this.writes.values()]);
  }

  private file(requestId: string): string {
    return join(this.opts.dir, `${requestId}.json`);
  }

  private async put(record: StoredRecord, durable = true): Promise<void> {
    this.records.set(record.request_id, record);
    const text = JSON.stringify(record);
    await this.chain(record.request_id, () => this.atomicWrite(this.file(record.request_id), text, durable));
  }

  private chain(requestId: string, write: () => Promise<void>): Promise<void> {
    const next = (this.writes.get(requestId) ?? Promise.resolve()).then(write, write);
    this.writes.set(requestId, next);
    const forget = () => {
      if (this.writes.get(requestId) === next) this.writes.delete(requestId);
    };
    next.then(forget, forget); // the caller sees the error; this branch only tidies up

    return next;
  }

  private async atomicWrite(path: string, text: string, durable: boolean): Promise<void> {
    const tmp = `${path}.tmp-${process.pid}-${this.tmpCounter++}`;
    const handle = await open(tmp, "w", 0o600);
    try {
      await handle.writeFile(text);
      // On an SD card, rename without fsync can survive a power cut as an empty file.
      if (durable) await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, path);
  }
}
