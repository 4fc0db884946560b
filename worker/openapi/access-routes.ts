import { ApiKeyView, CreateKeyRequest, IssuedKey } from "@edgeloop/protocol/api-keys";
import { z } from "zod";
import { ADMIN, api, json, type Route, revoked, text } from "./route.js";

/** DNS rebinding protection on every /mcp method (worker/middleware/refuse-foreign-origin.ts). */
const FOREIGN_ORIGIN = text(
  "Forbidden origin: an `Origin` other than the worker's own and MCP_ALLOWED_ORIGINS, or a non-loopback `Host` " +
    "reaching a loopback address (DNS rebinding)",
  "application/problem+json",
);

/** The fleet as an MCP server, and scoped API keys. */
export const ACCESS_ROUTES: Route[] = [
  {
    method: "POST",
    path: "/mcp",
    summary: "The fleet as an MCP server (Streamable HTTP): device tools, send_message, list_devices, …",
    tag: "mcp",
    auth: api("mcp"),
    responses: { 200: json("a JSON-RPC answer (or an SSE stream of them)"), 403: FOREIGN_ORIGIN },
  },
  {
    method: "DELETE",
    path: "/mcp",
    summary: "End an MCP session (`Mcp-Session-Id`)",
    tag: "mcp",
    auth: api("mcp"),
    responses: { 200: { description: "ended" }, 403: FOREIGN_ORIGIN },
  },
  {
    method: "GET",
    path: "/mcp",
    summary: "Always 405: the server sends no stream outside a request",
    tag: "mcp",
    auth: api("mcp"),
    responses: { 403: FOREIGN_ORIGIN, 405: json("JSON-RPC error -32000") },
  },
  {
    method: "POST",
    path: "/v1/keys",
    summary: "Issue a scoped API key, shown once (only its hash is kept)",
    tag: "keys",
    auth: ADMIN,
    body: CreateKeyRequest,
    responses: { 201: json("the key", IssuedKey) },
  },
  {
    method: "GET",
    path: "/v1/keys",
    summary: "List keys (never the keys themselves)",
    tag: "keys",
    auth: ADMIN,
    responses: { 200: json("the keys", z.looseObject({ keys: z.array(ApiKeyView) })) },
  },
  {
    method: "DELETE",
    path: "/v1/keys/:id",
    summary: "Revoke a key: the next request with it is refused",
    tag: "keys",
    auth: ADMIN,
    responses: { 200: revoked("key_id") },
  },
];
