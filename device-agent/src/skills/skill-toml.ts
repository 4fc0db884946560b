import { ToolName } from "@edgeloop/protocol/ids";
import { ParametersSchema, Sandboxing, ToolCategory } from "@edgeloop/protocol/skill-manifest";
import { z } from "zod";

/**
 * skill.toml as written by a skill author (docs/skills.md): timeouts may be left to the category,
 * `binary` is relative to the skill folder, and `output` is for the agent only.
 * Tools are validated one by one, so a bad tool entry does not hide its siblings.
 */
export const SkillHeader = z
  .object({
    name: z.string().min(1).max(128),
    version: z.string().max(64).default("0.0.0"),
    description: z.string().optional(),
  })
  .strict();

export const SkillFile = z.object({
  skill: SkillHeader,
  tools: z.array(z.unknown()).default([]),
  /** an MCP server whose tools are the skill's (mcp/mcp-section.ts), checked on its own */
  mcp: z.unknown().optional(),
});

export const ToolOutputMode = z.enum(["text", "content"]);
export type ToolOutputMode = z.infer<typeof ToolOutputMode>;

export const ToolEntry = z
  .object({
    name: ToolName,
    binary: z.string().min(1),
    description: z.string().min(1).max(4096),
    category: ToolCategory.default("other"),
    timeout_ms: z.number().int().positive().optional(),
    max_timeout_ms: z.number().int().positive().optional(),
    permissions: z.array(z.string().min(1)).default([]),
    sandboxing: Sandboxing.default("none"),
    requires: z.array(z.string().min(1)).default([]),
    output: ToolOutputMode.default("text"),
    parameters: ParametersSchema.default({ type: "object", properties: {}, required: [] }),
  })
  .strict();
export type ToolEntry = z.infer<typeof ToolEntry>;
