import { Buffer } from "node:buffer";
import { isImageRef } from "@edgeloop/protocol";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { conversationFor } from "../../durable-objects/addresses.js";
import type { ConversationRpc } from "../../durable-objects/conversation/conversation-rpc.js";
import type { CallOutcome } from "../../durable-objects/conversation/core/index.js";
import { ownerOf, type Principal } from "../../runtime/access.js";
import { sha256Hex } from "../../runtime/digest.js";
import type { Env } from "../env.js";
import { callToolResult, errorResult } from "./call-results.js";
import { followRun, type ProgressExtra } from "./follow-run.js";

/**
 * An MCP client's `tools/call` of a device tool. It is not sent to the device from here: it
 * becomes a conversation of its own (one direct call, no model), so it takes the path a model's
 * call takes — the deployment's hooks and approval policy, the outbox, the device's hub and
 * ledger (exactly-once by request id), deadlines, the audit row, the conversation's events — and
 * shows up under GET /v1/conversations like any run.
 *
 * The conversation's id comes from the MCP session, the JSON-RPC request id and the call itself, so
 * the same request handled again finds the same call (and the device runs it once), while a client
 * that wrongly reuses a request id for another call does not get the old call's result. The
 * session notes which conversation a request started, so its `notifications/cancelled` (which may
 * reach another isolate) finds it.
 */
export async function callIds(sessionId: string, requestId: string | number, tool: string, args: unknown) {
  const call = JSON.stringify([sessionId, requestId, tool, args]);
  const key = (await sha256Hex(call)).slice(0, 32);
  return { conversation_id: `mcp_${key}`, message_id: `msg_${key}`, tool_call_id: `call_${key.slice(0, 24)}` };
}

/** The longest one call is waited for: the loop's own deadlines end every call well before. */
const MAX_CALL_WAIT_MS = 60 * 60 * 1000;

export async function callDeviceTool(
  env: Env,
  call: {
    sessionId: string;
    requestId: string | number;
    agentId: string;
    tool: string;
    args: Record<string, unknown>;
    principal: Principal;
  },
  extra: ProgressExtra,
  remember: (conversationId: string) => Promise<void>,
): Promise<CallToolResult> {
  const ids = await callIds(call.sessionId, call.requestId, `${call.agentId}/${call.tool}`, call.args);
  await remember(ids.conversation_id);
  const stub = conversationFor(env, ids.conversation_id);
  const accepted = await stub.callTool({
    ...ids,
    by: ownerOf(call.principal),
    agent_id: call.agentId,
    tool: call.tool,
    arguments: call.args,
  });
  if (!accepted.ok) return errorResult(accepted.error);
  const reply = await followRun(
    {
      wait: (ms) => stub.waitForCall(ids.message_id, ms),
      events: (after) => stub.getEvents(after),
      messageId: ids.message_id,
      conversationId: ids.conversation_id,
    },
    extra,
    MAX_CALL_WAIT_MS,
  );
  if (reply.outcome) return callToolResult(reply.outcome, await imageDataOf(stub, reply.outcome));
  if (reply.status === "running")
    return errorResult(`the call is still running: see GET /v1/conversations/${ids.conversation_id}`);
  return errorResult(`${reply.status}: ${reply.reply ?? "no result"}`);
}

/** The bytes (base64) of the images an outcome references, read from its conversation. */
async function imageDataOf(
  stub: Pick<ConversationRpc, "getImage">,
  outcome: CallOutcome,
): Promise<Map<string, string>> {
  const data = new Map<string, string>();
  if (outcome.status !== "success") return data;
  for (const block of outcome.content ?? []) {
    if (!isImageRef(block) || data.has(block.sha256)) continue;
    const image = await stub.getImage(block.sha256);
    if (image) data.set(block.sha256, Buffer.from(image.bytes).toString("base64"));
  }
  return data;
}
