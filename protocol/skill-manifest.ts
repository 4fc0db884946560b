import { z } from "zod";
import { ToolName } from "./ids.js";

/**
 * The JSON-Schema subset a skill may use for its parameters: types, descriptions, defaults,
 * enums, required. Kept small on purpose so every validator (workerd and Node) agrees on it.
 */
export type ParameterSchema = {
  type: "string" | "integer" | "number" | "boolean" | "array" | "object";
  description?: string;
  default?: unknown;
  enum?: unknown[];
  items?: ParameterSchema;
  properties?: Record<string, ParameterSchema>;
  required?: string[];
  minimum?: number;
  maximum?: number;
};

export const ParameterSchema: z.ZodType<ParameterSchema> = z.lazy(() =>
  z
    .object({
      type: z.enum(["string", "integer", "number", "boolean", "array", "object"]),
      description: z.string().optional(),
      default: z.unknown().optional(),
      enum: z.array(z.unknown()).min(1).optional(),
      items: ParameterSchema.optional(),
      properties: z.record(z.string(), ParameterSchema).optional(),
      required: z.array(z.string()).optional(),
      minimum: z.number().optional(),
      maximum: z.number().optional(),
    })
    .strict(),
);

export const ParametersSchema = z
  .object({
    type: z.literal("object").default("object"),
    properties: z.record(z.string(), ParameterSchema).default({}),
    required: z.array(z.string()).default([]),
  })
  .strict();
export type ParametersSchema = z.infer<typeof ParametersSchema>;

/** The default and maximum timeouts (CATEGORY_TIMEOUTS) are keyed by these categories. */
export const ToolCategory = z.enum(["file", "web", "exec", "git", "other"]);
export type ToolCategory = z.infer<typeof ToolCategory>;

export const CATEGORY_TIMEOUTS: Record<ToolCategory, { timeout_ms: number; max_timeout_ms: number }> = {
  file: { timeout_ms: 5_000, max_timeout_ms: 30_000 },
  web: { timeout_ms: 30_000, max_timeout_ms: 120_000 },
  exec: { timeout_ms: 30_000, max_timeout_ms: 300_000 },
  git: { timeout_ms: 60_000, max_timeout_ms: 300_000 },
  other: { timeout_ms: 10_000, max_timeout_ms: 60_000 },
};

export const Sandboxing = z.enum(["none", "bubblewrap", "firejail"]);

/** One tool as a device advertises it in `hello` (defaults already resolved by the agent). */
export const ToolManifest = z.object({
  name: ToolName,
  description: z.string().min(1).max(4096),
  binary: z.string().min(1),
  category: ToolCategory,
  timeout_ms: z.number().int().positive(),
  max_timeout_ms: z.number().int().positive(),
  permissions: z.array(z.string()).default([]),
  sandboxing: Sandboxing.default("none"),
  requires: z.array(z.string()).default([]),
  parameters: ParametersSchema,
  /**
   * The tool's own approval policy, for tools that must not run unasked by default (an OpenClaw
   * node's camera or SMS commands); `TOOL_POLICIES` overrides it either way.
   */
  policy: z.enum(["auto", "requires_approval"]).optional(),
});
export type ToolManifest = z.infer<typeof ToolManifest>;

export const MAX_WORKFLOW_CHARS = 16_384;

export const SkillManifest = z.object({
  name: z.string().min(1).max(128),
  version: z.string().default("0.0.0"),
  description: z.string().optional(),
  /** the skill's workflow text (its WORKFLOW.md), loaded by the `skill` built-in */
  workflow: z.string().max(MAX_WORKFLOW_CHARS).optional(),
  tools: z.array(ToolManifest),
});
export type SkillManifest = z.infer<typeof SkillManifest>;

/** A tool the agent found but does not advertise, and why (missing binary, capability...). */
export const FilteredTool = z.object({ skill: z.string(), tool: z.string(), reason: z.string() });
export type FilteredTool = z.infer<typeof FilteredTool>;
