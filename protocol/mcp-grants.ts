import { z } from "zod";
import { KeyScope } from "./api-keys.js";

/**
 * OAuth grants to the fleet's MCP server (`/mcp`): what an admin approved on the consent page for
 * an MCP client (Claude, ChatGPT, a desktop app). Each grant is carried by a scoped key
 * (`key_id`, listed with the keys), so it reaches exactly what that key reaches. Shared by the
 * admin API (`/v1/mcp/grants`) and the CLI (`edgeloop mcp grants`, `edgeloop mcp revoke`).
 */
export const McpGrantView = z.object({
  grant_id: z.string(),
  client_id: z.string(),
  client_name: z.string(),
  redirect_uri: z.string(),
  key_id: z.string(),
  agents: z.array(z.string()),
  pools: z.array(z.string()),
  scopes: z.array(KeyScope),
  created_at: z.number(),
  expires_at: z.number().nullable(),
});
export type McpGrantView = z.infer<typeof McpGrantView>;

export const McpGrantList = z.object({ grants: z.array(McpGrantView) });

/**
 * `grant_` and the OAuth library's id (letters, digits, `_` and `-`): the prefix keeps an id that
 * starts with `-` from reading as a flag on a command line.
 */
export const GRANT_ID_PREFIX = "grant_";
export const McpGrantId = z.string().regex(/^grant_[A-Za-z0-9_-]{1,128}$/, "a grant id from `edgeloop mcp grants`");

/** `DELETE /v1/mcp/grants/:id`. */
export const RevokedMcpGrant = z.object({ grant_id: z.string(), key_id: z.string(), revoked: z.literal(true) });
