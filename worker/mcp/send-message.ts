import { Identifier, MAX_MESSAGE_TEXT, ToolName } from "@edgeloop/protocol";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { conversationFor } from "../../durable-objects/addresses.js";
import type { WorkerConfig } from "../../durable-objects/front-door/front-door-config.js";
import { admitAgent, admitSender } from "../../durable-objects/front-door/rate-limits.js";
import { routeMessage } from "../../durable-objects/front-door/route-target.js";
import { canSee, ownerOf, type Principal, targetRefusal } from "../../runtime/access.js";
import type { Env } from "../env.js";
import { errorResult } from "./call-results.js";
import { followRun, type ProgressExtra } from "./follow-run.js";

/**
 * The fleet's `send_message` tool: a message to a device's agent (or a pool's), through the same
 * routing and rate limits as `POST /v1/messages`, answered with the reply once the loop has run.
 * Progress notifications report the loop's tool calls meanwhile.
 */
export const SendMessageArgs = z
  .object({
    agent_id: Identifier.optional(),
    pool: Identifier.optional(),
    tools: z.array(ToolName).max(64).optional(),
    text: z.string().min(1, "must not be empty").max(MAX_MESSAGE_TEXT),
    conversation_id: Identifier.optional(),
    wait_seconds: z.number().int().min(1).max(600).default(50),
  })
  .strict()
  .refine((m) => (m.agent_id === undefined) !== (m.pool === undefined), {
    message: "give exactly one of agent_id or pool",
    path: ["agent_id"],
  });

/** Rate limits count the MCP clients of the unscoped tokens as one sender; a scoped key is its own. */
export const MCP_SENDER = "mcp";

export async function sendMessage(
  env: Env,
  config: WorkerConfig,
  principal: Principal,
  raw: Record<string, unknown>,
  extra: ProgressExtra,
  remember: (conversationId: string) => Promise<void>,
): Promise<CallToolResult> {
  const parsed = SendMessageArgs.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return errorResult(`invalid arguments: ${issue.path.join(".") || "(arguments)"}: ${issue.message}`);
  }
  const msg = parsed.data;
  if (principal.scoped) {
    const outside = targetRefusal(principal, msg);
    if (outside) return errorResult(`forbidden: ${outside.detail}`);
    if (msg.conversation_id !== undefined) {
      const { exists, owner } = await conversationFor(env, msg.conversation_id).ownership();
      if (exists && !canSee(principal, owner)) return errorResult(`no conversation '${msg.conversation_id}'`);
    }
  }
  const sender = await admitSender(env, config, principal.scoped ? principal.id : MCP_SENDER);
  if (!sender.ok) return errorResult(`too many requests: ${sender.detail}; retry in ${sender.retry_after_s} s`);
  const conversation_id = msg.conversation_id ?? `conv_${crypto.randomUUID()}`;
  const target = await routeMessage(env, config, { ...msg }, conversation_id);
  if (!target.ok) return errorResult(`${target.title}: ${target.detail}`);
  const agent = await admitAgent(env, config, target.agent_id, conversation_id);
  if (!agent.ok) return errorResult(`agent '${target.agent_id}': ${agent.detail}; retry in ${agent.retry_after_s} s`);

  const message_id = `msg_${crypto.randomUUID()}`;
  const stub = conversationFor(env, conversation_id);
  const accepted = await stub.postMessage({
    conversation_id,
    by: ownerOf(principal),
    agent_id: target.agent_id,
    message_id,
    text: msg.text,
    rebind: msg.pool !== undefined,
  });
  if (!accepted.ok) return errorResult(accepted.error);
  await remember(conversation_id);
  const reply = await followRun(
    {
      wait: (ms) => stub.waitForReply(message_id, ms),
      events: (after) => stub.getEvents(after),
      messageId: message_id,
      conversationId: conversation_id,
    },
    extra,
    msg.wait_seconds * 1000,
  );
  const facts = { conversation_id, message_id, agent_id: target.agent_id, status: reply.status };
  if (reply.status === "running") {
    const text = `The conversation is still running after ${msg.wait_seconds} s; call get_conversation with conversation_id ${conversation_id} later.`;
    return { content: [{ type: "text", text }], structuredContent: facts };
  }
  return {
    content: [{ type: "text", text: reply.reply ?? `(no reply: ${reply.status})` }],
    structuredContent: { ...facts, stop_reason: reply.stop_reason ?? null, tool_calls: reply.tool_calls },
    ...(reply.status === "completed" ? {} : { isError: true }),
  };
}
