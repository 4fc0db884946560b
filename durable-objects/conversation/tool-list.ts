import { type SkillManifest, type ToolSpec, toolSpecsFromSkills } from "@edgeloop/protocol";
import { BUILTINS, builtinToolSpecs, questionToolSpec } from "./builtins/index.js";
import { type WebhookTool, webhookToolSpecs } from "./builtins/webhook-tools.js";

/**
 * The tools a message's run offers the model: the device's, then the orchestrator's (built-ins,
 * `question`, the deployment's webhook tools, the remote MCP servers' tools). A device tool wins a
 * name clash.
 */
export function conversationTools(
  skills: SkillManifest[],
  webhookTools: WebhookTool[],
  remoteMcpTools: ToolSpec[] = [],
): ToolSpec[] {
  const deviceTools = toolSpecsFromSkills(skills);
  const taken = new Set(deviceTools.map((t) => t.name));
  return [
    ...deviceTools,
    ...[...builtinToolSpecs(BUILTINS), questionToolSpec, ...webhookToolSpecs(webhookTools), ...remoteMcpTools].filter(
      (t) => !taken.has(t.name) && taken.add(t.name),
    ),
  ];
}
