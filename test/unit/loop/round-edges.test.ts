/**
 * Edges of round.ts that the loop's own steps never reach: its exported steps called where no round is under way,
 * the shape a refused call is stored in, the keys of a call's summary, and an approval event that names nobody.
 * Each test names the mutant of round.ts that it fails with.
 */
import { describe, expect, it } from "vitest";
import {
  advance,
  type Effect,
  initialState,
  type RoundCall,
  ruleTargetOf,
} from "../../../durable-objects/conversation/core/index.js";
import {
  afterSettle,
  completeRound,
  dispatchQueued,
  emitDecided,
} from "../../../durable-objects/conversation/core/round.js";
import { answer, NOW, start } from "./advance-helpers.js";
import { calls, fail, ok, only, spec } from "./fixtures.js";

function roundCall(id: string, outcome: RoundCall["outcome"]): RoundCall {
  return {
    id,
    name: "bash",
    args: {},
    raw_arguments: "{}",
    request_id: `msg-1.1.${id}`,
    timeout_ms: 1000,
    kind: "device",
    state: "done",
    outcome,
  };
}

describe("round.ts steps called with no round under way", () => {
  it("do nothing, with no run or with a run between rounds", () => {
    // Mutants: `state.run?.round` → `state.run.round`, `if (!round) return` → never, and `state.run?.round?.every`
    // → `state.run.round?.every` or `state.run?.round.every`.
    const between = start().state;
    const idle = { ...between, run: null };
    for (const state of [idle, between]) {
      const effects: Effect[] = [];
      dispatchQueued(state, effects, NOW);
      afterSettle(state, effects, NOW);
      expect(effects).toEqual([]);
    }
  });
});

describe("a refused call", () => {
  it("is kept in the round as a device call with no timeout, beside the calls still running", () => {
    // Mutants: `spec?.timeout_ms ?? 0` → `spec?.timeout_ms && 0`, and `spec?.kind ?? "device"` → `?? ""`.
    const a = start();
    const b = answer(a.state, calls(["nope", {}, "c1"], ["bash", { command: "x" }, "c2"]));
    expect(b.state.run!.round![0]).toMatchObject({ id: "c1", state: "done", timeout_ms: 0, kind: "device" });
  });
});

describe("a call's summary", () => {
  it("has an error_type only for an error and an elapsed_ms only when the outcome has one", () => {
    // Mutants: `outcome.status === "error"` → `true`, and the `elapsed_ms !== undefined` test → `true`:
    // either adds a key whose value is undefined.
    const a = start();
    const b = answer(a.state, calls(["bash", { command: "a" }, "c1"], ["bash", { command: "b" }, "c2"]));
    const [r1, r2] = only(b.effects, "dispatch_tool").map((d) => d.request_id);
    const c = advance(
      b.state,
      { type: "tool_result", tool_call_id: "c1", request_id: r1!, outcome: ok("bash", "x") },
      NOW,
    );
    const d = advance(
      c.state,
      { type: "tool_result", tool_call_id: "c2", request_id: r2!, outcome: fail("bash", "no") },
      NOW,
    );
    const [s1, s2] = d.state.run!.tool_calls;
    expect(Object.keys(s1!).sort()).toEqual(["arguments", "elapsed_ms", "id", "name", "status"]);
    expect(Object.keys(s2!).sort()).toEqual(["arguments", "error_type", "id", "name", "status"]);
  });
});

describe("the time a round saved", () => {
  it("counts only calls that ran, whatever a refusal carries", () => {
    // Mutant: the `c.outcome.status !== "blocked"` test of the `ran` filter → `true`; a refusal made by the loop has
    // no elapsed_ms, so the test gives one to see that it is not read.
    const state = start().state;
    const blocked = { status: "blocked" as const, tool: "bash", reason: "no", elapsed_ms: 40 };
    state.run!.round = [roundCall("c1", blocked), roundCall("c2", ok("bash", "x"))];
    state.run!.round_started_at = NOW;
    completeRound(state, [], NOW + 10);
    expect(state.run!.parallel_batches).toBe(0);
    expect(state.run!.wall_saved_ms).toBe(0);
    // Mutant: `outcome.status !== "blocked"` → `true` (or `"blocked"` → `""`) in the summary's elapsed_ms.
    expect(state.run!.tool_calls.map((c) => c.elapsed_ms)).toEqual([undefined, 5]);
  });
});

describe("an approval event", () => {
  it("names a person when the call does not say who decided", () => {
    // Mutant: `call.decided_by ?? "person"` → `?? ""`.
    const effects: Effect[] = [];
    emitDecided(effects, roundCall("c1", null), true);
    expect(only(effects, "emit_event").map((e) => e.event)).toEqual([
      {
        type: "approval_decided",
        toolCallId: "c1",
        toolName: "bash",
        approved: true,
        decided_by: "person",
        waited_ms: 0,
      },
    ]);
  });
});

describe("what approval rules match a call by", () => {
  it("is the conversation's device and the call's name, or a fleet tool's own name and its one device", () => {
    // Mutants: the tool search (`t.name === callName` → `true`, `false`, `!==`, the arrow emptied, `?.fleet` →
    // `.fleet`), `!fleet` → `true`, and the fleet's answer (`agents.length === 1` → `true`, `false`, `!==`, `{}`).
    const state = initialState("conv-1", "pi-1");
    state.tools = [
      spec("bash"),
      { ...spec("bash"), name: "all__bash", fleet: { tool: "bash", agents: ["pi-2", "pi-3"] } },
      { ...spec("bash"), name: "pi-2__bash", fleet: { tool: "bash", agents: ["pi-2"] } },
    ];
    expect(ruleTargetOf(state, "bash")).toEqual({ agent_id: "pi-1", tool: "bash" });
    expect(ruleTargetOf(state, "all__bash")).toEqual({ agent_id: null, tool: "bash" });
    expect(ruleTargetOf(state, "pi-2__bash")).toEqual({ agent_id: "pi-2", tool: "bash" });
    expect(ruleTargetOf(state, "nope")).toEqual({ agent_id: "pi-1", tool: "nope" });
  });
});
