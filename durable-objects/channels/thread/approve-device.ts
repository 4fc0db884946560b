import { PairingCode } from "@edgeloop/protocol/pairing";
import { deploymentOf } from "../../addresses.js";
import type { InboundEvent } from "../platform.js";
import { isApprover } from "./handle-button.js";
import { countRefusal, type ThreadContext } from "./thread-context.js";

type MessageEvent = Extract<InboundEvent, { kind: "message" }>;

/**
 * `/approve CODE` in a chat: an approver lets in a device that asked to pair (`POST /v1/pairing`,
 * what `edgeloop devices approve` decides), without a terminal. The list that may press Approve on
 * a tool call (CHANNEL_APPROVERS) is the list that may do this; anyone else is refused, audited and
 * counted, as a press by them is. Returns what the chat is told.
 */
export async function approveDevicePairing(ctx: ThreadContext, event: MessageEvent, raw: string): Promise<string> {
  const { env, identity } = ctx;
  if (!isApprover(ctx, event.user.id)) {
    await deploymentOf(env).auditChat({
      platform: identity.platform,
      user_id: event.user.id,
      user_name: event.user.name,
      chat_id: event.chat.chatId,
      action: "device pairing refused",
      detail: `/approve ${raw.slice(0, 20)}`,
    });
    await countRefusal(env, identity.platform, "device pairing refused");
    return "You may not approve device pairings here.";
  }
  const code = PairingCode.safeParse(raw);
  if (!code.success) return "A pairing code is 8 letters and digits, like /approve ABCD-2345.";
  const by = `${identity.platform}:${event.user.id} (${event.user.name})`;
  const outcome = await deploymentOf(env).approvePairing(code.data, { by });
  if (outcome.ok) return `Approved: ${outcome.request.agent_id} may connect now (code ${outcome.request.code}).`;
  if (outcome.reason === "not_found") return `No device is waiting with the code ${code.data}.`;
  if (outcome.reason === "expired") return `The code ${code.data} expired; the device must ask again.`;
  return `The code ${code.data} was ${outcome.status} already; a code works once.`;
}
