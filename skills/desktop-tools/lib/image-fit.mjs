// @ts-check
// Makes an image fit size limits (max width, height and bytes) before it is sent
// to an LLM: scale down first, then re-encode, lowering JPEG/WebP quality until it fits.
import sharp from "sharp";
import { failedError, usageError } from "./exit.mjs";
import { envInt } from "./text-cap.mjs";

const PASS_THROUGH_FORMATS = new Set(["png", "jpeg", "webp", "gif"]);
const QUALITIES = [85, 70, 55, 40, 25];
const SHRINK_STEP = 0.7;
const MAX_SHRINKS = 6;

/**
 * @typedef {{ maxWidth: number, maxHeight: number, maxBytes: number }} ImageLimits
 * @typedef {{ data: Buffer, mimeType: string, width: number, height: number,
 *   originalWidth: number, originalHeight: number, originalFormat: string, resized: boolean }} FittedImage
 */

/** @returns {ImageLimits} */
export function imageLimitsFromEnv() {
  return {
    maxWidth: envInt("EDGELOOP_IMAGE_MAX_WIDTH", 1568),
    maxHeight: envInt("EDGELOOP_IMAGE_MAX_HEIGHT", 1568),
    maxBytes: envInt("EDGELOOP_IMAGE_MAX_BYTES", 1024 * 1024),
  };
}

/**
 * @param {Buffer} input any format sharp reads
 * @param {ImageLimits} limits
 * @returns {Promise<FittedImage>}
 */
export async function fitImage(input, limits) {
  let meta;
  try {
    meta = await sharp(input).metadata();
  } catch (err) {
    throw usageError(`not a supported image: ${err instanceof Error ? err.message : err}`);
  }
  const format = meta.format ?? "unknown";
  // EXIF orientations 5-8 swap width and height once applied.
  const swapped = (meta.orientation ?? 1) >= 5;
  const width = (swapped ? meta.height : meta.width) ?? 0;
  const height = (swapped ? meta.width : meta.height) ?? 0;
  const original = { originalWidth: width, originalHeight: height, originalFormat: format };

  const unrotated = (meta.orientation ?? 1) === 1;
  if (
    PASS_THROUGH_FORMATS.has(format) &&
    unrotated &&
    (meta.pages ?? 1) === 1 &&
    width <= limits.maxWidth &&
    height <= limits.maxHeight &&
    input.length <= limits.maxBytes
  ) {
    return { data: input, mimeType: `image/${format}`, width, height, ...original, resized: false };
  }

  // Lossless PNG first for graphics (screenshots, diagrams), where JPEG smears text.
  const tryPngFirst = format === "png" || format === "gif" || format === "svg";
  let boxWidth = Math.min(limits.maxWidth, width);
  let boxHeight = Math.min(limits.maxHeight, height);
  for (let shrink = 0; shrink <= MAX_SHRINKS; shrink++) {
    // Decode, rotate and scale once per size; each quality below only encodes these pixels.
    // Decoding a camera photo again for every try made a 1.4-megapixel JPEG take seconds.
    const pixels = await sharp(input)
      .rotate()
      .resize({
        width: Math.max(1, Math.floor(boxWidth)),
        height: Math.max(1, Math.floor(boxHeight)),
        fit: "inside",
        withoutEnlargement: true,
      })
      .raw()
      .toBuffer({ resolveWithObject: true });
    const resized = () =>
      sharp(pixels.data, {
        raw: { width: pixels.info.width, height: pixels.info.height, channels: pixels.info.channels },
      });
    if (tryPngFirst) {
      const png = await resized()
        .png({ compressionLevel: 9, adaptiveFiltering: true })
        .toBuffer({ resolveWithObject: true });
      if (png.data.length <= limits.maxBytes) return done(png, "image/png");
    }
    for (const quality of QUALITIES) {
      // WebP keeps transparency; JPEG is understood everywhere and smaller for photos.
      const encoded = meta.hasAlpha
        ? await resized().webp({ quality }).toBuffer({ resolveWithObject: true })
        : await resized().jpeg({ quality, mozjpeg: true }).toBuffer({ resolveWithObject: true });
      if (encoded.data.length <= limits.maxBytes) return done(encoded, meta.hasAlpha ? "image/webp" : "image/jpeg");
    }
    boxWidth *= SHRINK_STEP;
    boxHeight *= SHRINK_STEP;
  }
  throw failedError(`could not make the image fit in ${limits.maxBytes} bytes`);

  /** @param {{ data: Buffer, info: import("sharp").OutputInfo }} out @param {string} mimeType */
  function done(out, mimeType) {
    return { data: out.data, mimeType, width: out.info.width, height: out.info.height, ...original, resized: true };
  }
}
