import { Sandboxing, ToolCategory } from "@edgeloop/protocol/skill-manifest";
import { z } from "zod";

/**
 * The `[mcp]` table of a skill.toml (docs/skills.md): an MCP server the agent starts over stdio and
 * whose tools it advertises as the skill's. Read by skills/skill-toml.ts and load-skills.ts; the
 * server itself is run by mcp-server.ts.
 *
 * `{workspace}` and `{skill_dir}` in `command` and `env` are replaced by the agent's workspace and
 * the skill folder. Permissions, sandboxing and timeouts mean what they mean for a `[[tools]]`
 * entry and apply to every tool of the server (and, for sandboxing, to the server process).
 */
export const McpSection = z
  .object({
    command: z.array(z.string().min(1)).min(1, 'give the program and its arguments, e.g. ["npx", "-y", "…"]'),
    env: z.record(z.string(), z.string()).default({}),
    permissions: z.array(z.string().min(1)).default([]),
    sandboxing: Sandboxing.default("none"),
    category: ToolCategory.default("exec"),
    timeout_ms: z.number().int().positive().optional(),
    max_timeout_ms: z.number().int().positive().optional(),
    /** only these of the server's tools are advertised (by the server's names); default all */
    tools: z.array(z.string().min(1)).optional(),
    /** how long the first start may take before the agent connects without these tools */
    startup_timeout_ms: z.number().int().positive().max(300_000).default(20_000),
  })
  .strict();
export type McpSection = z.infer<typeof McpSection>;

/** Where the placeholders point for one agent and skill. */
export type McpPlaceholders = { workspace: string; skillDir: string };

export function substitute(text: string, at: McpPlaceholders): string {
  return text.replaceAll("{workspace}", at.workspace).replaceAll("{skill_dir}", at.skillDir);
}
