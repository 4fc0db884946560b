import type { FilteredTool, SkillManifest, ToolManifest } from "@edgeloop/protocol";
import { cutInputSchema } from "@edgeloop/protocol/mcp-input-schema";
import { MCP_SERVER_ENTRY } from "../skills/load-skills.js";
import type { McpDeclaration } from "../skills/loaded-tool.js";
import type { McpToolNames } from "./tool-names.js";

/**
 * The manifest the agent advertises once its MCP servers have listed their tools: the skills as
 * loaded from disk with each server's tools added to its skill, the tools left out and why, and
 * the route from each advertised name back to the server's own tool name. Pure; made again on
 * every listing.
 */
export type McpToolListing = {
  name: string;
  title?: string;
  description?: string;
  inputSchema: unknown;
  execution?: { taskSupport?: string };
};

export type ServerListing = {
  declaration: McpDeclaration;
  /** null: the server has never listed its tools (it did not start) */
  tools: McpToolListing[] | null;
  /** why it is not running, when it is not */
  down: string | null;
};

export type McpRoute = { skill: string; tool: string; manifest: ToolManifest };
export type DroppedSchemaParts = { skill: string; tool: string; name: string; dropped: string[] };

export type McpManifest = {
  skills: SkillManifest[];
  filtered: FilteredTool[];
  routes: Map<string, McpRoute>;
  dropped: DroppedSchemaParts[];
};

const MAX_DESCRIPTION = 4096;

export function buildMcpManifest(
  base: SkillManifest[],
  takenNames: ReadonlySet<string>,
  listings: ServerListing[],
  names: McpToolNames,
): McpManifest {
  const skills = base.map((s) => ({ ...s, tools: [...s.tools] }));
  const filtered: FilteredTool[] = [];
  const routes = new Map<string, McpRoute>();
  const dropped: DroppedSchemaParts[] = [];

  const offered: { declaration: McpDeclaration; tool: McpToolListing }[] = [];
  for (const { declaration, tools, down } of listings) {
    const skill = declaration.skill;
    if (tools === null) {
      filtered.push({ skill, tool: MCP_SERVER_ENTRY, reason: `MCP server not running: ${down ?? "not started yet"}` });
      continue;
    }
    const allowed = declaration.section.tools;
    for (const tool of tools) {
      if (allowed && !allowed.includes(tool.name)) {
        filtered.push({ skill, tool: tool.name, reason: "not in the skill's [mcp] tools list" });
      } else if (tool.execution?.taskSupport === "required") {
        filtered.push({ skill, tool: tool.name, reason: "needs MCP tasks, which this agent does not use" });
      } else {
        offered.push({ declaration, tool });
      }
    }
  }

  const assigned = names.assign(
    offered.map(({ declaration, tool }) => ({ skill: declaration.skill, tool: tool.name })),
    takenNames,
  );
  offered.forEach(({ declaration, tool }, i) => {
    const name = assigned[i];
    const skill = declaration.skill;
    if (!name) {
      filtered.push({ skill, tool: tool.name, reason: "tool name already taken, also with the skill's prefix" });
      return;
    }
    const cut = cutInputSchema(tool.inputSchema);
    if (cut.dropped.length > 0) dropped.push({ skill, tool: tool.name, name, dropped: cut.dropped });
    const section = declaration.section;
    const manifest: ToolManifest = {
      name,
      description: describeTool(tool, skill),
      binary: `mcp:${tool.name}`,
      category: section.category,
      timeout_ms: declaration.timeout_ms,
      max_timeout_ms: declaration.max_timeout_ms,
      permissions: section.permissions,
      sandboxing: section.sandboxing,
      requires: [],
      parameters: cut.parameters,
    };
    routes.set(name, { skill, tool: tool.name, manifest });
    skills.find((s) => s.name === skill)?.tools.push(manifest);
  });
  return { skills, filtered, routes, dropped };
}

function describeTool(tool: McpToolListing, skill: string): string {
  const text = tool.description?.trim() || tool.title?.trim() || `MCP tool '${tool.name}' of skill '${skill}'`;
  return text.slice(0, MAX_DESCRIPTION);
}
