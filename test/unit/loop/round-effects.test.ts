/** A round's effects and records, exactly: start and end events, deadlines cleared, summaries, cancel and budget stops. */
import type { ToolOutcome, ToolSpec } from "@edgeloop/protocol";
import { describe, expect, it } from "vitest";
import {
  advance,
  deadlineKey,
  initialState,
  type LoopConfig,
  type LoopState,
} from "../../../durable-objects/conversation/core/index.js";
import { NOW } from "./advance-helpers.js";
import { calls, fail, ok, only, spec, TOOLS } from "./fixtures.js";

const TIME: ToolSpec = { ...spec("get_current_time", {}), kind: "builtin" };
const QUESTION: ToolSpec = { ...spec("question", { question: { type: "string" } }), kind: "builtin" };
const ALL = [...TOOLS, TIME, QUESTION];

function round(config: Partial<LoopConfig>, ...list: [string, unknown, string][]) {
  const a = advance(
    initialState("conv-1", "pi-1", config),
    { type: "user_message", message_id: "m1", text: "go", tools: ALL },
    NOW,
  );
  return advance(a.state, { type: "llm_response", call_id: a.state.run!.awaiting_llm!, turn: calls(...list) }, NOW);
}

function result(state: LoopState, id: string, outcome: ToolOutcome, now = NOW) {
  const call = state.run!.round!.find((c) => c.id === id)!;
  return advance(state, { type: "tool_result", tool_call_id: id, request_id: call.request_id, outcome }, now);
}

const events = (effects: ReturnType<typeof advance>["effects"], type: string) =>
  only(effects, "emit_event")
    .map((e) => e.event)
    .filter((e) => e.type === type);

describe("round: events", () => {
  it("announces every call with its arguments, or the raw text when they were not JSON", () => {
    const r = round({}, ["bash", { command: "ls" }, "c1"], ["bash", "{oops", "c2"]);
    expect(events(r.effects, "tool_execution_start")).toEqual([
      { type: "tool_execution_start", toolCallId: "c1", toolName: "bash", args: { command: "ls" } },
      { type: "tool_execution_start", toolCallId: "c2", toolName: "bash", args: "{oops" },
    ]);
  });

  it("ends each call with its outcome, flagged as an error unless it succeeded", () => {
    const a = round({}, ["bash", { command: "a" }, "c1"], ["bash", { command: "b" }, "c2"]);
    const b = result(a.state, "c1", ok("bash", "fine"));
    expect(events(b.effects, "tool_execution_end")).toEqual([
      { type: "tool_execution_end", toolCallId: "c1", toolName: "bash", result: ok("bash", "fine"), isError: false },
    ]);
    expect(only(b.effects, "clear_deadline")).toEqual([{ type: "clear_deadline", key: "tool:m1.1.0" }]);
    const c = result(b.state, "c2", fail("bash", "boom"));
    expect(events(c.effects, "tool_execution_end")).toMatchObject([{ toolCallId: "c2", isError: true }]);
  });

  it("a device call whose deadline passes keeps its deadline (already spent), ends outcome_unknown", () => {
    const a = round({}, ["bash", { command: "a" }, "c1"], ["bash", { command: "b" }, "c2"]);
    const r = advance(a.state, { type: "deadline", key: deadlineKey(a.state.run!.round![0]!) }, NOW + 50_000);
    expect(only(r.effects, "clear_deadline")).toEqual([]);
    expect(r.state.run!.round![0]!.outcome).toEqual({
      status: "error",
      tool: "bash",
      error: "no result and no word from the device's hub within 30000ms and its grace",
      error_type: "outcome_unknown",
    });
  });

  it("a question without a question argument asks an empty question", () => {
    const r = round({}, ["question", {}, "q1"]);
    expect(events(r.effects, "question")).toEqual([{ type: "question", toolCallId: "q1", question: "" }]);
  });
});

