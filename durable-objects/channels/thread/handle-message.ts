import type { ChannelGrant } from "@edgeloop/protocol/channels";
import { hasScope, type Principal, scopedPrincipal, targetRefusal } from "../../../runtime/access.js";
import { log } from "../../../runtime/log.js";
import { randomHex } from "../../../runtime/random-token.js";
import { conversationFor, deploymentOf } from "../../addresses.js";
import { grantInForce } from "../../deployment/in-force.js";
import { acceptMessage } from "../../front-door/accept-message.js";
import { readConfig } from "../../front-door/front-door-config.js";
import { HELP_TEXT, parseCommand } from "../chat-content/chat-commands.js";
import { PICTURE_ONLY_TEXT } from "../chat-content/chat-pictures.js";
import type { InboundEvent } from "../platform.js";
import { approveDevicePairing } from "./approve-device.js";
import { picturesOf } from "./message-pictures.js";
import { countRefusal, type ThreadContext } from "./thread-context.js";
import { toldStrangers } from "./told-strangers.js";

type MessageEvent = Extract<InboundEvent, { kind: "message" }>;

/** A device (`pi-1`) or a pool (`pool:kitchen`), as grants and `/device` name them. */
const targetOf = (t: string) => (t.startsWith("pool:") ? { pool: t.slice(5) } : { agent_id: t });

/**
 * A chat message: nobody reaches a device without a grant (an unknown user gets a pairing code
 * and nothing else), commands change the thread's conversation or device, a reply to an open
 * question answers it, and anything else goes through the front door as the thread's message.
 */
export async function handleMessage(ctx: ThreadContext, event: MessageEvent): Promise<void> {
  const typingShown = await answerMessage(ctx, event);
  // A message that started a run was marked read by the typing indicator; a granted user's other
  // messages are marked read here; a stranger's are not (no platform call per message of a flood).
  if (typingShown === false) await ctx.client.markRead?.(ctx.identity.chat, event.eventId).catch(() => {});
}

/** True when the message went to the conversation and "typing…" is shown; null for a stranger's. */
async function answerMessage(ctx: ThreadContext, event: MessageEvent): Promise<boolean | null> {
  const { env, store, identity } = ctx;
  // Neither lookup asks the deployment object per message (docs/architecture.md#trusted-copies).
  const grant = await grantInForce(env, identity.platform, event.user.id, event.chat.chatId);
  if (!grant) {
    await countRefusal(env, identity.platform, "unpaired user");
    if (toldStrangers.recently(identity.key, event.user.id)) return null;
    const pairing = await deploymentOf(env).chatPairingFor(identity.platform, event.user, event.chat);
    toldStrangers.remember(identity.key, event.user.id);
    if (pairing.notify) {
      const text =
        `You are not paired with this edgeloop yet. Your pairing code is ${pairing.code}.\n` +
        `Ask an admin to approve it: \`edgeloop channels approve ${pairing.code} --agent DEVICE\``;
      // The code is the stranger's alone: where the platform can, nobody else in the chat sees it.
      const only_for = { user_id: event.user.id, ...(event.ackToken ? { ack_token: event.ackToken } : {}) };
      ctx.store.enqueue(`notice:pairing:${pairing.code}:${Date.now()}`, { type: "notice", text, only_for }, Date.now());
    }
    return null;
  }
  const cfg = readConfig(env);
  if (!cfg.ok) return notice(ctx, `misconfigured:${event.eventId}`, "edgeloop is misconfigured; ask an admin.");
  const principal = scopedPrincipal(`chat:${identity.key}`, grant, cfg.config.POOLS);
  const command = parseCommand(event.text);
  if (command) {
    switch (command.kind) {
      case "help":
        return notice(ctx, `help:${event.eventId}`, HELP_TEXT);
      case "unknown":
        return notice(ctx, `unknown:${event.eventId}`, `No command /${command.name}.\n\n${HELP_TEXT}`);
      case "new":
        store.put("conversation_id", null);
        return notice(ctx, `new:${event.eventId}`, "Started a fresh conversation.");
      case "device":
        return switchDevice(ctx, principal, command.target, event.eventId);
      case "approve":
        return notice(ctx, `approve:${event.eventId}`, await approveDevicePairing(ctx, event, command.code));
    }
  }
  if (!hasScope(principal, "messages")) {
    await countRefusal(env, identity.platform, "no messages scope");
    return notice(ctx, `noscope:${event.eventId}`, "Your grant does not let you send messages to a device.");
  }
  const question = store.openQuestion();
  if (question && event.text !== "" && event.images.length === 0) {
    store.decideCard(question.card_id, `💬 Answered by ${event.user.name}`);
    const res = await conversationFor(env, question.conversation_id).answer(question.tool_call_id, {
      text: event.text,
    });
    if (res.error || res.unavailable) {
      // Not an answer the server's form takes, or its device is offline (docs/mcp.md#a-servers-questions): still open.
      store.reopenCard(question.card_id);
      const why = res.error
        ? `That answer does not fit the question: ${res.error}`
        : `Not answered: ${res.unavailable}`;
      return notice(ctx, `answer:${event.eventId}`, why);
    }
    store.enqueue(`card_edit:${question.card_id}`, { type: "card_edit", card_id: question.card_id }, Date.now());
    if (res.applied) return false;
    // The question ended meanwhile (answered elsewhere, or the run was cancelled): a new message.
  }
  return postToConversation(ctx, principal, grant, event);
}

