/** The device agent's results by request_id, so a command runs at most once. */
import { closeSync, fdatasync, fdatasyncSync, mkdirSync, openSync, renameSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import type { ResultFrame } from "@edgeloop/protocol/device-frames";
import { parseJson } from "@edgeloop/protocol/parse";
import {
  closeQuietly,
  type DoneRecord,
  JOURNAL_FILE,
  JournalLine,
  journalLines,
  type RunningRecord,
  removeUnfinishedWrites,
  type StoredRecord,
  syncDir,
  unlinkQuietly,
  writeAll,
} from "./result-journal.js";

export type { DoneRecord, StoredRecord } from "./result-journal.js";
export { JOURNAL_FILE } from "./result-journal.js";

export type ResultStoreOptions = {
  dir: string;
  maxEntries: number;
  ttlMs: number;
  now?: () => number;
  onWarning?: (msg: string, fields: Record<string, unknown>) => void;
  /** the background disk flush of the journal; tests slow it down to see what waits for it */
  sync?: (fd: number) => Promise<void>;
};

/** Lines beyond 2 per live record before a compaction: keeps rewrites rare for small stores. */
const COMPACT_SLACK_LINES = 256;
/** Expired results are dropped this often (or every TTL, if shorter); over the count bound, at once. */
const PRUNE_EVERY_MS = 60_000;

const fdatasyncAsync = promisify(fdatasync);

/**
 * Results by request_id, on disk, so a command delivered twice (a hub retry, a reconnect, an agent
 * restart) runs at most once.
 *
 * On disk it is one append-only journal, `results.jsonl`: a line per change (a tool started, a
 * result, ids acked, ids forgotten), replayed at start. Appends are plain synchronous writes: once
 * `writeSync` returns the line is in the page cache, which survives an agent crash or kill; only
 * a power cut needs the fdatasync, which runs in the background (see `requestSync`). A torn last
 * line (a power cut mid-append) is skipped at load. When the journal holds far more lines than
 * records it is rewritten with just the live records (`compact`).
 *
 * A "running" record is written when a tool starts. If the agent dies while the tool runs, the
 * next start turns that record into an error result instead of running the tool a second time.
 */
export class ResultStore {
  /** Insertion order is finish order (finish re-inserts), so the oldest results come first. */
  private readonly records = new Map<string, StoredRecord>();
  private readonly path: string;
  private fd = -1;
  /** lines in the journal file, readable or not */
  private lines = 0;
  /** after a failed compaction, do not retry on every append */
  private compactRetryAtLines = 0;
  private lastPrune: number;
  /** the last append failed, maybe half-way */
  private broken = false;
  private syncing: Promise<void> | null = null;
  private syncAgain = false;
  /** appended since the last fdatasync started */
  private unsynced = false;
  private readonly now: () => number;
  private readonly sync: (fd: number) => Promise<void>;

  private constructor(private readonly opts: ResultStoreOptions) {
    this.now = opts.now ?? Date.now;
    this.sync = opts.sync ?? fdatasyncAsync;
    this.path = join(opts.dir, JOURNAL_FILE);
    this.lastPrune = this.now();
  }

  static async open(opts: ResultStoreOptions): Promise<ResultStore> {
    const store = new ResultStore(opts);
    mkdirSync(opts.dir, { recursive: true });
    store.load();
    return store;
  }

  private load(): void {
    removeUnfinishedWrites(this.opts.dir);
    let rewrite = this.replayJournal();
    // Tools that were running when the agent stopped: report, never re-run (at most once).
    for (const record of [...this.records.values()]) {
      if (record.state !== "running") continue;
      this.setRecord(this.interrupted(record));
      rewrite = true;
    }
    if (rewrite || this.compactionDue()) {
      this.compact();
    } else {
      this.fd = openSync(this.path, "a", 0o600);
      this.prune();
    }
  }

  /** Replays the journal; true if it needs a rewrite (unreadable lines, a torn last line). */
  private replayJournal(): boolean {
    let bad = 0;
    let firstBad: { line: number; error: string } | null = null;
    let torn = false;
    for (const line of journalLines(this.path)) {
      this.lines++;
      torn = line.torn;
      const parsed = parseJson(JournalLine, line.text);
      if (parsed.ok) {
        this.apply(parsed.value);
        continue;
      }
      bad++;
      firstBad ??= { line: this.lines, error: parsed.error };
    }
    if (firstBad) {
      this.opts.onWarning?.("result store: unreadable journal lines skipped", {
        file: this.path,
        count: bad,
        first_line: firstBad.line,
        error: firstBad.error,
      });
    }
    // Appending after a line without its newline would glue the next record onto it.
    return bad > 0 || torn;
  }

  private apply(line: JournalLine): void {
    switch (line.state) {
      case "running":
      case "done":
        this.setRecord(line);
        return;
      case "acked":
        for (const id of line.request_ids) {
          const record = this.records.get(id);
          if (record?.state === "done") this.records.set(id, { ...record, acked: true });
        }
        return;
      case "forgotten":
        for (const id of line.request_ids) this.records.delete(id);
        return;
    }
  }

  private interrupted(record: RunningRecord): DoneRecord {
    return {
      state: "done",
      request_id: record.request_id,
      tool: record.tool,
      started_at: record.started_at,
      finished_at: this.now(),
      acked: false,
      result: {
        type: "result",
        request_id: record.request_id,
        status: "error",
        tool: record.tool,
        error: `The device agent restarted while '${record.tool}' was running; it may have partly run and was not started again.`,
        error_type: "execution_failed",
      },
    };
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
   * The "running" marker is appended but not fsynced: it guards against re-running after an agent
   * crash (the page cache survives that); only a power cut mid-tool can lose it.
   */
  begin(requestId: string, tool: string): void {
    this.put({ state: "running", request_id: requestId, tool, started_at: this.now() });
  }

  /**
   * On return the result is in the journal (page cache): the caller may send it. The fdatasync
   * that makes it survive a power cut follows in the background, after the caller's send;
   * `flush()` waits for it.
   */
  finish(result: ResultFrame, startedAt?: number): DoneRecord & { json: string } {
    const prev = this.records.get(result.request_id);
    // The agent built this frame itself: no validation here (what is read back at load is validated).
    const record: DoneRecord = {
      state: "done",
      request_id: result.request_id,
      tool: result.tool,
      started_at: startedAt ?? prev?.started_at ?? this.now(),
      finished_at: this.now(),
      acked: false,
      result,
    };
    // The result's JSON is made once: the journal line holds it, and the caller sends it as it is.
    const json = JSON.stringify(result);
    this.setRecord(record);
    const { result: _r, ...head } = record;
    this.appendText(`${JSON.stringify(head).slice(0, -1)},"result":${json}}`);
    // Started once the caller's synchronous work is done: the caller sends the result next, and an
    // fdatasync begun first competes with that send (and the hub's read of it) for the CPU.
    setImmediate(() => this.requestSync());
    if (
      this.records.size > this.opts.maxEntries ||
      this.now() - this.lastPrune >= Math.min(PRUNE_EVERY_MS, this.opts.ttlMs)
    )
      this.prune();
    return { ...record, json };
  }

  /** The hub has the result; keep it (for dedupe, until TTL) but stop re-sending it. */
  ack(requestIds: string[]): void {
    const acked: string[] = [];
    for (const id of requestIds) {
      const record = this.records.get(id);
      if (record?.state !== "done" || record.acked) continue;
      this.records.set(id, { ...record, acked: true });
      acked.push(id);
    }
    // Not fsynced: losing an ack only means one more re-send, which the hub drops as a duplicate.
    if (acked.length > 0) this.append({ state: "acked", request_ids: acked });
  }

  /** Forget a record (a command that was refused before it started, a pruned result). */
  remove(requestId: string): void {
    if (this.records.delete(requestId)) this.append({ state: "forgotten", request_ids: [requestId] });
  }

  /** Drop expired records, then the oldest (acked first) beyond the bound; never a running one. */
  prune(): void {
    const gone = this.pruneRecords();
    if (gone.length > 0) this.append({ state: "forgotten", request_ids: gone });
  }

  /** Wait until everything written so far is on disk (shutdown, tests). */
  async flush(): Promise<void> {
    if (this.unsynced) this.requestSync();
    await this.syncing;
  }

  private pruneRecords(): string[] {
    const now = this.now();
    this.lastPrune = now;
    const gone: string[] = [];
    for (const r of this.records.values()) {
      if (r.state === "done" && now - r.finished_at > this.opts.ttlMs) gone.push(r.request_id);
    }
    for (const id of gone) this.records.delete(id);
    // Oldest first is map order: one pass for the acked ones, one for the rest, no sort.
    for (const acked of [true, false]) {
      for (const r of this.records.values()) {
        if (this.records.size <= this.opts.maxEntries) return gone;
        if (r.state !== "done" || r.acked !== acked) continue;
        this.records.delete(r.request_id);
        gone.push(r.request_id);
      }
    }
    return gone;
  }

  private setRecord(record: StoredRecord): void {
    this.records.delete(record.request_id);
    this.records.set(record.request_id, record);
  }

  private put(record: StoredRecord): void {
    this.setRecord(record);
    this.append(record);
  }

  private append(line: JournalLine): void {
    this.appendText(JSON.stringify(line));
  }

  /** One journal line: `json` is the line's JSON, without its newline. */
  private appendText(json: string): void {
    const text = `${json}\n`;
    try {
      // After a failed write (a full disk) part of a line may be there: end it, so it stays one bad line.
      writeAll(this.fd, this.broken ? `\n${text}` : text);
      this.broken = false;
    } catch (e) {
      this.broken = true;
      throw e;
    }
    this.lines++;
    this.unsynced = true;
    if (this.compactionDue() && this.lines >= this.compactRetryAtLines) {
      try {
        this.compact();
      } catch (e) {
        // The journal is intact (the rewrite goes to a temp file); try again after more appends.
        this.compactRetryAtLines = this.lines + COMPACT_SLACK_LINES;
        this.opts.onWarning?.("result store: compaction failed", { file: this.path, error: (e as Error).message });
      }
    }
  }

  private compactionDue(): boolean {
    return this.lines > 2 * this.records.size + COMPACT_SLACK_LINES;
  }

  /**
   * Rewrites the journal with only the live records: temp file, fsync, rename over the journal,
   * fsync the directory. Synchronous: it is rare, and nothing may append in between.
   */
  private compact(): void {
    this.pruneRecords();
    const tmp = `${this.path}.tmp-${process.pid}`;
    const fd = openSync(tmp, "w", 0o600);
    try {
      let chunk = "";
      for (const record of this.records.values()) {
        chunk += `${JSON.stringify(record)}\n`;
        if (chunk.length >= 1 << 20) {
          writeAll(fd, chunk);
          chunk = "";
        }
      }
      writeAll(fd, chunk);
      // On an SD card, rename without fsync can survive a power cut as an empty file.
      fdatasyncSync(fd);
      closeSync(fd);
      renameSync(tmp, this.path);
    } catch (e) {
      closeQuietly(fd);
      unlinkQuietly(tmp);
      throw e;
    }
    syncDir(this.opts.dir);
    this.reopen();
    this.lines = this.records.size;
    this.compactRetryAtLines = 0;
    this.broken = false;
    this.unsynced = false;
  }

  private reopen(): void {
    const old = this.fd;
    this.fd = openSync(this.path, "a", 0o600);
    if (old < 0) return;
    // A background sync may still be using the old descriptor.
    if (this.syncing) void this.syncing.then(() => closeQuietly(old));
    else closeQuietly(old);
  }

  /**
   * Group commit: at most one fdatasync in flight; whatever is written meanwhile is covered by
   * the next one. Nobody waits for it but `flush()`.
   */
  private requestSync(): void {
    if (this.syncing) {
      this.syncAgain = true;
      return;
    }
    this.syncing = this.syncLoop();
  }

  private async syncLoop(): Promise<void> {
    do {
      this.syncAgain = false;
      this.unsynced = false;
      try {
        await this.sync(this.fd);
      } catch (e) {
        this.opts.onWarning?.("result store: fsync failed", { file: this.path, error: (e as Error).message });
      }
    } while (this.syncAgain);
    this.syncing = null;
  }
}