describe("round: what the run records", () => {
  it("summarises each call: status, error type, elapsed time, the raw arguments of an unreadable call", () => {
    const a = round(
      {},
      ["bash", { command: "a" }, "c1"],
      ["bash", { command: "b" }, "c2"],
      ["bash", "{oops", "c3"],
      ["get_current_time", {}, "c4"],
    );
    let s = result(a.state, "c1", ok("bash", "fine")).state;
    s = result(s, "c2", { ...fail("bash", "boom"), elapsed_ms: 7 }).state;
    s = result(s, "c4", fail("get_current_time", "no clock")).state;
    expect(s.run!.tool_calls).toEqual([
      { id: "c1", name: "bash", arguments: { command: "a" }, status: "success", elapsed_ms: 5 },
      {
        id: "c2",
        name: "bash",
        arguments: { command: "b" },
        status: "error",
        error_type: "execution_failed",
        elapsed_ms: 7,
      },
      { id: "c3", name: "bash", arguments: "{oops", status: "error", error_type: "invalid_params" },
      { id: "c4", name: "get_current_time", arguments: {}, status: "error", error_type: "execution_failed" },
    ]);
  });

  it("an unavailable built-in names the tool, an unavailable device call names the device", () => {
    const a = round({}, ["get_current_time", {}, "c1"], ["bash", { command: "x" }, "c2"]);
    let s = result(a.state, "c1", {
      status: "error",
      tool: "get_current_time",
      error: "down",
      error_type: "unavailable",
    }).state;
    s = result(s, "c2", { status: "error", tool: "bash", error: "offline", error_type: "unavailable" }).state;
    const texts = s.messages.filter((m) => m.role === "tool").map((m) => m.content);
    expect(texts[0]).toMatch(/^Error: Tool 'get_current_time' is unavailable: down/);
    expect(texts[1]).toMatch(/^Error: Device 'pi-1' is unavailable: offline/);
  });

  it("counts a parallel batch only when two or more calls ran, and never a blocked one", () => {
    const one = round({}, ["bash", { command: "a" }, "c1"]);
    expect(result(one.state, "c1", ok("bash", "x")).state.run!.parallel_batches).toBe(0);

    const mixed = round(
      { deny_patterns: { bash: ["rm"] } },
      ["bash", { command: "rm x" }, "c1"],
      ["bash", { command: "ls" }, "c2"],
    );
    expect(result(mixed.state, "c2", ok("bash", "x")).state.run!.parallel_batches).toBe(0);

    const noTime = round({}, ["bash", { command: "a" }, "c1"], ["bash", { command: "b" }, "c2"]);
    const untimed = fail("bash", "no time measured");
    const s = result(result(noTime.state, "c1", untimed).state, "c2", ok("bash", "y")).state;
    expect(s.run!.parallel_batches).toBe(0);

    const two = round({}, ["bash", { command: "a" }, "c1"], ["bash", { command: "b" }, "c2"]);
    const t = result(result(two.state, "c1", ok("bash", "x")).state, "c2", ok("bash", "y"), NOW + 2).state;
    expect(t.run!.parallel_batches).toBe(1);
    expect(t.run!.wall_saved_ms).toBe(8);
  });

  it("a model's timeout_ms is used when positive, the tool's own otherwise", () => {
    const undeclared = (timeout_ms: unknown) =>
      only(round({}, ["bash", { command: "x", timeout_ms }, "c1"]).effects, "dispatch_tool")[0]!.timeout_ms;
    const withTimeout = {
      ...TOOLS[0]!,
      parameters: {
        ...TOOLS[0]!.parameters,
        properties: { command: { type: "string" as const }, timeout_ms: { type: "integer" as const } },
      },
    };
    const a = advance(
      initialState("conv-1", "pi-1"),
      { type: "user_message", message_id: "m1", text: "go", tools: [withTimeout] },
      NOW,
    );
    const ask = (timeout_ms: number) =>
      only(
        advance(
          a.state,
          {
            type: "llm_response",
            call_id: a.state.run!.awaiting_llm!,
            turn: calls(["bash", { command: "x", timeout_ms }, "c1"]),
          },
          NOW,
        ).effects,
        "dispatch_tool",
      )[0]!.timeout_ms;
    expect(ask(0)).toBe(30_000);
    expect(ask(-5)).toBe(30_000);
    expect(ask(1_000)).toBe(1_000);
    // A tool that does not declare timeout_ms never sees it: the tool's own timeout applies.
    expect(undeclared(5_000)).toBe(30_000);
  });
});

