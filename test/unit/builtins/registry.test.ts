import { ParametersSchema, ToolName } from "@edgeloop/protocol";
import { validateArguments } from "@edgeloop/protocol/validate-arguments";
import { describe, expect, it } from "vitest";
import {
  BUILTINS,
  builtinToolSpecs,
  findBuiltin,
  questionToolSpec,
} from "../../../durable-objects/conversation/builtins/index.js";

const EXPECTED = [
  "get_current_time",
  "echo",
  "todowrite",
  "todoread",
  "task",
  "skill",
  "sessions_list",
  "sessions_history",
  "sessions_send",
  "sessions_spawn",
  "session_status",
  "agents_list",
  "nodes",
  "canvas",
];

describe("the built-in registry", () => {
  it("holds every built-in once, and not question (the core's own)", () => {
    expect(BUILTINS.map((b) => b.name).sort()).toEqual([...EXPECTED].sort());
    expect(findBuiltin("question")).toBeUndefined();
  });

  it("finds by name", () => {
    expect(findBuiltin("echo")?.name).toBe("echo");
    expect(findBuiltin("nope")).toBeUndefined();
  });

  it("every built-in has a valid name and a parameters schema the protocol accepts", () => {
    for (const b of [...BUILTINS, questionToolSpec]) {
      expect(ToolName.safeParse(b.name).success, b.name).toBe(true);
      const parsed = ParametersSchema.safeParse(b.parameters);
      expect(parsed.success, `${b.name}: ${parsed.error?.message}`).toBe(true);
      for (const req of b.parameters.required)
        expect(Object.keys(b.parameters.properties), `${b.name}.${req}`).toContain(req);
    }
  });

  it("specs are kind builtin with the default timeouts", () => {
    const specs = builtinToolSpecs(BUILTINS);
    const echo = specs.find((s) => s.name === "echo")!;
    expect(echo).toMatchObject({ kind: "builtin", timeout_ms: 10_000, max_timeout_ms: 60_000 });
    expect(echo.evoclaw).toBeUndefined();
    const task = specs.find((s) => s.name === "task")!;
    expect(task.max_timeout_ms).toBeGreaterThanOrEqual(task.timeout_ms);
  });

  it("the question spec takes a question and optional options", () => {
    expect(questionToolSpec).toMatchObject({ name: "question", kind: "builtin" });
    expect(
      validateArguments("question", questionToolSpec.parameters, { question: "which?", options: ["a", "b"] }).ok,
    ).toBe(true);
    expect(validateArguments("question", questionToolSpec.parameters, { options: ["a"] }).ok).toBe(false);
  });
});
