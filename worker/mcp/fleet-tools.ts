import { Identifier, toolSpecsFromSkills } from "@edgeloop/protocol";
import type { KeyScope } from "@edgeloop/protocol/api-keys";
import { exposable, fleetToolName } from "@edgeloop/protocol/fleet-tool-names";
import { ErrorCode, McpError, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { hubFor, registryOf } from "../../durable-objects/addresses.js";
import { hasScope, mayReach, type Principal } from "../../runtime/access.js";
import type { Env } from "../env.js";

/**
 * The fleet's MCP tool list: three tools of the fleet itself, then every online device's tools as
 * `{agent_id}__{tool}` (protocol/fleet-tool-names.ts), with the schema and description the device advertised.
 * Paged by device (`nextCursor`), so a large fleet is not one huge answer.
 */
export const DEVICES_PER_PAGE = 20;

export const FLEET_TOOLS: Tool[] = [
  {
    name: "send_message",
    title: "Send a message to a device's agent",
    description:
      "Start (or continue) a conversation with the edgeloop agent on a device or a pool of devices. The agent runs its tool loop on the device and this call returns its reply; progress notifications report each tool call while it runs.",
    inputSchema: {
      type: "object",
      properties: {
        agent_id: { type: "string", description: "the device (give this or pool)" },
        pool: { type: "string", description: "a pool of devices; one online device of it is picked" },
        tools: { type: "array", items: { type: "string" }, description: "with a pool: tools the device must have" },
        text: { type: "string", description: "the message" },
        conversation_id: { type: "string", description: "continue this conversation (default: a new one)" },
        wait_seconds: {
          type: "integer",
          minimum: 1,
          maximum: 600,
          default: 50,
          description: "how long to wait for the reply before answering that the conversation is still running",
        },
      },
      required: ["text"],
    },
  },
  {
    name: "list_devices",
    title: "List devices",
    description: "Every device this deployment knows: online or not, version, last seen, and its tools as MCP names.",
    inputSchema: { type: "object", properties: {} },
    annotations: { readOnlyHint: true },
  },
  {
    name: "get_conversation",
    title: "Get a conversation",
    description: "A conversation's status, messages, replies and calls waiting for approval.",
    inputSchema: {
      type: "object",
      properties: { conversation_id: { type: "string" } },
      required: ["conversation_id"],
    },
    annotations: { readOnlyHint: true },
  },
];

/** The scope each of the fleet's own tools needs from a scoped key. */
export const FLEET_TOOL_SCOPES: Record<string, KeyScope> = {
  send_message: "messages",
  list_devices: "devices:read",
  get_conversation: "conversations:read",
};

const Cursor = z.object({ after: Identifier });

/**
 * A scoped principal sees the fleet tools its scopes allow (FLEET_TOOL_SCOPES), and device tools
 * only with the scope `tools`, only of its own devices.
 */
export async function listFleetTools(
  env: Env,
  principal: Principal,
  cursor?: string,
): Promise<{ tools: Tool[]; nextCursor?: string }> {
  const after = cursor === undefined ? null : decodeCursor(cursor);
  const devicesShown = hasScope(principal, "tools");
  const online = (devicesShown ? await registryOf(env).list() : [])
    .filter((d) => d.online && exposable(d.agent_id) && mayReach(principal.reach, d.agent_id))
    .map((d) => d.agent_id)
    .sort();
  const rest = after === null ? online : online.filter((id) => id > after);
  const page = rest.slice(0, DEVICES_PER_PAGE);
  const perDevice = await Promise.all(page.map((agentId) => deviceTools(env, agentId)));
  const own = FLEET_TOOLS.filter((t) => {
    const scope = FLEET_TOOL_SCOPES[t.name];
    return scope === undefined || hasScope(principal, scope);
  });
  const tools = [...(after === null ? own : []), ...perDevice.flat()];
  const last = page[page.length - 1];
  return rest.length > page.length && last ? { tools, nextCursor: encodeCursor(last) } : { tools };
}

async function deviceTools(env: Env, agentId: string): Promise<Tool[]> {
  const specs = toolSpecsFromSkills(await hubFor(env, agentId).getSkills(agentId));
  const tools: Tool[] = [];
  for (const spec of specs) {
    const name = fleetToolName(agentId, spec.name);
    if (!name) continue;
    tools.push({
      name,
      title: `${spec.name} on ${agentId}`,
      description: `[device ${agentId}] ${spec.description}`,
      inputSchema: {
        type: "object",
        properties: spec.parameters.properties as Record<string, object>,
        required: spec.parameters.required,
      },
    });
  }
  return tools;
}

function encodeCursor(after: string): string {
  return btoa(JSON.stringify({ after })).replace(/=+$/, "");
}

function decodeCursor(cursor: string): string {
  let raw: unknown;
  try {
    raw = JSON.parse(atob(cursor));
  } catch {
    raw = null;
  }
  const parsed = Cursor.safeParse(raw);
  if (!parsed.success) throw new McpError(ErrorCode.InvalidParams, "invalid cursor: pass nextCursor as it was given");
  return parsed.data.after;
}
