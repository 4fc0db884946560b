import type { ToolOutcome } from "@edgeloop/protocol";
import type { Owner } from "../../runtime/access.js";
import { log } from "../../runtime/log.js";
import type { DurableObjectBindings } from "../bindings.js";
import { builtinContext } from "./builtin-context.js";
import { findBuiltin } from "./builtins/index.js";
import { runWebhookTool } from "./builtins/webhook-tools.js";
import { NO_OWNER } from "./conversation-owner.js";
import type { ConversationSettings } from "./conversation-settings.js";
import type { ConversationStore } from "./conversation-store.js";
import type { LoopState } from "./core/index.js";
import type { RemoteMcpTools } from "./mcp/remote-mcp-tools.js";
import type { OutboundEffect } from "./outbound-effects.js";
import { startSubtask } from "./subtasks.js";

export type RunBuiltinEffect = Extract<OutboundEffect, { type: "run_builtin" }>;

/**
 * Runs a built-in, a webhook tool or a remote MCP server's tool inside the conversation. The outcome is the call's result, or
 * null when it arrives later (a sub-task's reply). A thrown error is an internal error: logged with
 * its detail under an incident id, while the model only learns that the tool failed, so nothing of
 * the orchestrator's internals leaks into the conversation.
 */
export async function runBuiltin(
  effect: RunBuiltinEffect,
  deps: {
    env: Pick<DurableObjectBindings, "CONVERSATION" | "DEVICE_HUB">;
    store: ConversationStore;
    state: LoopState;
    /** the conversation's owner as its object holds it (read once, not per call) */
    owner: Owner | null;
    settings: ConversationSettings;
    remoteMcp: RemoteMcpTools;
  },
): Promise<ToolOutcome | null> {
  const { env, store, state, settings } = deps;
  try {
    const builtin = findBuiltin(effect.tool);
    if (builtin) {
      const owner = deps.owner ?? NO_OWNER;
      const ctx = builtinContext({
        env,
        store,
        owner,
        conversation_id: state.conversation_id,
        agent_id: state.agent_id,
        tool_call_id: effect.tool_call_id,
        request_id: effect.request_id,
        startSubtask: (text, agentId) => startSubtask(env, store, state, effect, text, agentId, owner),
      });
      const result = await builtin.run(effect.parameters, ctx);
      return result.kind === "done" ? result.outcome : null;
    }
    const remote = deps.remoteMcp.find(effect.tool);
    if (remote) {
      return await deps.remoteMcp.run(remote, settings.mcpServers, effect.parameters, settings.outbound);
    }
    const tool = settings.webhookTools.find((t) => t.name === effect.tool);
    if (!tool) {
      return {
        status: "error",
        tool: effect.tool,
        error: `Tool '${effect.tool}' is not available in the orchestrator`,
        error_type: "not_found",
      };
    }
    return await runWebhookTool(tool, effect.parameters, {
      request_id: effect.request_id,
      tool_call_id: effect.tool_call_id,
      conversation_id: state.conversation_id,
      outbound: settings.outbound,
      now: () => Date.now(),
    });
  } catch (e) {
    const incident = crypto.randomUUID();
    log("error", "built-in tool failed", {
      conversation_id: state.conversation_id,
      tool: effect.tool,
      request_id: effect.request_id,
      incident,
      error: String(e),
      stack: (e as Error).stack,
    });
    return {
      status: "error",
      tool: effect.tool,
      error: `internal error (incident ${incident})`,
      error_type: "execution_failed",
    };
  }
}
