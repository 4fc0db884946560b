import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ParametersSchema } from "@edgeloop/protocol";
import { cutInputSchema } from "@edgeloop/protocol/mcp-input-schema";
import { validateArguments } from "@edgeloop/protocol/validate-arguments";
import { describe, expect, it } from "vitest";
import { McpToolNames, toolNameShape } from "../../../device-agent/src/mcp/tool-names.js";
import { loadSkills } from "../../../device-agent/src/skills/load-skills.js";
import { tempDir } from "./helpers.js";

describe("cutInputSchema", () => {
  it("keeps what the validator checks and lists everything else with a reason", () => {
    const cut = cutInputSchema({
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      properties: {
        path: { type: "string", description: "a file", minLength: 1 },
        head: { type: ["integer", "null"], minimum: 0, exclusiveMaximum: 100 },
        mode: { const: "fast" },
        tags: { type: "array", items: { type: "string", pattern: "^[a-z]+$" } },
        pick: { anyOf: [{ type: "number" }, { type: "null" }] },
        either: { oneOf: [{ type: "string" }, { type: "number" }] },
        need: { oneOf: [{ type: "string" }, { type: "boolean" }] },
        opts: { $ref: "#/$defs/Opts" },
      },
      required: ["path", "need"],
      additionalProperties: false,
      $defs: { Opts: { type: "object", properties: { deep: { type: "boolean", default: true } } } },
    });
    expect(ParametersSchema.safeParse(cut.parameters).success).toBe(true);
    expect(cut.parameters).toEqual({
      type: "object",
      required: ["path", "need"],
      properties: {
        path: { type: "string", description: "a file" },
        head: { type: "integer", minimum: 0 },
        mode: { type: "string", enum: ["fast"] },
        tags: { type: "array", items: { type: "string" } },
        pick: { type: "number" },
        opts: { type: "object", properties: { deep: { type: "boolean", default: true } } },
      },
    });
    expect(cut.dropped).toEqual(
      expect.arrayContaining([
        "path: 'minLength' not supported by the validator (checked by the server)",
        "head: null allowed by the server; sending null is treated as absent",
        "head: 'exclusiveMaximum' not supported by the validator (checked by the server)",
        "tags[]: 'pattern' not supported by the validator (checked by the server)",
        "pick: anyOf reduced to its one type (branch constraints are checked by the server)",
        "either: optional property dropped (its type cannot be expressed)",
        "need: required, kept without a type (checked by the server)",
        "(root): additionalProperties: false (unknown arguments are dropped before the call anyway)",
      ]),
    );
    expect(cut.dropped.some((d) => d.includes("$schema"))).toBe(false);
    // A required property without a type still has to be sent, and passes through unchecked.
    const ok = validateArguments("t", cut.parameters, { path: "a", need: true, either: 1 });
    expect(ok).toEqual({ ok: true, value: { path: "a", need: true } });
    expect(validateArguments("t", cut.parameters, { path: "a" }).ok).toBe(false);
  });

  it("a schema that is not an object schema gives no parameters, and says so", () => {
    expect(cutInputSchema("nope")).toEqual({
      parameters: { type: "object", properties: {}, required: [] },
      dropped: ["(root): not an object schema"],
    });
    expect(cutInputSchema({ type: "object", properties: { a: { $ref: "#/nowhere" } } }).dropped).toEqual([
      "a: $ref #/nowhere cannot be followed",
      "a: optional property dropped (its type cannot be expressed)",
    ]);
  });
});

describe("MCP tool names", () => {
  it("keeps a free name, shapes odd characters, prefixes a clash with the skill, and keeps names stable", () => {
    const names = new McpToolNames();
    const taken = new Set(["echo"]);
    expect(
      names.assign(
        [
          { skill: "every", tool: "echo" },
          { skill: "fs", tool: "read.file" },
        ],
        taken,
      ),
    ).toEqual(["every__echo", "read_file"]);
    // Listed again with a new tool that now wants `read_file`: the first holder keeps it.
    expect(
      names.assign(
        [
          { skill: "other", tool: "read_file" },
          { skill: "fs", tool: "read.file" },
        ],
        taken,
      ),
    ).toEqual(["other__read_file", "read_file"]);
    expect(names.assign([{ skill: "x", tool: "echo" }], new Set(["echo", "x__echo"]))).toEqual([null]);
    expect(toolNameShape("a".repeat(80))).toHaveLength(64);
  });
});

describe("skill.toml [mcp]", () => {
  function skillDir(toml: string): string {
    const dir = join(tempDir(), "s");
    mkdirSync(dir);
    writeFileSync(join(dir, "skill.toml"), toml);
    return dir;
  }
  const opts = { capabilities: null, sandboxing: "auto" as const, bwrapUsable: true, toolTimeoutCeilingMs: null };

  it("is read with its defaults and category timeouts; its permissions count as the agent's", () => {
    const dir = skillDir('[skill]\nname = "m"\n[mcp]\ncommand = ["srv", "{workspace}"]\npermissions = ["network"]\n');
    const loaded = loadSkills([dir], opts);
    expect(loaded.errors).toEqual([]);
    expect(loaded.mcp).toEqual([
      expect.objectContaining({ skill: "m", skillDir: dir, timeout_ms: 30_000, max_timeout_ms: 300_000 }),
    ]);
    expect(loaded.mcp[0]!.section).toMatchObject({ command: ["srv", "{workspace}"], env: {}, sandboxing: "none" });
    expect(loaded.capabilities).toEqual(["network"]);
  });

  it("a bad [mcp] is an error naming the field; a server lacking a capability is filtered", () => {
    const bad = loadSkills([skillDir('[skill]\nname = "m"\n[mcp]\ncommand = []\n')], opts);
    expect(bad.errors[0]).toMatchObject({ tool: "(mcp server)", reason: expect.stringContaining("[mcp] command") });
    const dir = skillDir('[skill]\nname = "m"\n[mcp]\ncommand = ["srv"]\npermissions = ["shell"]\n');
    const limited = loadSkills([dir], { ...opts, capabilities: ["file_read"] });
    expect(limited.mcp).toEqual([]);
    expect(limited.filtered).toEqual([
      expect.objectContaining({ skill: "m", tool: "(mcp server)", kind: "capability" }),
    ]);
    const strict = loadSkills(
      [skillDir('[skill]\nname = "m"\n[mcp]\ncommand = ["srv"]\nsandboxing = "bubblewrap"\n')],
      {
        ...opts,
        sandboxing: "required",
        bwrapUsable: false,
      },
    );
    expect(strict.filtered[0]).toMatchObject({ kind: "sandbox" });
  });
});
