import { CATEGORY_TIMEOUTS, type ParameterSchema, type ToolManifest } from "@edgeloop/protocol";

/** A node command's tool as edgeloop offers it: name, description, timeouts, parameters. */
export type KnownTool = Omit<ToolManifest, "binary" | "permissions" | "sandboxing" | "requires">;

const other = CATEGORY_TIMEOUTS.other;

/**
 * A command in the `other` category: its tool is named after it (`.` → `_`). With no properties it
 * is a read-only command with no parameters: the node answers JSON, which the model gets as text.
 */
export const tool = (
  command: string,
  description: string,
  properties: Record<string, ParameterSchema> = {},
  required: string[] = [],
): KnownTool => ({
  name: command.replaceAll(".", "_"),
  description,
  category: "other",
  timeout_ms: other.timeout_ms,
  max_timeout_ms: other.max_timeout_ms,
  parameters: { type: "object", properties, required },
});
