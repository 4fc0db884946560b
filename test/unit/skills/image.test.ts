// image: a large generated PNG comes back within the configured width, height and byte limits.

import { writeFileSync } from "node:fs";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ContentResult, removeTempDirs, runTool, tempDir } from "./skill-runner.js";

let workspace: string;

/** A busy, hard-to-compress picture, so byte limits actually bite. */
async function noisyPng(width: number, height: number): Promise<Buffer> {
  const pixels = Buffer.alloc(width * height * 3);
  let seed = 12345;
  for (let i = 0; i < pixels.length; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    pixels[i] = (seed >> 16) & 0xff;
  }
  return sharp(pixels, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
}

beforeAll(async () => {
  workspace = tempDir("image");
  writeFileSync(path.join(workspace, "big.png"), await noisyPng(2400, 1600));
  writeFileSync(
    path.join(workspace, "small.png"),
    await sharp({ create: { width: 40, height: 30, channels: 4, background: "#ff000080" } })
      .png()
      .toBuffer(),
  );
  writeFileSync(path.join(workspace, "not-an-image.png"), "hello");
});

afterAll(removeTempDirs);

const image = (p: string, env: Record<string, string> = {}) =>
  runTool("desktop-tools", "dt-image", { path: p }, { workspace, env });

async function imageBlock(stdout: string) {
  const parsed = JSON.parse(stdout) as ContentResult;
  const block = parsed.content.find((b) => b.type === "image");
  if (block?.type !== "image") throw new Error("no image block");
  const data = Buffer.from(block.data, "base64");
  return { parsed, block, data, meta: await sharp(data).metadata() };
}

describe("image", () => {
  it("downscales and recompresses a large PNG to fit every limit", async () => {
    const run = await image("big.png", {
      EDGELOOP_IMAGE_MAX_WIDTH: "800",
      EDGELOOP_IMAGE_MAX_HEIGHT: "600",
      EDGELOOP_IMAGE_MAX_BYTES: "150000",
    });
    expect(run.code).toBe(0);
    const { parsed, block, data, meta } = await imageBlock(run.stdout);
    expect(data.length).toBeLessThanOrEqual(150_000);
    expect(meta.width).toBeLessThanOrEqual(800);
    expect(meta.height).toBeLessThanOrEqual(600);
    // Aspect ratio kept (3:2).
    expect(Math.abs((meta.width ?? 0) / (meta.height ?? 1) - 1.5)).toBeLessThan(0.02);
    expect(block.mimeType).toBe(`image/${meta.format}`);
    expect(parsed.content[0]).toEqual({ type: "text", text: parsed.result });
    expect(parsed.result).toContain("2400x1600");
  });

  it("uses the 1568 px default limits", async () => {
    const run = await image("big.png", { EDGELOOP_IMAGE_MAX_BYTES: "4000000" });
    const { meta, data } = await imageBlock(run.stdout);
    expect(meta.width).toBe(1568);
    expect(data.length).toBeLessThanOrEqual(4_000_000);
  });

  it("passes a small image through untouched", async () => {
    const run = await image("small.png");
    const { block, meta } = await imageBlock(run.stdout);
    expect(block.mimeType).toBe("image/png");
    expect([meta.width, meta.height]).toEqual([40, 30]);
  });

  it("rejects a file that is not an image with 64, a missing one with 66, one outside with 77", async () => {
    expect((await image("not-an-image.png")).code).toBe(64);
    expect((await image("missing.png")).code).toBe(66);
    expect((await image("../x.png")).code).toBe(77);
  });
});
