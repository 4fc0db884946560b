/**
 * The type and pixel size of an image, read from its header alone. Workers cannot run an image
 * library (sharp needs native code), and the size is all the conversation needs to hold a picture
 * to the model's limits (docs/images.md). Pure: PNG, JPEG, GIF and WebP, the formats every
 * provider reads; anything else, or a header cut short, is null.
 */
export type ImageSize = {
  media_type: "image/png" | "image/jpeg" | "image/gif" | "image/webp";
  width: number;
  height: number;
};

export function imageSize(bytes: Uint8Array): ImageSize | null {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return png(bytes);
  if (startsWith(bytes, [0xff, 0xd8])) return jpeg(bytes);
  if (ascii(bytes, 0, 6) === "GIF87a" || ascii(bytes, 0, 6) === "GIF89a") return gif(bytes);
  if (ascii(bytes, 0, 4) === "RIFF" && ascii(bytes, 8, 4) === "WEBP") return webp(bytes);
  return null;
}

function png(b: Uint8Array): ImageSize | null {
  // The first chunk is IHDR: width and height, 4 bytes each, big-endian.
  if (b.length < 24 || ascii(b, 12, 4) !== "IHDR") return null;
  return sized("image/png", u32be(b, 16), u32be(b, 20));
}

function gif(b: Uint8Array): ImageSize | null {
  if (b.length < 10) return null;
  return sized("image/gif", u16le(b, 6), u16le(b, 8));
}

function webp(b: Uint8Array): ImageSize | null {
  const chunk = ascii(b, 12, 4);
  if (chunk === "VP8 " && b.length >= 30) {
    // Lossy: the key frame's start code, then 14-bit width and height.
    if (b[23] !== 0x9d || b[24] !== 0x01 || b[25] !== 0x2a) return null;
    return sized("image/webp", u16le(b, 26) & 0x3fff, u16le(b, 28) & 0x3fff);
  }
  if (chunk === "VP8L" && b.length >= 25) {
    // Lossless: a signature byte, then width-1 and height-1 in 14 bits each, packed.
    if (b[20] !== 0x2f) return null;
    const bits = b[21]! | (b[22]! << 8) | (b[23]! << 16) | (b[24]! << 24);
    return sized("image/webp", (bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1);
  }
  if (chunk === "VP8X" && b.length >= 30) {
    // Extended: the canvas's width-1 and height-1, 24 bits each.
    return sized("image/webp", u24le(b, 24) + 1, u24le(b, 27) + 1);
  }
  return null;
}

/** Start-of-frame markers (baseline, progressive, lossless, arithmetic); not DHT (C4), JPG (C8), DAC (CC). */
const SOF = new Set([0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf]);

function jpeg(b: Uint8Array): ImageSize | null {
  let i = 2;
  while (i + 3 < b.length) {
    if (b[i] !== 0xff) return null;
    const marker = b[i + 1]!;
    // Fill bytes before a marker, and markers without a length (restart, TEM).
    if (marker === 0xff) {
      i += 1;
      continue;
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      i += 2;
      continue;
    }
    const length = u16be(b, i + 2);
    if (length < 2) return null;
    if (SOF.has(marker)) {
      if (i + 9 > b.length) return null;
      return sized("image/jpeg", u16be(b, i + 7), u16be(b, i + 5));
    }
    // The image data starts (SOS) or ends (EOI) before any frame header: not a readable JPEG.
    if (marker === 0xda || marker === 0xd9) return null;
    i += 2 + length;
  }
  return null;
}

function sized(media_type: ImageSize["media_type"], width: number, height: number): ImageSize | null {
  return width > 0 && height > 0 ? { media_type, width, height } : null;
}

function startsWith(b: Uint8Array, prefix: number[]): boolean {
  return b.length >= prefix.length && prefix.every((v, i) => b[i] === v);
}

function ascii(b: Uint8Array, at: number, length: number): string {
  if (b.length < at + length) return "";
  return String.fromCharCode(...b.subarray(at, at + length));
}

const u16be = (b: Uint8Array, i: number) => (b[i]! << 8) | b[i + 1]!;
const u16le = (b: Uint8Array, i: number) => b[i]! | (b[i + 1]! << 8);
const u24le = (b: Uint8Array, i: number) => b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16);
const u32be = (b: Uint8Array, i: number) => ((b[i]! << 24) | (b[i + 1]! << 16) | (b[i + 2]! << 8) | b[i + 3]!) >>> 0;
