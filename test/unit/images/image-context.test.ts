/** Which of the history's images the model is shown, and what it reads for those it is not. */
import type { ImageRef } from "@edgeloop/protocol";
import { describe, expect, it } from "vitest";
import {
  type ChatMessage,
  type ImageLimits,
  imagesForModel,
} from "../../../durable-objects/conversation/core/index.js";
import { imageSettings, modelImageLimits } from "../../../durable-objects/conversation/settings/image-settings.js";

const ref = (n: number, extra: Partial<ImageRef> = {}): ImageRef => ({
  type: "image",
  media_type: "image/png",
  sha256: n.toString(16).padStart(64, "0"),
  bytes: 1000 + n,
  width: 640,
  height: 480,
  url: `/v1/conversations/c1/images/${n.toString(16).padStart(64, "0")}`,
  ...extra,
});

const limits: ImageLimits = { vision: true, maxWidth: 1568, maxHeight: 1568, maxBytes: 100_000, inContext: 2 };

const call = (id: string, name: string) => ({ id, type: "function" as const, function: { name, arguments: "{}" } });

/** A user asks, the model calls `image` three times in one round, each result has one image. */
const history: ChatMessage[] = [
  { role: "user", content: "what is on the screen?", images: [ref(1)] },
  {
    role: "assistant",
    content: null,
    tool_calls: [call("call_a", "image"), call("call_b", "camera"), call("call_c", "image")],
  },
  { role: "tool", tool_call_id: "call_a", content: "Image a.png", images: [ref(2)] },
  { role: "tool", tool_call_id: "call_b", content: "frame", images: [ref(3)] },
  { role: "tool", tool_call_id: "call_c", content: "", images: [ref(4)] },
];

describe("imagesForModel", () => {
  it("keeps the latest images and says of older ones which call produced them and why they are left out", () => {
    const view = imagesForModel(history, limits);
    expect(view[4]).toBe(history[4]);
    expect(view[3]).toBe(history[3]);
    expect(view[2]).toEqual({
      role: "tool",
      tool_call_id: "call_a",
      content:
        "Image a.png\n[image 1 (image/png, 1002 bytes) from the 'image' call call_a not shown: only the latest 2 images stay in context]",
    });
    expect(view[0]).toEqual({
      role: "user",
      content:
        "what is on the screen?\n[image 1 (image/png, 1001 bytes) from the user's message not shown: only the latest 2 images stay in context]",
    });
    // The stored history is not changed.
    expect(history[2]).toMatchObject({ images: [ref(2)] });
  });

  it("gives a text-only model a placeholder for every image, never the image", () => {
    const view = imagesForModel(history, { ...limits, vision: false });
    expect(view.some((m) => "images" in m)).toBe(false);
    expect(view[4]!.content).toBe(
      "[image 1 (image/png, 1004 bytes) from the 'image' call call_c not shown: the model reads text only (LLM_VISION)]",
    );
  });

  it("leaves out an image over the size or byte limits, saying so, and it does not take a place in context", () => {
    const big: ChatMessage[] = [
      ...history.slice(0, 2),
      { role: "tool", tool_call_id: "call_a", content: "a", images: [ref(2, { width: 4000, height: 3000 })] },
      { role: "tool", tool_call_id: "call_b", content: "b", images: [ref(3, { bytes: 200_000 })] },
      { role: "tool", tool_call_id: "call_c", content: "c", images: [ref(4, { width: undefined, height: undefined })] },
    ];
    const view = imagesForModel(big, limits);
    expect(view[2]!.content).toBe(
      "a\n[image 1 (image/png, 1002 bytes) from the 'image' call call_a not shown: 4000x3000 is over the 1568x1568 limit; ask for a smaller one]",
    );
    expect(view[3]!.content).toBe(
      "b\n[image 1 (image/png, 200000 bytes) from the 'camera' call call_b not shown: 200000 bytes is over the 100000-byte limit]",
    );
    expect(view[4]!.content).toContain("its format is not one the model reads");
    // The user's image is the latest one within the limits, so it is shown.
    expect(view[0]).toBe(big[0]);
  });

  it("with IMAGES_IN_CONTEXT=0 no image is sent", () => {
    expect(imagesForModel(history, { ...limits, inContext: 0 }).some((m) => "images" in m)).toBe(false);
  });
});

