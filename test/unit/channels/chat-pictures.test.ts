import { Buffer } from "node:buffer";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import {
  imageRefsOf,
  photoCaption,
  photoTooLarge,
  picturesForMessage,
} from "../../../durable-objects/channels/chat-content/chat-pictures.js";
import { PLATFORMS } from "../../../durable-objects/channels/platforms/index.js";

const png = () =>
  sharp({ create: { width: 4, height: 3, channels: 3, background: "#c03060" } })
    .png()
    .toBuffer();
const sha = (c: string) => c.repeat(64);
const ref = (hash: string) => ({
  type: "image",
  media_type: "image/png",
  sha256: hash,
  bytes: 1234,
  width: 4,
  height: 3,
  url: `/v1/conversations/c1/images/${hash}`,
});

describe("a user's pictures as a message's images", () => {
  it("become base64 image blocks with the type read from the picture, not the one declared", async () => {
    const bytes = await png();
    // Telegram declares every photo a JPEG; this one is a PNG.
    const out = picturesForMessage([{ bytes, mediaType: "image/jpeg" }], 5 * 1024 * 1024);
    expect(out).toEqual({
      ok: true,
      images: [{ type: "image", source: { type: "base64", media_type: "image/png", data: bytes.toString("base64") } }],
    });
  });

  it("over the deployment's cap: refused with both sizes, in words for the chat", async () => {
    const bytes = new Uint8Array(2_500_000);
    const out = picturesForMessage([{ bytes, mediaType: "image/jpeg" }], 1_000_000);
    expect(out).toEqual({
      ok: false,
      reason: "Not sent: the picture is 2.5 MB; this edgeloop takes at most 1.0 MB of pictures in one message.",
    });
  });

  it("the cap counts all of a message's pictures together", async () => {
    const bytes = await png();
    const cap = bytes.length * 2 - 1;
    expect(picturesForMessage([{ bytes, mediaType: "image/png" }], cap).ok).toBe(true);
    const two = picturesForMessage(
      [
        { bytes, mediaType: "image/png" },
        { bytes, mediaType: "image/png" },
      ],
      cap,
    );
    expect(two).toMatchObject({ ok: false, reason: expect.stringContaining("the pictures are") });
  });

  it("a format no model reads is refused by name, not passed on", () => {
    const heic = Buffer.from("....ftypheic and the rest of a HEIC file");
    expect(picturesForMessage([{ bytes: heic, mediaType: "image/heic" }], 1_000_000)).toEqual({
      ok: false,
      reason: "Not sent: a picture of type image/heic cannot go to the model; send PNG, JPEG, GIF or WebP.",
    });
  });

  it("more pictures than a message carries are refused", () => {
    const many = Array.from({ length: 17 }, () => ({ bytes: new Uint8Array(1), mediaType: "image/png" }));
    expect(picturesForMessage(many, 1_000_000)).toMatchObject({ ok: false, reason: expect.stringContaining("16") });
  });
});

describe("a tool's pictures for the chat", () => {
  it("are the image references in its result's content, each once, text and malformed blocks skipped", () => {
    const result = {
      status: "success",
      tool: "image",
      content: [
        { type: "text", text: "Image shot.png" },
        ref(sha("a")),
        ref(sha("a")),
        { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
        { ...ref(sha("b")), sha256: "not-a-hash" },
        ref(sha("c")),
      ],
    };
    expect(imageRefsOf(result).map((r) => r.sha256)).toEqual([sha("a"), sha("c")]);
    expect(imageRefsOf({ status: "error", error: { message: "no" } })).toEqual([]);
    expect(imageRefsOf(null)).toEqual([]);
  });

  it("a photo over the platform's limit becomes a line that says so; one within it goes", () => {
    const caption = photoCaption("image", "pi-1");
    expect(caption).toBe("🖼 image on pi-1");
    const { telegram, whatsapp, slack, discord } = PLATFORMS;
    expect(photoTooLarge(telegram, telegram.limits.photoMaxBytes, caption)).toBeNull();
    expect(photoTooLarge(telegram, 12_300_000, caption)).toMatch(
      /^🖼 image on pi-1: a picture of 12\.3 MB, over Telegram's 10\.0 MB for photos/,
    );
    expect(photoTooLarge(whatsapp, 6_000_000, caption)).toContain("WhatsApp's 5.0 MB");
    expect(photoTooLarge(discord, 11_000_000, caption)).toContain("Discord's 10.5 MB");
    expect(photoTooLarge(slack, 12_300_000, caption)).toBeNull();
  });
});
