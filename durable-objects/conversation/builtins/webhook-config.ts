import { ParametersSchema, type Parsed, parseJson, ToolName } from "@edgeloop/protocol";
import { z } from "zod";
import { uniqueNames } from "../../../runtime/vars.js";

/**
 * A webhook tool's definition, read from the `WEBHOOK_TOOLS` var (a JSON array). Because
 * entries may carry a `secret`, deployments should set WEBHOOK_TOOLS with `wrangler secret put`
 * rather than as a plain var in wrangler.toml.
 */
export const WebhookTool = z
  .object({
    /** definitions written for other orchestrators carry `"type": "webhook"`; accepted and ignored */
    type: z.literal("webhook").optional(),
    name: ToolName,
    description: z.string().min(1).max(4096),
    parameters: ParametersSchema.default({ type: "object", properties: {}, required: [] }),
    url: z.string().refine(isHttpUrl, "must be an absolute http(s) URL"),
    // The body is JSON, so only methods that carry one.
    method: z.enum(["POST", "PUT", "PATCH"]).default("POST"),
    headers: z.record(z.string(), z.string()).default({}),
    timeout_secs: z.number().positive().max(300).default(30),
    max_retries: z.number().int().min(0).max(10).default(3),
    policy: z.enum(["auto", "requires_approval"]).default("auto"),
    secret: z.string().min(1).optional(),
  })
  .strict();
export type WebhookTool = z.infer<typeof WebhookTool>;

const WebhookTools = uniqueNames(WebhookTool, "tool name");

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "https:" || url.protocol === "http:";
  } catch {
    return false;
  }
}

export type WebhookToolsParse = { ok: true; tools: WebhookTool[] } | { ok: false; error: string };

/**
 * Errors as values naming the field within the array (`[0].url: must be ...`); the caller adds
 * the var's name. Unset or blank means no webhook tools. Whether plain http is allowed is
 * decided per call (runWebhookTool), not here.
 */
export function parseWebhookTools(json: string | undefined): WebhookToolsParse {
  if (json === undefined || json.trim() === "") return { ok: true, tools: [] };
  const parsed: Parsed<WebhookTool[]> = parseJson(WebhookTools, json);
  if (parsed.ok) return { ok: true, tools: parsed.value };
  const error = parsed.issues.map((i) => (i.path === "" ? i.message : `${fieldPath(i.path)}: ${i.message}`)).join("; ");
  return { ok: false, error };
}

/** "0.url" → "[0].url"; "0.headers.X-Key" → "[0].headers.X-Key" */
function fieldPath(path: string): string {
  return path
    .split(".")
    .map((part) => (/^\d+$/.test(part) ? `[${part}]` : `.${part}`))
    .join("");
}
