/** The image's type and size from its header, checked against what a real encoder (sharp) writes. */
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { imageSize } from "../../../durable-objects/conversation/core/index.js";

const pixels = (width: number, height: number, channels: 3 | 4 = 3) =>
  sharp({ create: { width, height, channels, background: { r: 200, g: 30, b: 90, alpha: 0.5 } } });

describe("imageSize", () => {
  it("reads PNG, JPEG (baseline and progressive), GIF and WebP (lossy, lossless, with alpha) as encoded", async () => {
    const cases: [Buffer, string][] = [
      [await pixels(641, 479).png().toBuffer(), "image/png"],
      [await pixels(641, 479).jpeg().toBuffer(), "image/jpeg"],
      [await pixels(641, 479).jpeg({ progressive: true }).toBuffer(), "image/jpeg"],
      [await pixels(641, 479).gif().toBuffer(), "image/gif"],
      [await pixels(641, 479).webp({ quality: 60 }).toBuffer(), "image/webp"],
      [await pixels(641, 479).webp({ lossless: true }).toBuffer(), "image/webp"],
      [await pixels(641, 479, 4).webp({ quality: 60 }).toBuffer(), "image/webp"],
    ];
    for (const [bytes, media_type] of cases) {
      expect(imageSize(bytes)).toEqual({ media_type, width: 641, height: 479 });
    }
  });

  it("reads a JPEG whose frame header comes after EXIF and other segments", async () => {
    const jpeg = await pixels(300, 2000)
      .jpeg()
      .withMetadata({ exif: { IFD0: { Copyright: "edgeloop" } } })
      .toBuffer();
    expect(imageSize(jpeg)).toEqual({ media_type: "image/jpeg", width: 300, height: 2000 });
  });

  it("is null for other formats, cut headers and junk, never a guess", async () => {
    const png = await pixels(10, 10).png().toBuffer();
    expect(imageSize(png.subarray(0, 20))).toBeNull();
    expect(imageSize(await pixels(10, 10).tiff().toBuffer())).toBeNull();
    expect(imageSize(new TextEncoder().encode("<svg xmlns='http://www.w3.org/2000/svg'/>"))).toBeNull();
    expect(imageSize(new Uint8Array([0xff, 0xd8, 0xff, 0xda, 0, 4, 0, 0]))).toBeNull();
    expect(imageSize(new Uint8Array(0))).toBeNull();
  });
});

/** Headers built byte by byte: the edges a real encoder never writes (issue 39: image-size.ts's mutants). */
const bytes = (...parts: (number[] | string)[]) =>
  new Uint8Array(parts.flatMap((p) => (typeof p === "string" ? [...p].map((c) => c.charCodeAt(0)) : p)));
const zeros = (n: number) => new Array<number>(n).fill(0);

describe("imageSize: PNG and GIF headers", () => {
  const png = (w: number[], h: number[], chunk = "IHDR") =>
    bytes([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], [0, 0, 0, 13], chunk, w, h);

  it("reads the IHDR's big-endian width and height, from exactly 24 bytes", () => {
    expect(imageSize(png([0, 1, 0x02, 0x03], [0, 0, 0, 7]))).toEqual({
      media_type: "image/png",
      width: 66051,
      height: 7,
    });
    expect(imageSize(png([0x80, 0, 0, 0], [0, 0, 0, 1]))?.width).toBe(2 ** 31);
    expect(imageSize(png([0, 0, 0, 5], [0, 0, 1, 0]).subarray(0, 23))).toBeNull();
    expect(imageSize(png([0, 0, 0, 5], [0, 0, 0, 7], "IDAT"))).toBeNull();
    expect(imageSize(png([0, 0, 0, 0], [0, 0, 0, 7]))).toBeNull();
    expect(imageSize(png([0, 0, 0, 5], [0, 0, 0, 0]))).toBeNull();
    // One byte of the signature wrong: not a PNG, however good the IHDR after it.
    expect(
      imageSize(
        bytes([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0b], [0, 0, 0, 13], "IHDR", [0, 0, 0, 5], [0, 0, 0, 7]),
      ),
    ).toBeNull();
  });

  it("reads both GIF versions' little-endian size, from exactly 10 bytes", () => {
    expect(imageSize(bytes("GIF87a", [0x02, 0x01, 3, 0]))).toEqual({ media_type: "image/gif", width: 258, height: 3 });
    expect(imageSize(bytes("GIF89a", [1, 0, 0x04, 0x01]))).toEqual({ media_type: "image/gif", width: 1, height: 260 });
    expect(imageSize(bytes("GIF89a", [1, 0, 1]))).toBeNull();
    expect(imageSize(bytes("GIF88a", [1, 0, 1, 0]))).toBeNull();
  });
});

