import { describe, expect, it } from "vitest";
import {
  assembleChunks,
  fromCompletion,
  StreamAssembler,
} from "../../../durable-objects/conversation/llm/stream-assembler.js";

// The edges of what servers send, one rule each: what is ignored, what starts a new call, what a
// field that is there but of the wrong type means. stream-assembler.test.ts has the ordinary shapes.
const chunk = (delta: Record<string, unknown>, finish: unknown = null, extra: Record<string, unknown> = {}) => ({
  choices: [{ index: 0, delta, finish_reason: finish, ...extra }],
});
const calls = (...deltas: Record<string, unknown>[]) => deltas.map((d) => chunk({ tool_calls: [d] }));

describe("StreamAssembler: what it ignores", () => {
  it("counts every chunk, adds nothing for one that is not an object, and needs a real choice", () => {
    const a = new StreamAssembler("s");
    expect(a.push(null)).toBe("");
    expect(a.push({ choices: [null, "junk", 7] })).toBe("");
    expect(a.sawChoice).toBe(false);
    expect(a.push({ usage: { prompt_tokens: 1 } })).toBe("");
    expect(a.chunkCount).toBe(3);
    expect(a.push({ choices: [{ delta: { content: "hi" } }] })).toBe("hi");
    expect(a.sawChoice).toBe(true);
    expect(a.chunkCount).toBe(4);
  });

  it("takes a choice with no index as the first one, skips others", () => {
    const turn = assembleChunks(
      [{ choices: [{ delta: { content: "a" } }, { index: 2, delta: { content: "x" } }, { index: 0, delta: {} }] }],
      "s",
    );
    expect(turn.content).toBe("a");
  });

  it("keeps the first finish reason a later empty, null or non-string one does not replace", () => {
    const turn = assembleChunks([chunk({ content: "a" }, "length"), chunk({}, ""), chunk({}, null), chunk({}, 5)], "s");
    expect(turn.finishReason).toBe("length");
    expect(assembleChunks([chunk({ content: "a" }, 5)], "s").finishReason).toBeNull();
  });

  it("keeps usage a later chunk does not carry; reads usage put on the choice", () => {
    const turn = assembleChunks(
      [chunk({ content: "a" }, null, { usage: { prompt_tokens: 2, completion_tokens: 1 } }), chunk({}, "stop")],
      "s",
    );
    expect(turn.usage).toEqual({ prompt_tokens: 2, completion_tokens: 1 });
    const later = assembleChunks(
      [{ usage: { prompt_tokens: 9, completion_tokens: 9 }, choices: [] }, { choices: [{ index: 0, delta: {} }] }],
      "s",
    );
    expect(later.usage).toEqual({ prompt_tokens: 9, completion_tokens: 9 });
  });

  it("reads usage with only one side counted as 0 for the other, and no counts as no usage", () => {
    const usage = (u: unknown) => assembleChunks([{ usage: u, choices: [{ index: 0, delta: {} }] }], "s").usage;
    expect(usage({ prompt_tokens: 3 })).toEqual({ prompt_tokens: 3, completion_tokens: 0 });
    expect(usage({ completion_tokens: 4 })).toEqual({ prompt_tokens: 0, completion_tokens: 4 });
    expect(usage({ output_tokens: 4 })).toEqual({ prompt_tokens: 0, completion_tokens: 4 });
    expect(usage({ total_tokens: 7 })).toBeUndefined();
    expect(usage({ prompt_tokens: "3" })).toBeUndefined();
    // No usage at all leaves the field out, not set to undefined.
    expect(assembleChunks([chunk({ content: "a" }, "stop")], "s")).toStrictEqual({
      content: "a",
      toolCalls: [],
      finishReason: "stop",
    });
  });

  it("joins text parts, skipping parts without text, and reads no text as null", () => {
    const a = new StreamAssembler("s");
    expect(
      a.push(chunk({ content: [null, { type: "image_url" }, { text: 5 }, { text: "a" }, "b", { text: "c" }] })),
    ).toBe("ac");
    expect(a.push(chunk({ content: [{ type: "image_url" }] }))).toBe("");
    expect(a.finish().content).toBe("ac");
    expect(assembleChunks([chunk({ content: [] }), chunk({ content: 5 })], "s").content).toBeNull();
  });
});