describe("round: cancel and the wall-time budget", () => {
  it("cancel stops dispatched device calls and clears the deadlines of every open call only", () => {
    const a = round(
      { policies: { read: "requires_approval" } },
      ["bash", { command: "a" }, "c1"],
      ["question", { question: "?" }, "q1"],
      ["read", { path: "/x" }, "c3"],
      ["bash", { command: "b" }, "c4"],
    );
    const b = result(a.state, "c4", ok("bash", "done"));
    const r = advance(b.state, { type: "cancel", reason: "user" }, NOW);
    expect(only(r.effects, "cancel_tool")).toEqual([{ type: "cancel_tool", request_id: "m1.1.0" }]);
    expect(only(r.effects, "clear_deadline").map((c) => c.key)).toEqual([
      "tool:m1.1.0",
      "approval:m1.1.0",
      "tool:m1.1.1",
      "approval:m1.1.1",
      "tool:m1.1.2",
      "approval:m1.1.2",
    ]);
    expect(only(r.effects, "reply")[0]!.reply.reply).toBe("Cancelled: user.");
  });

  it("the budget running out mid-round stops open calls with a cancelled result and asks for a summary", () => {
    const a = round({ max_wall_ms: 60_000 }, ["bash", { command: "a" }, "c1"], ["bash", { command: "b" }, "c2"]);
    const b = result(a.state, "c1", ok("bash", "done"));
    const r = advance(b.state, { type: "deadline", key: "budget:m1" }, NOW + 60_000);
    expect(events(r.effects, "tool_execution_end")).toEqual([
      {
        type: "tool_execution_end",
        toolCallId: "c2",
        toolName: "bash",
        result: {
          status: "error",
          tool: "bash",
          error: "stopped: the conversation's time budget ran out",
          error_type: "cancelled",
        },
        isError: true,
      },
    ]);
    expect(only(r.effects, "clear_deadline").map((c) => c.key)).toEqual(["tool:m1.1.1", "approval:m1.1.1"]);
    expect(r.state.run!.stopping).toBe("budget");
    expect(r.state.messages.filter((m) => m.role === "tool").map((m) => m.content)).toEqual([
      "done",
      "Error: Tool 'bash' was cancelled: stopped: the conversation's time budget ran out",
    ]);
  });

  it("the budget running out while the model thinks lets it answer, then stops", () => {
    const a = advance(
      initialState("conv-1", "pi-1", { max_wall_ms: 60_000 }),
      { type: "user_message", message_id: "m1", text: "go", tools: ALL },
      NOW,
    );
    const b = advance(a.state, { type: "deadline", key: "budget:m1" }, NOW + 60_000);
    expect(b.effects).toEqual([]);
    expect(b.state.run!.stopping).toBe("budget");
  });

  it("a deadline of the wrong kind for a call's state changes nothing", () => {
    const a = round(
      { policies: { bash: "requires_approval" } },
      ["bash", { command: "a" }, "c1"],
      ["read", { path: "/a" }, "c2"],
    );
    // c1 waits for approval: its tool deadline is not its own yet; c2 runs: an approval deadline is not its.
    for (const key of ["tool:m1.1.0", "approval:m1.1.1", "tool:unknown"]) {
      const r = advance(a.state, { type: "deadline", key }, NOW + 1);
      expect(r.effects).toEqual([]);
    }
    const noRun = advance(initialState("conv-1", "pi-1"), { type: "deadline", key: "tool:m1.1.0" }, NOW);
    expect(noRun.effects).toEqual([]);
  });
});
