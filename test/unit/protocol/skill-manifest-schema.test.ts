/**
 * A skill's manifest as the hub reads it from a device's `hello`: each field's bounds, what a missing
 * field becomes, and the parameter schemas a tool may declare (the subset every validator agrees on).
 */

import {
  CATEGORY_TIMEOUTS,
  FilteredTool,
  ParameterSchema,
  ParametersSchema,
  SkillManifest,
  ToolManifest,
} from "@edgeloop/protocol/skill-manifest";
import { describe, expect, it } from "vitest";
import { bashToolManifest } from "../../fixtures/bash-tool-manifest.js";

const ok = (schema: { safeParse: (v: unknown) => { success: boolean } }, value: unknown) =>
  schema.safeParse(value).success;

describe("a tool's parameter schema", () => {
  it("takes each of the six types, and no other", () => {
    for (const type of ["string", "integer", "number", "boolean", "array", "object"])
      expect(ParameterSchema.parse({ type }), type).toEqual({ type });
    for (const type of ["", "null", "int", "String"]) expect(ok(ParameterSchema, { type }), type).toBe(false);
  });

  it("keeps every keyword of the subset, nested schemas included", () => {
    const schema = {
      type: "object",
      description: "where",
      default: { path: "." },
      properties: {
        path: { type: "string", enum: [".", "/tmp"] },
        depth: { type: "integer", minimum: 0, maximum: 5 },
        names: { type: "array", items: { type: "string" } },
      },
      required: ["path"],
    };
    expect(ParameterSchema.parse(schema)).toEqual(schema);
  });

  it("refuses a keyword outside the subset, an empty enum and a bad nested schema", () => {
    expect(ok(ParameterSchema, { type: "string", pattern: "^a" })).toBe(false);
    expect(ok(ParameterSchema, { type: "string", enum: [] })).toBe(false);
    expect(ok(ParameterSchema, { type: "string", enum: ["a", "b"] })).toBe(true);
    expect(ok(ParameterSchema, { type: "array", items: { type: "tuple" } })).toBe(false);
    expect(ok(ParameterSchema, { type: "object", properties: { a: { type: "date" } } })).toBe(false);
    expect(ok(ParameterSchema, { type: "number", minimum: "0" })).toBe(false);
  });

  it("makes a missing parameter list an object with no properties and nothing required", () => {
    expect(ParametersSchema.parse({})).toEqual({ type: "object", properties: {}, required: [] });
    expect(ok(ParametersSchema, { type: "array" })).toBe(false);
    expect(ok(ParametersSchema, { type: "object", extra: 1 })).toBe(false);
  });
});

describe("a tool", () => {
  it("gets the documented default and longest timeout for its category", () => {
    expect(CATEGORY_TIMEOUTS).toEqual({
      file: { timeout_ms: 5_000, max_timeout_ms: 30_000 },
      web: { timeout_ms: 30_000, max_timeout_ms: 120_000 },
      exec: { timeout_ms: 30_000, max_timeout_ms: 300_000 },
      git: { timeout_ms: 60_000, max_timeout_ms: 300_000 },
      other: { timeout_ms: 10_000, max_timeout_ms: 60_000 },
    });
  });

  it("takes each category and sandbox, and no other", () => {
    for (const category of ["file", "web", "exec", "git", "other"])
      expect(ok(ToolManifest, { ...bashToolManifest, category }), category).toBe(true);
    expect(ok(ToolManifest, { ...bashToolManifest, category: "" })).toBe(false);
    for (const sandboxing of ["none", "bubblewrap", "firejail"])
      expect(ToolManifest.parse({ ...bashToolManifest, sandboxing }).sandboxing).toBe(sandboxing);
    expect(ok(ToolManifest, { ...bashToolManifest, sandboxing: "docker" })).toBe(false);
  });

  it("fills what a device leaves out: no permissions, no sandbox, nothing required", () => {
    expect(ToolManifest.parse(bashToolManifest)).toEqual({
      ...bashToolManifest,
      permissions: [],
      sandboxing: "none",
      requires: [],
    });
  });

  it("keeps its own approval policy, one of two", () => {
    for (const policy of ["auto", "requires_approval"])
      expect(ToolManifest.parse({ ...bashToolManifest, policy }).policy).toBe(policy);
    expect(ok(ToolManifest, { ...bashToolManifest, policy: "" })).toBe(false);
  });

  it("needs a description of 1 to 4096 characters and a binary", () => {
    expect(ok(ToolManifest, { ...bashToolManifest, description: "d" })).toBe(true);
    expect(ok(ToolManifest, { ...bashToolManifest, description: "d".repeat(4096) })).toBe(true);
    expect(ok(ToolManifest, { ...bashToolManifest, description: "" })).toBe(false);
    expect(ok(ToolManifest, { ...bashToolManifest, description: "d".repeat(4097) })).toBe(false);
    expect(ok(ToolManifest, { ...bashToolManifest, binary: "bin/a-longer-name" })).toBe(true);
    expect(ok(ToolManifest, { ...bashToolManifest, binary: "" })).toBe(false);
  });
});

describe("a skill", () => {
  const skill = { name: "desktop-tools", tools: [bashToolManifest] };

  it("is version 0.0.0 when it names none", () => {
    expect(SkillManifest.parse(skill).version).toBe("0.0.0");
  });

  it("has a name of 1 to 128 characters", () => {
    expect(ok(SkillManifest, { ...skill, name: "s" })).toBe(true);
    expect(ok(SkillManifest, { ...skill, name: "s".repeat(128) })).toBe(true);
    expect(ok(SkillManifest, { ...skill, name: "" })).toBe(false);
    expect(ok(SkillManifest, { ...skill, name: "s".repeat(129) })).toBe(false);
  });

  it("carries a workflow of up to 16,384 characters", () => {
    expect(SkillManifest.parse({ ...skill, workflow: "w".repeat(16_384) }).workflow).toHaveLength(16_384);
    expect(ok(SkillManifest, { ...skill, workflow: "w".repeat(16_385) })).toBe(false);
  });
});

describe("a filtered tool", () => {
  it("names its skill, the tool and why", () => {
    const filtered = { skill: "pi-tools", tool: "gpio", reason: "capability gpio missing" };
    expect(FilteredTool.parse(filtered)).toEqual(filtered);
    expect(ok(FilteredTool, { skill: "pi-tools", tool: "gpio" })).toBe(false);
  });
});
