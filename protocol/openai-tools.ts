import type { SkillManifest, ToolManifest } from "./skill-manifest.js";

/** OpenAI Chat Completions tool definition, with EvoClaw's tool metadata (`evoclaw`) alongside. */
export type OpenAITool = {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
};

export type ToolMetadata = {
  binary: string;
  timeout_ms: number;
  max_timeout_ms: number;
  sandbox: boolean;
  permissions: string[];
  version: string;
  skill: string;
  category: string;
};

/** A tool as the loop knows it: what the model is shown, plus what the runtime needs. */
export type ToolSpec = {
  name: string;
  description: string;
  parameters: ToolManifest["parameters"];
  timeout_ms: number;
  max_timeout_ms: number;
  /** "device" tools go to the agent; "builtin" run in the orchestrator; "webhook" are HTTP calls */
  kind: "device" | "builtin" | "webhook";
  /** approval policy: `requires_approval` pauses the call until a person approves it; `auto` runs it at once */
  policy?: "auto" | "requires_approval";
  evoclaw?: ToolMetadata;
  /**
   * A fleet conversation's device tool (docs/fleet.md): the name the devices know it by, and the
   * devices that may run it (one for `{agent_id}__{tool}`, several for a device-less name).
   * Policies, hooks and approval rules apply by `tool`, as for a one-device conversation.
   */
  fleet?: FleetRoute;
};

export type FleetRoute = { tool: string; agents: string[] };

export function toolSpecsFromSkills(skills: SkillManifest[]): ToolSpec[] {
  const seen = new Set<string>();
  const specs: ToolSpec[] = [];
  for (const skill of skills) {
    for (const tool of skill.tools) {
      // First skill wins on a name clash, so the model never sees two tools with one name.
      if (seen.has(tool.name)) continue;
      seen.add(tool.name);
      specs.push({
        name: tool.name,
        description: tool.description,
        parameters: tool.parameters,
        timeout_ms: tool.timeout_ms,
        max_timeout_ms: tool.max_timeout_ms,
        kind: "device",
        ...(tool.policy ? { policy: tool.policy } : {}),
        evoclaw: {
          binary: tool.binary,
          timeout_ms: tool.timeout_ms,
          max_timeout_ms: tool.max_timeout_ms,
          sandbox: tool.sandboxing !== "none",
          permissions: tool.permissions,
          version: skill.version,
          skill: skill.name,
          category: tool.category,
        },
      });
    }
  }
  return specs;
}

/** What goes in the `tools` array of a Chat Completions request. */
export function toOpenAITool(spec: ToolSpec): OpenAITool {
  return {
    type: "function",
    function: {
      name: spec.name,
      description: spec.description,
      parameters: spec.parameters as unknown as Record<string, unknown>,
    },
  };
}