async function postToConversation(
  ctx: ThreadContext,
  principal: Principal,
  grant: ChannelGrant,
  event: MessageEvent,
): Promise<boolean> {
  const { env, store, identity } = ctx;
  const target = store.get<string>("target") ?? defaultTarget(grant);
  if (!target) return notice(ctx, `notarget:${event.eventId}`, "No device chosen: send /device NAME first.");
  const pictures = await picturesOf(ctx, event.images);
  if (!pictures.ok) {
    await countRefusal(env, identity.platform, "picture refused");
    return notice(ctx, `picture:${event.eventId}`, pictures.reason);
  }
  let conversationId = store.get<string>("conversation_id");
  if (!conversationId) {
    conversationId = `conv_chat_${randomHex(12)}`;
    store.put("conversation_id", conversationId);
  }
  const cfg = readConfig(env);
  if (!cfg.ok) return false;
  const msg = {
    text: event.text === "" ? PICTURE_ONLY_TEXT : event.text,
    conversation_id: conversationId,
    ...(pictures.images.length > 0 ? { images: pictures.images } : {}),
    ...targetOf(target),
  };
  const out = await acceptMessage(env, cfg.config, {
    principal,
    idempotencyKey: `${identity.platform}:${event.eventId}`,
    // The thread's inbox took the event once (docs/architecture.md#chat-threads): one claim per event.
    keyTaken: true,
    // The thread is its sender's one object, and the conversation is its own (docs/architecture.md#chat-threads).
    senderBucket: store,
    ownConversation: true,
    rawBody: JSON.stringify(msg),
    msg,
    waitSeconds: null,
    replyTarget: { kind: "chat", thread: identity.key },
  });
  if (out.kind === "refused") {
    const { status, title, detail } = out.refusal;
    log("info", "chat message refused", { thread: identity.key, status, detail });
    await countRefusal(env, identity.platform, `message ${status}`);
    return notice(ctx, `refused:${event.eventId}`, `Not sent: ${title}. ${detail}`);
  }
  // Sent without a wait: the run's reply comes to the thread (its reply target).
  const { conversation_id, message_id } = out.kind === "accepted" ? out.accepted : out.reply;
  const agentId = (out.kind === "accepted" ? out.accepted.agent_id : undefined) ?? target;
  store.addRun(message_id, conversation_id, agentId, Date.now());
  await ctx.client.typing(identity.chat, event.eventId).catch(() => {});
  return true;
}

async function switchDevice(
  ctx: ThreadContext,
  principal: Principal,
  target: string | null,
  eventId: string,
): Promise<false> {
  if (target === null) {
    const now = ctx.store.get<string>("target");
    return notice(ctx, `device:${eventId}`, `Talking to ${now ?? "the default device"}. Send /device NAME to switch.`);
  }
  const refusal = targetRefusal(principal, targetOf(target));
  if (refusal) {
    await countRefusal(ctx.env, ctx.identity.platform, "device not granted");
    return notice(ctx, `device:${eventId}`, `You may not use ${target}.`);
  }
  ctx.store.put("target", target);
  // A conversation stays on its device: the next message starts a new one on the chosen device.
  ctx.store.put("conversation_id", null);
  return notice(ctx, `device:${eventId}`, `Now talking to ${target} (a fresh conversation).`);
}

/** The grant's device for a new conversation: its target, else its first pool, else its first agent. */
export function defaultTarget(grant: Pick<ChannelGrant, "target" | "pools" | "agents">): string | null {
  if (grant.target) return grant.target;
  if (grant.pools[0]) return `pool:${grant.pools[0]}`;
  return grant.agents.find((a) => a !== "*") ?? null;
}

/** Queue a notice to the chat; false: the message started no run. */
function notice(ctx: ThreadContext, key: string, text: string): false {
  ctx.store.enqueue(`notice:${key}`, { type: "notice", text }, Date.now());
  return false;
}
