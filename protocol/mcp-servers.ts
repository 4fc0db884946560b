import { z } from "zod";

/**
 * Remote MCP servers that need OAuth, as the admin API shows them (`/v1/mcp-servers`) and the CLI
 * reads them (`edgeloop mcp`, `edgeloop mcp connect <name>`).
 */
export const McpServerAuthStatus = z.object({
  name: z.string(),
  /** not_connected: never connected; connecting: an authorization URL was handed out and not used yet */
  status: z.enum(["not_connected", "connecting", "connected", "needs_consent"]),
  /** why, for needs_consent (and a failed connect) */
  detail: z.string().nullable(),
  /** the access token's expiry (ms since the epoch), when the server gave one */
  expires_at: z.number().nullable(),
  updated_at: z.number().nullable(),
});
export type McpServerAuthStatus = z.infer<typeof McpServerAuthStatus>;

export const McpServerList = z.object({ servers: z.array(McpServerAuthStatus) });

export const McpConnectStarted = z.object({
  server: z.string(),
  /** authorize: open `authorization_url` in a browser; connected: nothing to do */
  status: z.enum(["authorize", "connected"]),
  authorization_url: z.string().optional(),
});
export type McpConnectStarted = z.infer<typeof McpConnectStarted>;
