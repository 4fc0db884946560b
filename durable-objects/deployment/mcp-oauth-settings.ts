import { z } from "zod";
import type { VarsOf } from "../../runtime/vars.js";

export const McpAuthVarsSchema = z.object({
  MCP_OAUTH_SECRET: z
    .string()
    .min(16)
    .optional()
    .describe(
      "Secret, at least 16 characters. Seals the OAuth tokens of remote MCP servers (MCP_SERVERS entries with " +
        "`oauth`) at rest (AES-GCM); needed before `edgeloop mcp connect`. Changing it means connecting them again.",
    ),
});

export type McpAuthVars = VarsOf<typeof McpAuthVarsSchema.shape>;

/** What an admin reads when the secret is missing, at connect time and in a tool's error. */
export const MISSING_SECRET =
  "MCP_OAUTH_SECRET is not set: set it (`wrangler secret put MCP_OAUTH_SECRET`, or .dev.vars locally; " +
  "16 characters or more) to connect MCP servers that need OAuth";
