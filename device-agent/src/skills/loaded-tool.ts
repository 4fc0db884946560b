import type { FilteredTool, ToolManifest } from "@edgeloop/protocol";
import type { McpSection } from "../mcp/mcp-section.js";
import type { ToolOutputMode } from "./skill-toml.js";

/** What the agent keeps about an advertised tool beyond its manifest: where it runs from and how. */
export type LoadedTool = {
  manifest: ToolManifest;
  skill: string;
  skillDir: string;
  /** absolute, checked executable at load time */
  binaryPath: string;
  output: ToolOutputMode;
};

/** A skill's `[mcp]` server, to be started by the agent; timeouts resolved like a tool's. */
export type McpDeclaration = {
  skill: string;
  skillDir: string;
  section: McpSection;
  timeout_ms: number;
  max_timeout_ms: number;
};

export type FilterKind = "binary" | "requires" | "capability" | "sandbox" | "duplicate" | "mcp";

/** A tool that was found and is valid but not advertised; `kind` tells doctor whether it is a problem. */
export type FilteredToolInfo = FilteredTool & { kind: FilterKind };

export type SkillLoadError = { file: string; tool?: string; reason: string };
