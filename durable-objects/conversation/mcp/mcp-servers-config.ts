import { type Parsed, parseJson, ToolName } from "@edgeloop/protocol";
import { z } from "zod";
import { uniqueNames } from "../../../runtime/vars.js";

/**
 * `MCP_SERVERS`: remote MCP servers (Streamable HTTP) whose tools conversations may use, a JSON
 * array. Their tools are offered to the model as `{name}__{tool}`; `allowed_tools` limits which
 * (by the server's own names); `policy` is one policy for all of them or one per tool. Entries
 * may carry a bearer token or other secret headers, so set the var with `wrangler secret put`.
 * Whether plain http is allowed is decided per call (runtime/outbound-url.ts). A server with an
 * `oauth` section is connected by an admin (`edgeloop mcp connect <name>`, docs/mcp.md); its tokens
 * are kept by the deployment's McpAuthDO, not here.
 */
const Policy = z.enum(["auto", "requires_approval"]);

/**
 * OAuth for a server that requires it. `{}` discovers everything from the server's 401 and
 * registers edgeloop (client ID metadata document, or dynamic registration); `client_id` (and
 * `client_secret` for a confidential client) use a client registered by hand with the server's
 * authorization server.
 */
export const McpOAuthConfig = z
  .object({
    client_id: z.string().min(1).optional(),
    client_secret: z.string().min(1).optional(),
    /** asked for when neither the server's 401 nor its metadata names scopes */
    scope: z.string().min(1).optional(),
    /**
     * A client ID metadata document hosted elsewhere, used as the client_id where the server
     * supports them; it must list the worker's /v1/mcp-oauth/callback. Default: the worker's own
     * (/v1/mcp-oauth/client-metadata.json) when the worker is reached over https.
     */
    client_metadata_url: z.string().url().startsWith("https://", "must be an https URL").optional(),
  })
  .strict()
  .refine((o) => o.client_secret === undefined || o.client_id !== undefined, {
    message: "client_secret needs client_id",
    path: ["client_secret"],
  });
export type McpOAuthConfig = z.infer<typeof McpOAuthConfig>;

export const McpServerConfig = z
  .object({
    /** the prefix of its tools' names: letters, digits and '-' (no '_', so `__` stays the separator) */
    name: z.string().regex(/^[A-Za-z0-9-]{1,32}$/, "1-32 letters, digits or '-'"),
    url: z.string().refine(isHttpUrl, "must be an absolute http(s) URL"),
    headers: z.record(z.string(), z.string()).default({}),
    /** sent as `Authorization: Bearer <bearer>` */
    bearer: z.string().min(1).optional(),
    allowed_tools: z.array(z.string().min(1)).optional(),
    policy: z.union([Policy, z.record(z.string(), Policy)]).default("auto"),
    /** each attempt's time limit (listing, and each call attempt) */
    timeout_secs: z.number().positive().max(300).default(30),
    /** attempts after the first when the transport fails (network, HTTP 429/5xx) */
    max_retries: z.number().int().min(0).max(10).default(2),
    /** how long a question the server asks a person during a call waits for the answer (then `cancel`) */
    elicitation_timeout_secs: z.number().positive().max(3600).default(300),
    oauth: McpOAuthConfig.optional(),
  })
  .strict()
  .refine((s) => !(s.oauth && (s.bearer || Object.keys(s.headers).some((h) => h.toLowerCase() === "authorization"))), {
    message: "oauth and a bearer token (or an Authorization header) exclude each other",
    path: ["oauth"],
  });
export type McpServerConfig = z.infer<typeof McpServerConfig>;

const McpServers = uniqueNames(McpServerConfig, "server name");

/** Unset or blank means none. Errors name the field within the array (`[0].url: …`). */
export function parseMcpServers(json: string | undefined): Parsed<McpServerConfig[]> | { ok: false; error: string } {
  if (json === undefined || json.trim() === "") return { ok: true, value: [] };
  const parsed = parseJson(McpServers, json);
  if (parsed.ok) return parsed;
  const error = parsed.issues
    .map((i) => (i.path === "" ? i.message : `${i.path.replace(/^(\d+)/, "[$1]")}: ${i.message}`))
    .join("; ");
  return { ok: false, error };
}

/** The name the model sees for a server's tool, or null when it cannot be one (too long). */
export function remoteToolName(server: string, tool: string): string | null {
  const name = `${server}__${tool.replace(/[^a-zA-Z0-9_-]/g, "_")}`;
  return ToolName.safeParse(name).success ? name : null;
}

export function policyOf(server: McpServerConfig, tool: string): "auto" | "requires_approval" {
  return typeof server.policy === "string" ? server.policy : (server.policy[tool] ?? "auto");
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "https:" || url.protocol === "http:";
  } catch {
    return false;
  }
}
