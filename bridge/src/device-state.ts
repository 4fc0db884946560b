import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from "node:fs";
import { join } from "node:path";
import { Identifier, ResultFrame, ToolName } from "@edgeloop/protocol";
import { MqttToolCommand } from "@edgeloop/protocol/mqtt-payloads";
import { z } from "zod";

/** A command published to the device and not answered yet. */
export const Outstanding = z.object({
  request_id: Identifier,
  tool: ToolName,
  sent_at: z.number(),
  /** after this the hub has long given up on it (timeout + grace): forget it */
  expires_at: z.number(),
  command: MqttToolCommand,
});
export type Outstanding = z.infer<typeof Outstanding>;

const StateFile = z.object({
  outstanding: z.array(Outstanding).default([]),
  /** results the hub has not acknowledged yet, in arrival order */
  unacked: z.array(ResultFrame).default([]),
  /** request ids answered recently, to drop QoS 1 repeats of their reports */
  done: z.array(z.object({ id: z.string(), at: z.number() })).default([]),
});
type StateFile = z.infer<typeof StateFile>;

const DONE_MAX = 2_000;
const DONE_TTL_MS = 24 * 60 * 60 * 1000;
/** How long past its timeout a command stays outstanding (the hub's own grace is seconds). */
export const OUTSTANDING_GRACE_MS = 5 * 60 * 1000;

export type Match = { found: Outstanding; guessed: boolean } | { found: null; duplicate: boolean };

/**
 * One device's bridge state, on disk: what was sent and not answered, and what was answered and
 * not acked. Every change is written (temp file, fsync, rename) before the bridge acts on it, so a
 * bridge restart loses nothing it had acknowledged.
 */
export class DeviceState {
  private constructor(
    private readonly file: string | null,
    private data: StateFile,
  ) {}

  /** A missing file is a new device; an unreadable one is logged by the caller and started fresh. */
  static open(dir: string | null, agentId: string, onWarning: (msg: string) => void = () => {}): DeviceState {
    if (!dir) return new DeviceState(null, StateFile.parse({}));
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const file = join(dir, `${agentId}.json`);
    let data = StateFile.parse({});
    try {
      const parsed = StateFile.safeParse(JSON.parse(readFileSync(file, "utf8")));
      if (parsed.success) data = parsed.data;
      else onWarning(`state file ${file} is not valid (${parsed.error.issues[0]?.message}); starting empty`);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT")
        onWarning(`state file ${file} unreadable (${(e as Error).message}); starting empty`);
    }
    return new DeviceState(file, data);
  }

  /** `hello.held`: in flight on the device, or answered and waiting for the hub's ack. */
  held(): string[] {
    return [
      ...new Set([...this.data.outstanding.map((o) => o.request_id), ...this.data.unacked.map((r) => r.request_id)]),
    ];
  }

  outstanding(): readonly Outstanding[] {
    return this.data.outstanding;
  }

  unacked(): readonly ResultFrame[] {
    return this.data.unacked;
  }

  /** False if it is already outstanding or answered (a re-sent command: publish again, keep one entry). */
  addOutstanding(entry: Outstanding): boolean {
    if (this.data.outstanding.some((o) => o.request_id === entry.request_id)) return false;
    this.data.outstanding.push(entry);
    this.save();
    return true;
  }

  /**
   * Which outstanding command a report answers. Without a request id: the oldest one for that
   * tool (or for the device, if the report names no tool either) — a guess, and said so.
   */
  match(requestId: string | undefined, tool: string | undefined): Match {
    if (requestId !== undefined) {
      const found = this.data.outstanding.find((o) => o.request_id === requestId);
      if (found) return { found, guessed: false };
      return { found: null, duplicate: this.isDone(requestId) };
    }
    const candidates = this.data.outstanding.filter((o) => tool === undefined || o.tool === tool);
    const oldest = candidates.sort((a, b) => a.sent_at - b.sent_at)[0];
    return oldest ? { found: oldest, guessed: true } : { found: null, duplicate: false };
  }

  /** The command is answered: its result waits for the hub's ack, its id is remembered for dedupe. */
  complete(result: ResultFrame, now = Date.now()): void {
    this.data.outstanding = this.data.outstanding.filter((o) => o.request_id !== result.request_id);
    this.data.unacked.push(result);
    this.data.done.push({ id: result.request_id, at: now });
    if (this.data.done.length > DONE_MAX) this.data.done.splice(0, this.data.done.length - DONE_MAX);
    this.save();
  }

  ack(ids: string[]): void {
    const set = new Set(ids);
    const before = this.data.unacked.length;
    this.data.unacked = this.data.unacked.filter((r) => !set.has(r.request_id));
    if (this.data.unacked.length !== before) this.save();
  }

  isDone(requestId: string): boolean {
    return this.data.done.some((d) => d.id === requestId) || this.data.unacked.some((r) => r.request_id === requestId);
  }

  /** Drops commands long past their deadline and old dedupe entries; returns the commands dropped. */
  expire(now = Date.now()): Outstanding[] {
    const gone = this.data.outstanding.filter((o) => o.expires_at <= now);
    const doneBefore = this.data.done.length;
    this.data.done = this.data.done.filter((d) => now - d.at < DONE_TTL_MS);
    if (gone.length > 0) this.data.outstanding = this.data.outstanding.filter((o) => o.expires_at > now);
    if (gone.length > 0 || this.data.done.length !== doneBefore) this.save();
    return gone;
  }

  private save(): void {
    if (!this.file) return;
    const tmp = `${this.file}.tmp`;
    const fd = openSync(tmp, "w");
    try {
      writeSync(fd, JSON.stringify(this.data));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, this.file);
  }
}
