import { McpConnectStarted, McpServerList } from "@edgeloop/protocol/mcp-servers";
import { ADMIN, json, PUBLIC, problem, type Route, text } from "./route.js";

/** Remote MCP servers that need OAuth: an admin connects them (docs/mcp.md#connecting-a-remote-server-that-needs-oauth). */
export const MCP_SERVER_ROUTES: Route[] = [
  {
    method: "GET",
    path: "/v1/mcp-servers",
    summary: "The OAuth state of each MCP_SERVERS entry with `oauth`: connected, needs consent (and why), …",
    tag: "mcp",
    auth: ADMIN,
    responses: { 200: json("one entry per server", McpServerList) },
  },
  {
    method: "POST",
    path: "/v1/mcp-servers/:name/connect",
    summary:
      "Start authorizing edgeloop with a remote MCP server: discovery from its 401, registration, PKCE; " +
      "answers the URL for the admin to open",
    tag: "mcp",
    auth: ADMIN,
    responses: {
      200: json("the authorization URL to open, or connected already", McpConnectStarted),
      400: problem("the server has no `oauth` section, or its URL is refused"),
      404: problem("no such server in MCP_SERVERS"),
      500: problem("MCP_OAUTH_SECRET (or MCP_SERVERS) is not set right"),
      502: problem("the server or its authorization server could not be used"),
    },
  },
  {
    method: "GET",
    path: "/v1/mcp-oauth/callback",
    summary: "Where the server's authorization server sends the admin back (`code`, `state`): finishes the connection",
    tag: "mcp",
    auth: PUBLIC,
    responses: {
      200: text("connected", "text/html"),
      400: text("not connected, and why", "text/html"),
    },
  },
  {
    method: "GET",
    path: "/v1/mcp-oauth/client-metadata.json",
    summary: "edgeloop's OAuth client ID metadata document (its client_id where a server supports them, over https)",
    tag: "mcp",
    auth: PUBLIC,
    responses: { 200: json("the client metadata") },
  },
];
