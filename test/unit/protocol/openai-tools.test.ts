import { readFileSync } from "node:fs";
import { type SkillManifest, toOpenAITool, toolSpecsFromSkills } from "@edgeloop/protocol";
import { parse } from "smol-toml";
import { describe, expect, it } from "vitest";

const skill: SkillManifest = {
  name: "desktop-tools",
  version: "2.0.0",
  tools: [
    {
      name: "bash",
      description: "Execute shell commands",
      binary: "bin/dt-bash",
      category: "exec",
      timeout_ms: 30000,
      max_timeout_ms: 300000,
      permissions: ["shell", "network"],
      sandboxing: "bubblewrap",
      requires: ["bash"],
      parameters: {
        type: "object",
        properties: { command: { type: "string", description: "Shell command to execute" } },
        required: ["command"],
      },
    },
  ],
};

describe("skill manifest → tool schemas", () => {
  it("produces the OpenAI tool and its evoclaw metadata block", () => {
    const [spec] = toolSpecsFromSkills([skill]);
    expect(spec!.evoclaw).toEqual({
      binary: "bin/dt-bash",
      timeout_ms: 30000,
      max_timeout_ms: 300000,
      sandbox: true,
      permissions: ["shell", "network"],
      version: "2.0.0",
      skill: "desktop-tools",
      category: "exec",
    });
    expect(toOpenAITool(spec!)).toEqual({
      type: "function",
      function: { name: "bash", description: "Execute shell commands", parameters: skill.tools[0]!.parameters },
    });
  });

  it("carries a tool's own approval policy, and none when it has none", () => {
    const asking = { ...skill, tools: [{ ...skill.tools[0]!, policy: "requires_approval" as const }] };
    expect(toolSpecsFromSkills([asking])[0]!.policy).toBe("requires_approval");
    expect(toolSpecsFromSkills([skill])[0]!).not.toHaveProperty("policy");
  });

  it("keeps the first of two tools with one name, so the model never sees a duplicate", () => {
    const other = { ...skill, name: "other", tools: [{ ...skill.tools[0]!, description: "second" }] };
    const specs = toolSpecsFromSkills([skill, other]);
    expect(specs).toHaveLength(1);
    expect(specs[0]!.description).toBe("Execute shell commands");
  });

  it("the bundled bash tool's schema declares the parameters the loop validates", () => {
    const toml = parse(readFileSync(new URL("../../../skills/desktop-tools/skill.toml", import.meta.url), "utf8")) as {
      tools: { name: string; parameters: { required: string[] } }[];
    };
    expect(toml.tools.find((t) => t.name === "bash")!.parameters.required).toEqual(["command"]);
  });
});
