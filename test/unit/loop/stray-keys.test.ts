/**
 * A message is read by its role: a key its role does not have (a user message's `tool_calls`, an assistant's
 * `images`) is not taken from it, however it got there. Each test names the mutant it fails with; these were
 * once stated as equivalent on the ground that no message of another role carries the key.
 */
import type { ImageRef } from "@edgeloop/protocol";
import { describe, expect, it } from "vitest";
import {
  type ChatMessage,
  callName,
  imagesForModel,
  initialState,
} from "../../../durable-objects/conversation/core/index.js";

const call = { id: "c9", type: "function" as const, function: { name: "bash", arguments: "{}" } };
const picture: ImageRef = {
  type: "image",
  media_type: "image/png",
  sha256: "b".repeat(64),
  bytes: 10,
  width: 2,
  height: 2,
  url: "/v1/conversations/conv-1/images/bbbb",
};
const textOnly = { vision: false, maxWidth: 1568, maxHeight: 1568, maxBytes: 100_000, inContext: 2 };

describe("a user message's tool_calls key", () => {
  it('names no call for a late result (late-results.ts: `m.role === "assistant"` → `true`)', () => {
    const state = initialState("conv-1", "pi-1");
    const stray = { role: "user" as const, content: "", tool_calls: [call] };
    state.messages = [stray];
    expect(callName(state, "c9")).toBeNull();
  });

  it('names no call for an image left out (image-context.ts: `m.role === "assistant"` → `true`)', () => {
    const stray = { role: "user" as const, content: "", tool_calls: [call] };
    const result: ChatMessage = { role: "tool", tool_call_id: "c9", content: "x", images: [picture] };
    const view = imagesForModel([stray, result], textOnly);
    expect(view[1]!.content).toBe(
      "x\n[image 1 (image/png, 10 bytes) from the 'tool' call c9 not shown: the model reads text only (LLM_VISION)]",
    );
  });
});

describe("an assistant message's images key", () => {
  it("is passed on as it is (image-context.ts: the role test → `false`)", () => {
    const stray = { role: "assistant" as const, content: "ok", images: [picture] };
    const view = imagesForModel([stray], textOnly);
    expect(view[0]).toBe(stray);
  });
});
