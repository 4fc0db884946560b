import { type Parsed, parseJson, ToolName } from "@edgeloop/protocol";
import { z } from "zod";
import { uniqueNames } from "../../../runtime/vars.js";

/**
 * `MCP_SERVERS`: remote MCP servers (Streamable HTTP) whose tools conversations may use, a JSON
 * array. Their tools are offered to the model as `{name}__{tool}`; `allowed_tools` limits which
 * (by the server's own names); `policy` is one policy for all of them or one per tool. Entries
 * may carry a bearer token or other secret headers, so set the var with `wrangler secret put`.
 * Whether plain http is allowed is decided per call (runtime/outbound-url.ts).
 */
const Policy = z.enum(["auto", "requires_approval"]);

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
  })
  .strict();
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
