/**
 * Collects a stream up to `cap` bytes. Beyond the cap it keeps counting but drops the bytes, so a
 * tool that prints 5 GB neither fills memory nor blocks on a full pipe.
 */
export class CappedBuffer {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  private total = 0;

  constructor(private readonly cap: number) {}

  push(chunk: Buffer): void {
    this.total += chunk.length;
    const room = this.cap - this.kept;
    if (room <= 0) return;
    const part = chunk.length <= room ? chunk : chunk.subarray(0, room);
    this.chunks.push(part);
    this.kept += part.length;
  }

  get bytesTotal(): number {
    return this.total;
  }

  get truncated(): boolean {
    return this.total > this.kept;
  }

  /** Text without a half-cut UTF-8 character at the end; bytesReturned counts what the text holds. */
  text(): { text: string; bytesReturned: number } {
    let buf = Buffer.concat(this.chunks, this.kept);
    if (this.truncated) buf = buf.subarray(0, completeUtf8Length(buf));
    return { text: buf.toString("utf8"), bytesReturned: buf.length };
  }
}

/** Length of `buf` without a trailing incomplete UTF-8 sequence. */
export function completeUtf8Length(buf: Buffer): number {
  let i = buf.length - 1;
  let continuation = 0;
  // Walk back over at most 3 continuation bytes (10xxxxxx) to the lead byte.
  while (i >= 0 && continuation < 3 && (buf[i]! & 0xc0) === 0x80) {
    i--;
    continuation++;
  }
  if (i < 0) return buf.length;
  const lead = buf[i]!;
  const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return need === continuation + 1 || need === 1 ? buf.length : i;
}
