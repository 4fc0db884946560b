import type { ToolSpec } from "@edgeloop/protocol";
import { retriedCallBudgetMs } from "./retry-delay.js";
import type { WebhookTool } from "./webhook-config.js";

export { MAX_WEBHOOK_RESPONSE_BYTES, runWebhookTool, type WebhookCallContext } from "./webhook-call.js";
export { parseWebhookTools, WebhookTool, type WebhookToolsParse } from "./webhook-config.js";

/**
 * Webhook tools as the loop sees them. They run in the orchestrator, so kind "builtin". The
 * deadline covers the worst case: every attempt using its whole timeout, plus the longest backoffs.
 */
export function webhookToolSpecs(tools: WebhookTool[]): ToolSpec[] {
  return tools.map((tool) => {
    const budget = retriedCallBudgetMs(tool);
    return {
      name: tool.name,
      description: tool.description,
      parameters: tool.parameters,
      timeout_ms: budget,
      max_timeout_ms: budget,
      kind: "builtin",
    };
  });
}