describe("imagesForModel: the edges (issue 39: image-context.ts's mutants)", () => {
  const one = (image: ImageRef, content = "shot"): ChatMessage[] => [
    { role: "assistant", content: null, tool_calls: [call("c1", "screenshot")] },
    { role: "tool", tool_call_id: "c1", content, images: [image] },
  ];

  it("keeps an image exactly at each limit, and leaves out one a pixel or a byte over", () => {
    const at = ref(1, { width: 1568, height: 1568, bytes: 100_000 });
    expect(imagesForModel(one(at), limits)[1]).toEqual(one(at)[1]);
    for (const over of [{ width: 1569 }, { height: 1569 }, { bytes: 100_001 }]) {
      const view = imagesForModel(one(ref(1, { width: 1568, height: 1568, bytes: 100_000, ...over })), limits);
      expect(view[1]).not.toHaveProperty("images");
      expect(view[1]!.content).toMatch(
        /^shot\n\[image 1 \(image\/png, 10000\d bytes\) from the 'screenshot' call c1 not shown: /,
      );
    }
    // Either side unknown is a format the header was not read for.
    for (const unknown of [{ width: undefined }, { height: undefined }])
      expect(imagesForModel(one(ref(1, unknown)), limits)[1]!.content).toContain(
        "its format is not one the model reads",
      );
  });

  it("within one message the later images are the newer: the first ones are left out, one note each", () => {
    const message: ChatMessage = { role: "tool", tool_call_id: "c1", content: "", images: [ref(1), ref(2), ref(3)] };
    const view = imagesForModel([one(ref(9))[0]!, message], { ...limits, inContext: 1 });
    const note = (n: number) =>
      `[image ${n} (image/png, ${1000 + n} bytes) from the 'screenshot' call c1 not shown: only the latest 1 images stay in context]`;
    expect(view[1]).toEqual({
      role: "tool",
      tool_call_id: "c1",
      content: `${note(1)}\n${note(2)}`,
      images: [ref(3)],
    });
  });

  it("names a call it cannot find 'tool', and returns messages without images as they are", () => {
    const orphan: ChatMessage = { role: "tool", tool_call_id: "gone", content: "x", images: [ref(1)] };
    const plain: ChatMessage = { role: "user", content: "hi", images: [] };
    const bare: ChatMessage = { role: "user", content: "no pictures" };
    const answer: ChatMessage = { role: "assistant", content: "ok" };
    const view = imagesForModel([plain, bare, answer, orphan], { ...limits, vision: false });
    expect(view[0]).toBe(plain);
    expect(view[1]).toBe(bare);
    expect(view[2]).toBe(answer);
    expect(view[3]!.content).toBe(
      "x\n[image 1 (image/png, 1001 bytes) from the 'tool' call gone not shown: the model reads text only (LLM_VISION)]",
    );
  });
});

describe("LLM_VISION", () => {
  it("auto: images for openai and anthropic models, and on workers-ai for its vision models only", () => {
    const parsed = imageSettings({});
    if (!parsed.ok) throw new Error(parsed.error);
    const sees = (provider: string, model: string) => modelImageLimits(parsed.value, provider, model).vision;
    expect(sees("openai", "gpt-4o-mini")).toBe(true);
    expect(sees("anthropic", "claude-sonnet-4-5")).toBe(true);
    expect(sees("workers-ai", "@cf/meta/llama-3.3-70b-instruct-fp8-fast")).toBe(false);
    expect(sees("workers-ai", "@cf/meta/llama-4-scout-17b-16e-instruct")).toBe(true);
    expect(sees("workers-ai", "@cf/meta/llama-3.2-11b-vision-instruct")).toBe(true);
    const off = imageSettings({ LLM_VISION: "false" });
    if (!off.ok) throw new Error(off.error);
    expect(modelImageLimits(off.value, "anthropic", "claude-sonnet-4-5").vision).toBe(false);
    expect(imageSettings({ LLM_VISION: "maybe" })).toMatchObject({
      ok: false,
      error: expect.stringContaining("LLM_VISION"),
    });
  });
});
