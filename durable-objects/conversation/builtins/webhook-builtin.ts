import type { OutboundUrlPolicy } from "../../../runtime/outbound-url.js";
import type { Builtin } from "./types.js";
import { runWebhookTool } from "./webhook-call.js";
import type { WebhookTool } from "./webhook-config.js";
import { webhookToolSpecs } from "./webhook-tools.js";

/**
 * A configured webhook tool as a Builtin, so the shell can run built-ins and webhook tools the
 * same way (and the tool's approval policy travels with it).
 */
export function webhookBuiltin(
  tool: WebhookTool,
  options: { outbound: OutboundUrlPolicy; fetch?: typeof fetch },
): Builtin {
  const spec = webhookToolSpecs([tool])[0]!;
  return {
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
    policy: tool.policy,
    timeout_ms: spec.timeout_ms,
    async run(args, ctx) {
      const outcome = await runWebhookTool(tool, args, {
        request_id: ctx.request_id,
        tool_call_id: ctx.tool_call_id,
        conversation_id: ctx.conversation_id,
        outbound: options.outbound,
        now: () => ctx.now(),
        ...(options.fetch ? { fetch: options.fetch } : {}),
      });
      return { kind: "done", outcome };
    },
  };
}