describe("StreamAssembler: a whole message in a stream chunk", () => {
  const message = (content: unknown) => ({ choices: [{ index: 0, message: { content }, finish_reason: null }] });

  it("is taken only while nothing came before it", () => {
    expect(assembleChunks([message("whole")], "s").content).toBe("whole");
    expect(assembleChunks([chunk({ content: "a" }), message("whole")], "s").content).toBe("a");
    const afterCall = assembleChunks([...calls({ index: 0, function: { name: "bash" } }), message("whole")], "s");
    expect(afterCall.content).toBeNull();
    // An empty text delta and a delta with no function call bring nothing: the message still counts.
    expect(assembleChunks([chunk({ content: "" }), chunk({ role: "assistant" }), message("whole")], "s").content).toBe(
      "whole",
    );
  });

  it("is not taken when it is not a plain object, whatever it carries", () => {
    const odd = Object.assign(() => undefined, { content: "smuggled" });
    expect(assembleChunks([{ choices: [{ index: 0, message: odd }] }], "s").content).toBeNull();
  });
});

describe("StreamAssembler: which delta belongs to which call", () => {
  it("ignores tool-call entries that are not objects", () => {
    const turn = assembleChunks(
      [chunk({ tool_calls: [null, 3, { index: 0, id: "c1", function: { name: "bash" } }] })],
      "s",
    );
    expect(turn.toolCalls).toEqual([{ id: "c1", name: "bash", arguments: "" }]);
  });

  it("does not take an id or a name that is not a string", () => {
    const turn = assembleChunks(calls({ index: 0, id: 7, function: { name: 42, arguments: "{}" } }), "s");
    expect(turn.toolCalls).toEqual([{ id: "call_s_0", name: "", arguments: "{}" }]);
  });

  it("keeps a call's first id when a later delta at its index names another but no tool", () => {
    const turn = assembleChunks(
      calls(
        { index: 0, id: "c1", function: { name: "bash", arguments: "" } },
        { index: 0, id: "c2", function: { arguments: "{}" } },
      ),
      "s",
    );
    expect(turn.toolCalls).toEqual([{ id: "c1", name: "bash", arguments: "{}" }]);
  });

  it("keeps one call when a server repeats its id and name on every delta at an index", () => {
    const turn = assembleChunks(
      calls(
        { index: 0, id: "c1", function: { name: "bash", arguments: '{"command":' } },
        { index: 0, id: "c1", function: { name: "bash", arguments: '"ls"}' } },
      ),
      "s",
    );
    expect(turn.toolCalls).toEqual([{ id: "c1", name: "bash", arguments: '{"command":"ls"}' }]);
  });

  it("starts a call on a new name only when no id says otherwise (no index)", () => {
    const byName = assembleChunks(
      calls({ function: { name: "read", arguments: "{}" } }, { function: { name: "bash", arguments: "{}" } }),
      "s",
    );
    expect(byName.toolCalls.map((c) => c.name)).toEqual(["read", "bash"]);
    const repeated = assembleChunks(
      calls({ function: { name: "bash", arguments: "" } }, { function: { name: "bash", arguments: "{}" } }),
      "s",
    );
    expect(repeated.toolCalls).toEqual([{ id: "call_s_0", name: "bash", arguments: "{}" }]);
    const sameId = assembleChunks(
      calls({ id: "c1", function: { name: "bash", arguments: "" } }, { id: "c1", function: { arguments: "{}" } }),
      "s",
    );
    expect(sameId.toolCalls).toEqual([{ id: "c1", name: "bash", arguments: "{}" }]);
    // The same id with another name part is one call whose name came in two pieces.
    const split = assembleChunks(
      calls({ id: "c1", function: { name: "git_" } }, { id: "c1", function: { name: "log" } }),
      "s",
    );
    expect(split.toolCalls.map((c) => c.name)).toEqual(["git_log"]);
  });

  it("reads an index that is not a whole number as no index", () => {
    const turn = assembleChunks(
      calls(
        { index: 0.5, function: { name: "read", arguments: "{}" } },
        { index: 0.5, function: { name: "bash", arguments: "{}" } },
      ),
      "s",
    );
    expect(turn.toolCalls.map((c) => c.name)).toEqual(["read", "bash"]);
  });

  it("adds string argument pieces after a delta that had none, and ignores non-text arguments", () => {
    const turn = assembleChunks(
      calls(
        { index: 0, id: "c1", function: { name: "bash" } },
        { index: 0, function: { arguments: '{"command":"ls"}' } },
        { index: 0, function: { arguments: 5 } },
        { index: 0, function: { arguments: null } },
      ),
      "s",
    );
    expect(turn.toolCalls).toEqual([{ id: "c1", name: "bash", arguments: '{"command":"ls"}' }]);
  });

  it("keeps a call with only a name or only arguments, and drops one with neither", () => {
    const turn = assembleChunks(
      calls(
        { index: 0, id: "c1", function: { name: "bash" } },
        { index: 1, id: "c2", function: { arguments: "{}" } },
        { index: 2, id: "c3", type: "function" },
      ),
      "s",
    );
    expect(turn.toolCalls).toEqual([
      { id: "c1", name: "bash", arguments: "" },
      { id: "c2", name: "", arguments: "{}" },
    ]);
  });
});

