import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { conversationFor } from "../../durable-objects/addresses.js";
import { acceptMessage } from "../../durable-objects/front-door/accept-message.js";
import type { WorkerConfig } from "../../durable-objects/front-door/front-door-config.js";
import type { Principal } from "../../runtime/access.js";
import type { Env } from "../env.js";
import { errorResult } from "./call-results.js";
import { followRun, type ProgressExtra } from "./follow-run.js";
import { SendMessageArgs } from "./send-message-args.js";

/** Rate limits count the MCP clients of the unscoped tokens as one sender; a scoped key is its own. */
export const MCP_SENDER = "mcp";

/**
 * The fleet's `send_message` tool: a message to a device's agent, a pool's, or a fleet of devices
 * (docs/fleet.md), through the front door of `POST /v1/messages` (accept-message.ts: the same
 * target rules, grants, routing and limits), answered with the reply once the loop has run.
 * Progress notifications report the loop's tool calls meanwhile.
 */
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
  const { wait_seconds, ...msg } = parsed.data;
  const out = await acceptMessage(env, config, {
    principal,
    sender: principal.scoped ? principal.id : MCP_SENDER,
    idempotencyKey: null,
    rawBody: JSON.stringify(msg),
    msg,
    waitSeconds: null,
  });
  if (out.kind === "refused") {
    const { title, detail, headers } = out.refusal;
    const retry = headers?.["retry-after"];
    return errorResult(`${title}: ${detail}${retry ? `; retry in ${retry} s` : ""}`);
  }
  // Sent without a wait: the front door answers "accepted", whose ids the run is followed by.
  const { conversation_id, message_id } = out.kind === "accepted" ? out.accepted : out.reply;
  const agent_id = out.kind === "accepted" ? out.accepted.agent_id : undefined;
  await remember(conversation_id);
  const stub = conversationFor(env, conversation_id);
  const reply = await followRun(
    {
      wait: (ms) => stub.waitForReply(message_id, ms),
      events: (after) => stub.getEvents(after),
      messageId: message_id,
      conversationId: conversation_id,
    },
    extra,
    wait_seconds * 1000,
  );
  const fleet = msg.agent_ids ?? (msg.mode === "fleet" ? config.POOLS.get(msg.pool!) : undefined);
  const facts = {
    conversation_id,
    message_id,
    agent_id,
    ...(fleet ? { agent_ids: [...fleet] } : {}),
    status: reply.status,
  };
  if (reply.status === "running") {
    const text = `The conversation is still running after ${wait_seconds} s; call get_conversation with conversation_id ${conversation_id} later.`;
    return { content: [{ type: "text", text }], structuredContent: facts };
  }
  return {
    content: [{ type: "text", text: reply.reply ?? `(no reply: ${reply.status})` }],
    structuredContent: { ...facts, stop_reason: reply.stop_reason ?? null, tool_calls: reply.tool_calls },
    ...(reply.status === "completed" ? {} : { isError: true }),
  };
}
