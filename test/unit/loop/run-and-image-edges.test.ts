/**
 * Edges of run.ts and tool-messages.ts that no other test reached: a message's images on its start event,
 * a direct call's reply when the history does not end with its result, the stop note of any other stop,
 * and an image's label and attachments. Each test names the mutant it fails with.
 */
import type { ImageRef, ToolOutcome } from "@edgeloop/protocol";
import { describe, expect, it } from "vitest";
import {
  advance,
  type ChatMessage,
  DEFAULT_LOOP_CONFIG,
  type Effect,
  initialState,
  type RoundCall,
} from "../../../durable-objects/conversation/core/index.js";
import { finishDirect, withStopNote } from "../../../durable-objects/conversation/core/run.js";
import { imageLabel, toolMessageImages } from "../../../durable-objects/conversation/core/tool-messages.js";
import { NOW, start } from "./advance-helpers.js";
import { ok, only, TOOLS } from "./fixtures.js";

const picture: ImageRef = {
  type: "image",
  media_type: "image/png",
  sha256: "a".repeat(64),
  bytes: 10,
  url: "/v1/conversations/conv-1/images/aaaa",
};

describe("run.ts", () => {
  it("a message's images are on its message_start event", () => {
    // Mutant: `{ images }` → `{}`.
    const out = advance(
      initialState("conv-1", "pi-1"),
      { type: "user_message", message_id: "m1", text: "look", tools: TOOLS, images: [picture] },
      NOW,
    );
    const events = only(out.effects, "emit_event").map((e) => e.event);
    expect(events[0]).toEqual({ type: "message_start", message_id: "m1", text: "look", images: [picture] });
  });

  it("a direct call's reply is the tool message ending the history, and none without one", () => {
    // Mutants: `last?.role === "tool"` → `true`, and `last?.role` → `last.role`.
    const call: RoundCall = {
      id: "c1",
      name: "bash",
      args: {},
      raw_arguments: "{}",
      request_id: "msg-1.0.0",
      timeout_ms: 1000,
      kind: "device",
      state: "done",
      outcome: ok("bash", "out"),
    };
    const replies = (messages: ChatMessage[]) => {
      const state = start().state;
      state.messages = messages;
      const effects: Effect[] = [];
      finishDirect(state, effects, call, NOW);
      return only(effects, "reply").map((r) => r.reply.reply);
    };
    expect(replies([{ role: "tool", tool_call_id: "c1", content: "out" }])).toEqual(["out"]);
    expect(replies([{ role: "user", content: "hello" }])).toEqual([null]);
    expect(replies([])).toEqual([null]);
  });

  it("the stop note of a stop without words of its own names the stop", () => {
    // Mutant: the `default: return stop;` of stopText emptied.
    expect(withStopNote("done", "cancel", DEFAULT_LOOP_CONFIG)).toBe("done\n\n(The tool loop stopped because cancel.)");
  });
});

describe("tool-messages.ts", () => {
  it("an image's label gives its size only when both sides are known", () => {
    // Mutants: `block.width && block.height` → `true` or `||`, and the empty size → "Stryker was here!".
    expect(imageLabel({ ...picture, width: 2, height: 3 })).toBe("[image image/png 2x3, 10 bytes]");
    expect(imageLabel(picture)).toBe("[image image/png, 10 bytes]");
    expect(imageLabel({ ...picture, width: 2 })).toBe("[image image/png, 10 bytes]");
    expect(imageLabel({ ...picture, height: 3 })).toBe("[image image/png, 10 bytes]");
  });

  it("only a success's stored images go with its tool message", () => {
    // Mutants: `outcome.status !== "success"` → `false`, and its `[]` → `["Stryker was here"]`.
    const shown: ToolOutcome = {
      status: "success",
      tool: "shot",
      result: "x",
      stderr: "",
      exit_code: 0,
      elapsed_ms: 5,
      content: [{ type: "text", text: "x" }, picture],
    };
    expect(toolMessageImages(shown)).toEqual([picture]);
    expect(toolMessageImages({ status: "blocked", tool: "shot", reason: "no" })).toEqual([]);
    // An error carries no images; one that came with a `content` key anyway attaches none.
    const failed = { status: "error" as const, tool: "shot", error: "boom", error_type: "execution_failed" as const };
    expect(toolMessageImages(failed)).toEqual([]);
    expect(toolMessageImages({ ...failed, content: [picture] } as unknown as ToolOutcome)).toEqual([]);
  });
});
