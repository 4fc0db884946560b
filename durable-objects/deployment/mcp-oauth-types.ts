import type { McpServerAuthStatus } from "@edgeloop/protocol/mcp-servers";

/**
 * Remote MCP servers' OAuth, as the deployment object offers it (mcp-oauth-store.ts;
 * docs/mcp.md#connecting-a-remote-server-that-needs-oauth): the admin routes connect a server and
 * read the states, the callback route finishes a connection, and conversations ask for a server's
 * access token.
 */
export type { McpServerAuthStatus };

export type ConnectOutcome =
  | { ok: true; status: "connected" }
  | { ok: true; status: "authorize"; authorization_url: string }
  | { ok: false; code: 400 | 404 | 500 | 502; error: string };

/** `expires_at`: until when a caller may keep the token without asking again (null: until refused). */
export type TokenOutcome = { ok: true; token: string; expires_at: number | null } | { ok: false; error: string };

export interface McpOAuthRpc {
  /** Starts a fresh authorization; `workerOrigin` is where the server's authorization server sends the admin back. */
  mcpOAuthBegin(name: string, workerOrigin: string): Promise<ConnectOutcome>;
  /** The redirect back from the authorization server (`state` names the flow). */
  mcpOAuthFinish(state: string, code: string | null, error: string | null): Promise<FinishOutcome>;
  /** The server's access token, renewed first when due or when `refused` (the token the server just refused). */
  mcpOAuthToken(name: string, refused?: string): Promise<TokenOutcome>;
  /** The server answered 403 insufficient_scope: the next connect asks for `scope` too. Returns the error to show. */
  mcpOAuthInsufficientScope(name: string, scope: string | undefined): Promise<string>;
  mcpOAuthStatus(): Promise<McpServerAuthStatus[]>;
}

export type FinishOutcome = { ok: true; server: string } | { ok: false; error: string };

/** Where the authorization server sends the admin back, on the worker. */
export const CALLBACK_PATH = "/v1/mcp-oauth/callback";
/** edgeloop's client ID metadata document (used as its client_id where the server supports it, over https). */
export const CLIENT_METADATA_PATH = "/v1/mcp-oauth/client-metadata.json";
