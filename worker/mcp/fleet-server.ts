import { Identifier } from "@edgeloop/protocol";
import { fleetToolName, parseFleetToolName } from "@edgeloop/protocol/fleet-tool-names";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  CancelledNotificationSchema,
  ListToolsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { conversationFor, mcpSessionFor, registryOf } from "../../durable-objects/addresses.js";
import { NO_SCHEMA_VALIDATION } from "../../durable-objects/conversation/mcp/no-schema-validation.js";
import type { WorkerConfig } from "../../durable-objects/front-door/front-door-config.js";
import { canSee, hasScope, mayReach, type Principal } from "../../runtime/access.js";
import type { Env } from "../env.js";
import { errorResult } from "./call-results.js";
import { callDeviceTool } from "./device-call.js";
import { FLEET_TOOL_SCOPES, listFleetTools } from "./fleet-tools.js";
import { sendMessage } from "./send-message.js";

export const FLEET_SERVER_NAME = "edgeloop-fleet";

const INSTRUCTIONS =
  "Tools named {agent_id}__{tool} run on that device through edgeloop's durable loop (the deployment's policies, approvals and audit apply). send_message talks to a device's own agent; list_devices shows which devices are online.";

/**
 * The fleet's MCP server, built fresh for each HTTP request (the Streamable HTTP transport in
 * stateless mode: the session itself is kept by McpSessionDO, see mcp-route.ts). The SDK handles
 * the protocol (initialize, version negotiation, ping, JSON-RPC errors); these handlers answer
 * tools/list, tools/call and notifications/cancelled. A scoped principal's server offers only what
 * its scopes allow, only its devices, and only its conversations: anything else answers as unknown.
 */
export function fleetServer(env: Env, config: WorkerConfig, sessionId: string | null, principal: Principal): Server {
  const server = new Server(
    { name: FLEET_SERVER_NAME, version: "0.1.0" },
    {
      // Devices come and go, but nothing here can push to a client between its requests (no GET
      // stream): clients list again when they want the current set.
      capabilities: { tools: { listChanged: false } },
      instructions: INSTRUCTIONS,
      jsonSchemaValidator: NO_SCHEMA_VALIDATION,
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, (request) => listFleetTools(env, principal, request.params?.cursor));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const { name } = request.params;
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    const session = sessionId ?? "";
    const requestKey = JSON.stringify(extra.requestId);
    const remember = (id: string) => mcpSessionFor(env, session).noteCall(requestKey, id);
    const fleetTool = FLEET_TOOL_SCOPES[name];
    if (fleetTool && !hasScope(principal, fleetTool)) return unknownTool(name);
    switch (name) {
      case "send_message":
        return sendMessage(env, config, principal, args, extra, remember);
      case "list_devices":
        return listDevices(env, principal);
      case "get_conversation":
        return getConversation(env, principal, args);
    }
    const target = parseFleetToolName(name);
    if (!target || !hasScope(principal, "tools") || !mayReach(principal.reach, target.agent_id))
      return unknownTool(name);
    return callDeviceTool(
      env,
      { sessionId: session, requestId: extra.requestId, agentId: target.agent_id, tool: target.tool, args, principal },
      extra,
      remember,
    );
  });
  // Handled by the route before the transport sees it (see cancelRequest): here the SDK would only
  // abort this request's own handlers, and this server instance has none running.
  server.setNotificationHandler(CancelledNotificationSchema, () => undefined);
  return server;
}

/**
 * `notifications/cancelled`: the request it names may be running in another isolate, so it is
 * found through the session, which noted the conversation each tools/call started; that run is
 * cancelled (a device call's cancel reaches the device).
 */
export async function cancelRequest(
  env: Env,
  sessionId: string,
  requestId: string | number,
  reason: string | undefined,
): Promise<void> {
  const started = await mcpSessionFor(env, sessionId).callFor(JSON.stringify(requestId));
  if (started) await conversationFor(env, started).cancel(`MCP client: ${reason ?? "cancelled"}`);
}

const unknownTool = (name: string) =>
  errorResult(`unknown tool '${name}': device tools are named {agent_id}__{tool} (see tools/list)`);

async function listDevices(env: Env, principal: Principal): Promise<CallToolResult> {
  const known = (await registryOf(env).list()).filter((d) => mayReach(principal.reach, d.agent_id));
  const devices = known.map((d) => ({
    agent_id: d.agent_id,
    online: d.online,
    version: d.version,
    last_seen: d.last_seen ? new Date(d.last_seen).toISOString() : null,
    tools: d.tools.map((t) => fleetToolName(d.agent_id, t)).filter((t): t is string => t !== null),
  }));
  return { content: [{ type: "text", text: JSON.stringify(devices, null, 2) }], structuredContent: { devices } };
}

async function getConversation(env: Env, principal: Principal, args: Record<string, unknown>): Promise<CallToolResult> {
  const id = Identifier.safeParse(args.conversation_id);
  if (!id.success) return errorResult(`invalid arguments: conversation_id: ${id.error.issues[0]!.message}`);
  const stub = conversationFor(env, id.data);
  if (principal.scoped) {
    const { exists, owner } = await stub.ownership();
    if (!exists || !canSee(principal, owner)) return errorResult(`no conversation '${id.data}'`);
  }
  const view = await stub.getConversation();
  if (!view) return errorResult(`no conversation '${id.data}'`);
  return { content: [{ type: "text", text: JSON.stringify(view, null, 2) }] };
}
