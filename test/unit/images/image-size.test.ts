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
