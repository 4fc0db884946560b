import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  CancelledNotificationSchema,
  type InitializeRequest,
  isInitializeRequest,
  isJSONRPCRequest,
  type JSONRPCMessage,
  LATEST_PROTOCOL_VERSION,
} from "@modelcontextprotocol/sdk/types.js";
import { Hono } from "hono";
import { mcpSessionFor } from "../../durable-objects/addresses.js";
import type { AppEnv } from "../env.js";
import { authorize } from "../middleware/authorize.js";
import { countRejections } from "../middleware/count-rejections.js";
import { refuseForeignOrigin } from "../middleware/refuse-foreign-origin.js";
import { readRawBody } from "../read-body.js";
import { cancelRequest, fleetServer } from "./fleet-server.js";

/**
 * `/mcp`: the fleet as an MCP server over Streamable HTTP (docs/mcp.md). Bearer API token (or the
 * admin token, a scoped key, or an OAuth access token: oauth/authorization-server.ts), from no browser origin but the worker's own and those MCP_ALLOWED_ORIGINS names
 * (middleware/refuse-foreign-origin.ts). `POST` carries JSON-RPC; the answer is JSON, or an SSE stream when a tools/call
 * asks for progress (it carries a progress token). `initialize` opens a session (`Mcp-Session-Id`,
 * kept by McpSessionDO so any isolate can serve the next request); every later request must name
 * an open session (missing → 400, unknown or closed → 404). `DELETE` closes it. `GET` is 405:
 * this server offers no stream outside a request.
 *
 * A scoped key (scope `mcp`) gets a server limited to it: its devices' tools (with scope `tools`),
 * its own conversations, and sessions that only it can use (another token gets 404 for them).
 */
export const mcp = new Hono<AppEnv>();

mcp.use("*", countRejections("/mcp"), refuseForeignOrigin, authorize("mcp", { oauth: true }));

const SESSION_HEADER = "mcp-session-id";

mcp.post("/", async (c) => {
  const { config, principal } = c.var;
  const raw = await readRawBody(c, config.MAX_BODY_BYTES);
  if (!raw.ok) return raw.response;
  let body: unknown;
  try {
    body = JSON.parse(raw.value);
  } catch {
    return rpcError(400, -32700, "Parse error: the body is not JSON");
  }
  const messages = (Array.isArray(body) ? body : [body]) as JSONRPCMessage[];
  const init = messages.find((m) => isInitializeRequest(m)) as InitializeRequest | undefined;

  let sessionId: string;
  if (init) {
    sessionId = crypto.randomUUID();
  } else {
    const given = c.req.header(SESSION_HEADER);
    if (!given) return rpcError(400, -32000, "Bad Request: Mcp-Session-Id header is required (initialize first)");
    if (!(await mcpSessionFor(c.env, given).touch(principal))) return rpcError(404, -32001, "Session not found");
    sessionId = given;
  }

  // A cancel must be done before the 202 goes out: nothing of this request runs after that.
  for (const m of messages) {
    const cancel = CancelledNotificationSchema.safeParse(m);
    if (cancel.success && cancel.data.params.requestId !== undefined)
      await cancelRequest(c.env, sessionId, cancel.data.params.requestId, cancel.data.params.reason);
  }

  // Stream only what has something to stream: a tools/call that asked for progress.
  const stream = messages.some(
    (m) => isJSONRPCRequest(m) && m.method === "tools/call" && m.params?._meta?.progressToken !== undefined,
  );
  const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: !stream });
  await fleetServer(c.env, config, sessionId, principal).connect(transport);
  const response = await transport.handleRequest(c.req.raw, { parsedBody: body });
  if (!init) return response;
  if (response.status !== 200) return response;
  await mcpSessionFor(c.env, sessionId).open({
    client: { name: init.params.clientInfo.name, version: init.params.clientInfo.version },
    protocol_version: init.params.protocolVersion ?? LATEST_PROTOCOL_VERSION,
    principal: principal.id,
  });
  const headers = new Headers(response.headers);
  headers.set(SESSION_HEADER, sessionId);
  return new Response(response.body, { status: response.status, headers });
});

mcp.delete("/", async (c) => {
  const sessionId = c.req.header(SESSION_HEADER);
  if (!sessionId) return rpcError(400, -32000, "Bad Request: Mcp-Session-Id header is required");
  const closed = await mcpSessionFor(c.env, sessionId).close(c.var.principal);
  return closed ? new Response(null, { status: 200 }) : rpcError(404, -32001, "Session not found");
});

mcp.get("/", () =>
  rpcError(405, -32000, "Method not allowed: this server sends no stream outside a request", { allow: "POST, DELETE" }),
);

/** Transport-level errors in the JSON-RPC shape MCP clients read (as the SDK's transport answers them). */
function rpcError(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}
