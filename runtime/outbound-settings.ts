import { z } from "zod";
import type { OutboundUrlPolicy } from "./outbound-url.js";
import type { VarsOf } from "./vars.js";

/**
 * The local-testing flag for outbound requests (reply_url, webhook tools, remote MCP servers):
 * `ALLOW_PRIVATE_OUTBOUND=true` lets them use plain http and reach loopback and private addresses.
 * `ALLOW_HTTP_WEBHOOK_TOOLS=true`, its older name, means the same. Declared here because both the
 * front door (a message's reply_url) and the conversation (its deliveries and tools) read it.
 */
export const OutboundVarsSchema = z.object({
  ALLOW_PRIVATE_OUTBOUND: z
    .enum(["true", "false"])
    .optional()
    .describe(
      "Local testing only: `true` lets `reply_url`, webhook tools and MCP servers use plain http and reach " +
        "loopback and private addresses, which are refused otherwise (docs/security.md).",
    ),
  ALLOW_HTTP_WEBHOOK_TOOLS: z.enum(["true", "false"]).optional().describe("The older name of ALLOW_PRIVATE_OUTBOUND."),
});

export type OutboundVars = VarsOf<typeof OutboundVarsSchema.shape>;

export function outboundPolicy(v: z.output<typeof OutboundVarsSchema>): OutboundUrlPolicy {
  return { allowPrivate: v.ALLOW_PRIVATE_OUTBOUND === "true" || v.ALLOW_HTTP_WEBHOOK_TOOLS === "true" };
}
