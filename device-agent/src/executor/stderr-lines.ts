import { StringDecoder } from "node:string_decoder";
import { z } from "zod";
import { CappedBuffer } from "./capped-buffer.js";

const ProgressJson = z.object({ progress: z.unknown() });
/** A line longer than this is never a progress line; flush it as stderr rather than grow forever. */
const MAX_PENDING_LINE = 64 * 1024;

/** `progress: <text>` or `{"progress": "<text>"}` → the progress text; anything else → null. */
export function progressText(line: string): string | null {
  const plain = /^progress:\s?(.*)$/.exec(line);
  if (plain) return plain[1]!.trim();
  const trimmed = line.trim();
  if (!trimmed.startsWith("{") || !trimmed.endsWith("}")) return null;
  try {
    const parsed = ProgressJson.safeParse(JSON.parse(trimmed));
    if (!parsed.success || parsed.data.progress === undefined) return null;
    const p = parsed.data.progress;
    return typeof p === "string" ? p : JSON.stringify(p);
  } catch {
    return null;
  }
}

/**
 * Splits a tool's stderr into progress updates (forwarded, left out of stderr) and the rest
 * (kept, capped).
 */
export class StderrLines {
  readonly kept: CappedBuffer;
  private readonly decoder = new StringDecoder("utf8");
  private pending = "";

  constructor(
    cap: number,
    private readonly onProgress: (text: string) => void,
  ) {
    this.kept = new CappedBuffer(cap);
  }

  push(chunk: Buffer): void {
    this.pending += this.decoder.write(chunk);
    for (let nl = this.pending.indexOf("\n"); nl !== -1; nl = this.pending.indexOf("\n")) {
      this.line(this.pending.slice(0, nl), true);
      this.pending = this.pending.slice(nl + 1);
    }
    if (this.pending.length > MAX_PENDING_LINE) {
      this.kept.push(Buffer.from(this.pending));
      this.pending = "";
    }
  }

  end(): void {
    this.pending += this.decoder.end();
    if (this.pending.length > 0) this.line(this.pending, false);
    this.pending = "";
  }

  private line(line: string, hadNewline: boolean): void {
    const progress = progressText(line.replace(/\r$/, ""));
    if (progress !== null) {
      if (progress.length > 0) this.onProgress(progress);
      return;
    }
    this.kept.push(Buffer.from(hadNewline ? `${line}\n` : line));
  }
}
