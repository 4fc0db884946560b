/** The result store's on-disk format (records, journal lines) and file I/O. */
import { closeSync, fsyncSync, openSync, readdirSync, readSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
import { ResultFrame } from "@edgeloop/protocol/device-frames";
import { Identifier, ToolName } from "@edgeloop/protocol/ids";
import { z } from "zod";

export const RunningRecord = z.object({
  state: z.literal("running"),
  request_id: Identifier,
  tool: ToolName,
  started_at: z.number(),
});
export const DoneRecord = z.object({
  state: z.literal("done"),
  request_id: Identifier,
  tool: ToolName,
  started_at: z.number(),
  finished_at: z.number(),
  acked: z.boolean(),
  result: ResultFrame,
});
export const StoredRecord = z.discriminatedUnion("state", [RunningRecord, DoneRecord]);
export type StoredRecord = z.infer<typeof StoredRecord>;
export type DoneRecord = z.infer<typeof DoneRecord>;
export type RunningRecord = z.infer<typeof RunningRecord>;

/** A record as it is now, or ids whose result the hub has (`acked`) or that were pruned (`forgotten`). */
export const JournalLine = z.discriminatedUnion("state", [
  RunningRecord,
  DoneRecord,
  z.object({ state: z.literal("acked"), request_ids: z.array(Identifier) }),
  z.object({ state: z.literal("forgotten"), request_ids: z.array(Identifier) }),
]);
export type JournalLine = z.infer<typeof JournalLine>;

export const JOURNAL_FILE = "results.jsonl";

/** Removes what a compaction the last run did not finish left behind (`results.jsonl.tmp-<pid>`). */
export function removeUnfinishedWrites(dir: string): void {
  for (const name of readdirSync(dir)) {
    if (name.startsWith(`${JOURNAL_FILE}.tmp-`)) unlinkQuietly(join(dir, name));
  }
}

/** The file's lines, read in chunks (a journal can outgrow one string); `torn`: no final newline. */
export function* journalLines(path: string): Generator<{ text: string; torn: boolean }> {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return;
    throw e;
  }
  try {
    const buf = Buffer.allocUnsafe(1 << 16);
    let partial: Buffer[] = [];
    for (let n = readSync(fd, buf); n > 0; n = readSync(fd, buf)) {
      const chunk = buf.subarray(0, n);
      let start = 0;
      for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
        partial.push(chunk.subarray(start, nl));
        yield { text: Buffer.concat(partial).toString("utf8"), torn: false };
        partial = [];
        start = nl + 1;
      }
      if (start < n) partial.push(Buffer.from(chunk.subarray(start))); // a copy: buf is reused
    }
    if (partial.length > 0) yield { text: Buffer.concat(partial).toString("utf8"), torn: true };
  } finally {
    closeSync(fd);
  }
}

export function writeAll(fd: number, text: string): void {
  const bytes = Buffer.from(text);
  for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done);
}

/** So the rename itself survives a power cut; not every platform can fsync a directory. */
export function syncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, "r");
    fsyncSync(fd);
  } catch {
    // best effort
  } finally {
    if (fd !== undefined) closeQuietly(fd);
  }
}

export function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}

export function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // already closed
  }
}
