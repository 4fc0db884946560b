import { randomBytes } from "node:crypto";
import { deflateSync } from "node:zlib";

/**
 * A valid RGB PNG of noise, about `bytes` long: noise does not compress, so its size is its pixels'
 * (a screenshot or a camera frame is as large after the device fits it). 256 pixels wide.
 */
export function noisePng(bytes: number): Buffer {
  const width = 256;
  const height = Math.max(1, Math.round(bytes / (width * 3 + 1)));
  const raw = Buffer.alloc(height * (width * 3 + 1));
  for (let y = 0; y < height; y++) randomBytes(width * 3).copy(raw, y * (width * 3 + 1) + 1); // filter 0
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, deflate, no filter method, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(raw)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** CRC-32 as PNG chunks use it (Node 20 has no zlib.crc32). */
function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (const byte of buf) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  }
  return (c ^ 0xffffffff) >>> 0;
}