describe("imageSize: WebP's three chunk kinds", () => {
  const riff = (chunk: string, body: number[]) => bytes("RIFF", [0, 0, 0, 0], "WEBP", chunk, body);
  // VP8: chunk size (4), frame tag (3), start code 9d 01 2a, then 14-bit width and height.
  const lossy = (start = [0x9d, 0x01, 0x2a], w = [0x81, 0xc2], h = [0xdf, 0x01]) =>
    riff("VP8 ", [...zeros(4), ...zeros(3), ...start, ...w, ...h]);

  it("lossy: the 14-bit size after the key frame's start code, from exactly 30 bytes", () => {
    expect(lossy().length).toBe(30);
    // 0xc281: the top two bits are the scale, not the width.
    expect(imageSize(lossy())).toEqual({ media_type: "image/webp", width: 0x0281, height: 0x01df });
    expect(imageSize(lossy().subarray(0, 29))).toBeNull();
    for (const start of [
      [0x9c, 0x01, 0x2a],
      [0x9d, 0x02, 0x2a],
      [0x9d, 0x01, 0x2b],
    ])
      expect(imageSize(lossy(start))).toBeNull();
  });

  it("lossless: width-1 and height-1 packed in 14 bits each after the signature, from exactly 25 bytes", () => {
    const packed = (w: number, h: number, signature = 0x2f) => {
      const bits = (w - 1) | ((h - 1) << 14);
      return riff("VP8L", [
        ...zeros(4),
        signature,
        bits & 0xff,
        (bits >>> 8) & 0xff,
        (bits >>> 16) & 0xff,
        (bits >>> 24) & 0xff,
      ]);
    };
    expect(packed(641, 479).length).toBe(25);
    expect(imageSize(packed(641, 479))).toEqual({ media_type: "image/webp", width: 641, height: 479 });
    expect(imageSize(packed(16384, 16384))).toEqual({ media_type: "image/webp", width: 16384, height: 16384 });
    expect(imageSize(packed(641, 479, 0x2e))).toBeNull();
    expect(imageSize(packed(641, 479).subarray(0, 24))).toBeNull();
  });

  it("extended: the canvas's 24-bit width-1 and height-1, from exactly 30 bytes", () => {
    const extended = riff("VP8X", [...zeros(4), ...zeros(4), 0x6f, 0x11, 0x01, 0x02, 0x00, 0x00]);
    expect(extended.length).toBe(30);
    expect(imageSize(extended)).toEqual({ media_type: "image/webp", width: 0x01116f + 1, height: 3 });
    expect(imageSize(extended.subarray(0, 29))).toBeNull();
    expect(imageSize(riff("VP8Y", zeros(14)))).toBeNull();
    expect(imageSize(bytes("RIFF", [0, 0, 0, 0], "WAVE", "VP8X", zeros(14)))).toBeNull();
    expect(imageSize(bytes("RIFX", [0, 0, 0, 0], "WEBP", "VP8X", zeros(14)))).toBeNull();
  });
});

describe("imageSize: JPEG segments", () => {
  const jpeg = (...segments: number[][]) => bytes([0xff, 0xd8], ...segments);
  /** A frame header: length 17, precision, then big-endian height and width. */
  const frame = (marker: number, w = [0x02, 0x81], h = [0x01, 0xdf]) => [0xff, marker, 0, 17, 8, ...h, ...w];
  const app0 = [0xff, 0xe0, 0, 4, 0, 0];

  it("reads the size from every start-of-frame marker, and from none of the others", () => {
    for (const marker of [0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf])
      expect(imageSize(jpeg(frame(marker)))).toEqual({ media_type: "image/jpeg", width: 641, height: 479 });
    // DHT, JPG and DAC are segments like any other: skipped by their length, then the frame is read.
    for (const marker of [0xc4, 0xc8, 0xcc])
      expect(imageSize(jpeg([0xff, marker, 0, 2], frame(0xc0), [0xff, 0xd9]))?.width).toBe(641);
    expect(imageSize(jpeg(frame(0xc0, [0, 0])))).toBeNull();
  });

  it("skips segments by their length, fill bytes and the markers that have none", () => {
    expect(imageSize(jpeg(app0, [0xff, 0xff], [0xff, 0x01], [0xff, 0xd0], [0xff, 0xd7], frame(0xc2)))?.height).toBe(
      479,
    );
    expect(imageSize(jpeg([0xff, 0xe1, 0, 2], frame(0xc0)))?.width).toBe(641);
    // A segment's length counts its own two bytes: read as one byte more or less, the walk lands off a marker.
    expect(imageSize(jpeg([0xff, 0xe1, 0, 3, 0xaa], frame(0xc0)))?.width).toBe(641);
  });

  it("is null where the walk cannot go on: a length under 2, data before a frame, a cut frame, a stray byte", () => {
    expect(imageSize(jpeg([0xff, 0xe0, 0, 1], frame(0xc0)))).toBeNull();
    expect(imageSize(jpeg([0xff, 0xda, 0, 2], frame(0xc0)))).toBeNull();
    expect(imageSize(jpeg([0xff, 0xd9, 0, 2], frame(0xc0)))).toBeNull();
    expect(imageSize(jpeg(app0, [0x00, 0xc0, 0, 17], frame(0xc0)))).toBeNull();
    // The frame header's width ends at its ninth byte: eight are not enough.
    expect(imageSize(jpeg(frame(0xc0).slice(0, 9)))?.width).toBe(641);
    expect(imageSize(jpeg(frame(0xc0).slice(0, 8)))).toBeNull();
    expect(imageSize(jpeg([0xff, 0xe0, 0, 4]))).toBeNull();
  });
});