describe("fromCompletion: edges", () => {
  it("says what is wrong with a response it cannot read", () => {
    expect(fromCompletion("nope", "s")).toEqual({ ok: false, error: "response is not a JSON object" });
    expect(fromCompletion([{ choices: [] }], "s")).toEqual({ ok: false, error: "response is not a JSON object" });
    const noMessage = { ok: false, error: "response choice has no message" };
    expect(fromCompletion({ choices: [{ index: 0, finish_reason: "stop" }] }, "s")).toEqual(noMessage);
    expect(fromCompletion({ choices: [{ index: 1, message: { content: "other" } }] }, "s")).toEqual(noMessage);
  });

  it("takes the first choice (index 0 or none), skipping entries that are not choices", () => {
    const result = fromCompletion(
      { choices: [null, { index: 1, message: { content: "other" } }, { index: 0, message: { content: "mine" } }] },
      "s",
    );
    expect(result.ok && result.turn.content).toBe("mine");
  });

  it("reads a legacy function_call message as one call", () => {
    const result = fromCompletion(
      { choices: [{ message: { content: null, function_call: { name: "bash", arguments: '{"command":"ls"}' } } }] },
      "s",
    );
    expect(result).toEqual({
      ok: true,
      turn: {
        content: null,
        finishReason: "tool_calls",
        toolCalls: [{ id: "call_s_0", name: "bash", arguments: '{"command":"ls"}' }],
      },
    });
  });

  it("reads calls with missing or mistyped fields as empty, and skips entries that are not calls", () => {
    const result = fromCompletion(
      {
        choices: [
          {
            message: {
              tool_calls: [
                null,
                { id: 5, function: { name: 7, arguments: "{}" } },
                { id: "c2", function: { name: "bash" } },
                { id: "c3", function: { name: "read", arguments: null } },
                { id: "c4", function: { arguments: [1] } },
              ],
            },
            finish_reason: 3,
          },
        ],
      },
      "s",
    );
    expect(result).toEqual({
      ok: true,
      turn: {
        content: null,
        finishReason: "tool_calls",
        toolCalls: [
          { id: "call_s_0", name: "", arguments: "{}" },
          { id: "c2", name: "bash", arguments: "" },
          { id: "c3", name: "read", arguments: "" },
          { id: "c4", name: "", arguments: "[1]" },
        ],
      },
    });
    const plain = fromCompletion({ choices: [{ message: { content: "hi" }, finish_reason: 3 }] }, "s");
    expect(plain).toStrictEqual({ ok: true, turn: { content: "hi", toolCalls: [], finishReason: null } });
  });
});
