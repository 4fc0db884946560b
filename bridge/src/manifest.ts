import {
  CATEGORY_TIMEOUTS,
  HelloFrame,
  ParametersSchema,
  PROTOCOL_VERSION,
  ToolManifest,
  ToolName,
} from "@edgeloop/protocol";
import type { ToolsListAnswer } from "@edgeloop/protocol/mqtt-payloads";

/** Keys of the JSON-Schema subset our manifests allow; anything else from the field is dropped. */
const PARAM_KEYS = new Set([
  "type",
  "description",
  "default",
  "enum",
  "items",
  "properties",
  "required",
  "minimum",
  "maximum",
]);

/** EvoClaw agents write full JSON Schema (additionalProperties, $schema, …): keep our subset. */
function trimSchema(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(trimSchema);
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (!PARAM_KEYS.has(k)) continue;
    if (k === "properties" && typeof v === "object" && v !== null) {
      out[k] = Object.fromEntries(Object.entries(v).map(([name, p]) => [name, trimSchema(p)]));
    } else if (k === "items") out[k] = trimSchema(v);
    else out[k] = v;
  }
  return out;
}

export type BuiltManifest = { hello: HelloFrame; dropped: { tool: string; reason: string }[] };

/**
 * An EvoClaw agent sends no hello: its `tools_list` answer becomes one, with a synthetic skill
 * "evoclaw" (category other, default timeouts). Tools whose name or parameters we cannot use
 * are left out and reported, the rest are still served.
 */
export function manifestFromToolsList(agentId: string, answer: ToolsListAnswer): BuiltManifest {
  const dropped: BuiltManifest["dropped"] = [];
  const tools: ToolManifest[] = [];
  const defaults = CATEGORY_TIMEOUTS.other;
  for (const t of answer.tools) {
    if (!ToolName.safeParse(t.name).success) {
      dropped.push({ tool: t.name, reason: "name is not a valid tool name" });
      continue;
    }
    const params = ParametersSchema.safeParse(trimSchema(t.parameters ?? {}));
    if (!params.success) {
      dropped.push({ tool: t.name, reason: `parameters: ${params.error.issues[0]?.message}` });
      continue;
    }
    const tool = ToolManifest.safeParse({
      name: t.name,
      description: t.description?.trim() || `EvoClaw tool ${t.name}`,
      binary: `evoclaw:${t.name}`,
      category: "other",
      ...defaults,
      parameters: params.data,
    });
    if (tool.success) tools.push(tool.data);
    else dropped.push({ tool: t.name, reason: tool.error.issues[0]?.message ?? "invalid" });
  }
  const hello = HelloFrame.parse({
    type: "hello",
    protocol: PROTOCOL_VERSION,
    agent_id: agentId,
    version: "evoclaw",
    capabilities: [],
    skills: [
      {
        name: "evoclaw",
        version: "0.0.0",
        description: "tools of an EvoClaw edge agent, served through edgeloop-bridge",
        tools,
      },
    ],
    filtered: dropped.map((d) => ({ skill: "evoclaw", tool: d.tool, reason: d.reason })),
  });
  return { hello, dropped };
}
