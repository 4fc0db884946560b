import { MessageAccepted, type MessageRequest, WaitReply } from "@edgeloop/protocol";
import type { ReplyTarget } from "@edgeloop/protocol/run-output";
import { canSee, ownerOf, type Principal, targetRefusal } from "../../runtime/access.js";
import { sha256Hex } from "../../runtime/digest.js";
import { outboundPolicy } from "../../runtime/outbound-settings.js";
import { checkOutboundUrl } from "../../runtime/outbound-url.js";
import { conversationFor } from "../addresses.js";
import { conversationSettings } from "../conversation/settings/conversation-settings.js";
import type { WorkerConfig } from "./front-door-config.js";
import type { FrontDoorEnv } from "./front-door-env.js";
import { claimIdempotencyKey, UNCLAIMED } from "./idempotency.js";
import type { StoredResponse } from "./idempotency-do.js";
import { imagesRefusal } from "./message-images.js";
import { admitAgent, admitSender, type OwnBucket } from "./rate-limits.js";
import { routeMessage } from "./route-target.js";

/** What the front door was given, once the request is authenticated and its body validated. */
export type MessageInput = {
  /** who sends it: its id is the sender for rate limits and idempotency, and the new conversation's owner */
  principal: Principal;
  /** the sender rate limits count it under, when not the principal's id (the fleet MCP server's unscoped clients count as one) */
  sender?: string;
  idempotencyKey: string | null;
  /**
   * The caller took the key once already (a chat thread's inbox takes each platform event once):
   * no second claim, but the ids still derive from the key, so a message posted again after a
   * crash is the same message, which the conversation takes once.
   */
  keyTaken?: boolean;
  /** the sender's bucket, when the caller is the sender's own object (rate-limits.ts) */
  senderBucket?: OwnBucket;
  /**
   * The conversation is the caller's own (a chat thread's, whose id it made): not asked who owns
   * it before the message goes, since the conversation checks its owner when the message arrives.
   */
  ownConversation?: boolean;
  /** the body as sent: an idempotency key repeated with another body is refused */
  rawBody: string;
  msg: MessageRequest;
  /** `?wait=N`: seconds to wait for the reply; null answers 202 at once */
  waitSeconds: number | null;
  /** the schedule whose run this message is */
  scheduleId?: string;
  /** where the reply goes when edgeloop itself decides (a chat thread); a sender's reply_url otherwise */
  replyTarget?: ReplyTarget;
};

/** Why the front door refused a message: a problem+json answer's status, title, detail and extras. */
export type Refusal = {
  status: number;
  title: string;
  detail: string;
  extra?: Record<string, unknown>;
  headers?: Record<string, string>;
};

/**
 * What became of a message: accepted (the run started; 202), answered (accepted and waited for
 * with `?wait=N`; 200), or refused. `replayed`: a repeat of an idempotency key, answered as the
 * first request was. Callers map it to their own answer (HTTP, a tool result, a chat line).
 */
export type MessageOutcome =
  | { kind: "accepted"; accepted: MessageAccepted; replayed: boolean }
  | { kind: "answered"; reply: WaitReply; replayed: boolean }
  | { kind: "refused"; refusal: Refusal };

const refuse = (
  status: number,
  title: string,
  detail: string,
  extra?: Record<string, unknown>,
  headers?: Record<string, string>,
): MessageOutcome => ({
  kind: "refused",
  refusal: { status, title, detail, ...(extra ? { extra } : {}), ...(headers ? { headers } : {}) },
});

/** Tokens a text is estimated to take (characters / 4, as the loop's compaction counts). */
const textTokens = (text: string) => Math.ceil(text.length / 4);

/**
 * The front door after authentication: size limits → what the principal may reach (its devices,
 * its conversations, a public reply_url) → idempotency claim → sender limit → routing → agent
 * limits → the conversation → the optional wait. `POST /v1/messages`, the fleet MCP server's
 * `send_message`, named hooks and every scheduled run go through it, so all get the same target
 * rules (fleets included), grants, limits, routing and refusal counts. Everything before the claim
 * is free of side effects; after it, any refusal releases the key so a retry can run.
 */
export async function acceptMessage(
  env: FrontDoorEnv,
  config: WorkerConfig,
  input: MessageInput,
): Promise<MessageOutcome> {
  const { msg, principal } = input;
  const sender = input.sender ?? principal.id;
  if (msg.text.length > config.MAX_TEXT_CHARS) {
    return refuse(
      413,
      "Text too long",
      `text has ${msg.text.length} characters; the limit is ${config.MAX_TEXT_CHARS}`,
      {
        errors: [{ path: "text", message: `at most ${config.MAX_TEXT_CHARS} characters` }],
      },
    );
  }
  const tooLarge = imagesRefusal(env, msg);
  if (tooLarge) return refuse(tooLarge.status, tooLarge.title, tooLarge.detail, tooLarge.extra);
  const settings = conversationSettings(env);
  const window = settings.ok ? settings.value.loop.context_tokens : undefined;
  if (window && textTokens(msg.text) > window) {
    // No summary can make room for it: the model would never see the message whole.
    return refuse(
      413,
      "Text larger than the model's context",
      `text is about ${textTokens(msg.text)} tokens; the model's context window (LLM_CONTEXT_TOKENS) is ${window}`,
      { errors: [{ path: "text", message: `at most about ${window * 4} characters for this model` }] },
    );
  }

  const refused = await refusalFor(env, config, principal, msg, input.ownConversation === true);
  if (refused) return refused;

  const claim = input.keyTaken
    ? UNCLAIMED
    : await claimIdempotencyKey(env, sender, input.idempotencyKey, input.rawBody);
  if (claim.kind === "replay") return replayOf(claim.response);
  if (claim.kind === "in_progress") {
    return refuse(
      409,
      "Request in progress",
      "a request with this idempotency key is still being processed; retry later",
      {},
      { "retry-after": String(claim.retry_after_s) },
    );
  }
  if (claim.kind === "mismatch")
    return refuse(422, "Idempotency key reused", "this idempotency key was used with a different body");

  let stored = false;
  try {
    const senderOk = await admitSender(env, config, sender, input.senderBucket);
    if (!senderOk.ok)
      return refuse(
        429,
        "Too many requests",
        `sender '${sender}': ${senderOk.detail}`,
        {},
        retryAfter(senderOk.retry_after_s),
      );

    // With a key, the ids derive from it: a retry after a crash that lost the stored response
    // posts the very same message, which the conversation takes once (never a second run).
    const derived = input.idempotencyKey === null ? null : await keyedIds(sender, input.idempotencyKey);
    const conversation_id = msg.conversation_id ?? derived?.conversation_id ?? `conv_${crypto.randomUUID()}`;
    const target = await routeMessage(env, config, msg, conversation_id);
    if (!target.ok) {
      const extra = target.field ? { errors: [{ path: target.field, message: target.detail }] } : {};
      return refuse(
        target.status,
        target.title,
        target.detail,
        extra,
        target.status === 503 ? { "retry-after": "5" } : {},
      );
    }
    const agent_id = target.agent_id;
    // A fleet message counts against each of its devices' limits.
    for (const device of target.fleet ?? [agent_id]) {
      const agentOk = await admitAgent(env, config, device, conversation_id);
      if (!agentOk.ok) {
        const title = agentOk.reason === "rate" ? "Too many requests for this agent" : "Too many open conversations";
        return refuse(429, title, `agent '${device}': ${agentOk.detail}`, {}, retryAfter(agentOk.retry_after_s));
      }
    }

    const message_id = derived?.message_id ?? `msg_${crypto.randomUUID()}`;
    const stub = conversationFor(env, conversation_id);
    const accepted = await stub.postMessage({
      conversation_id,
      by: ownerOf(principal),
      agent_id,
      message_id,
      text: msg.text,
      ...(msg.images ? { images: msg.images } : {}),
      ...(msg.options ? { options: msg.options } : {}),
      ...(input.replyTarget
        ? { reply: input.replyTarget }
        : msg.reply_url
          ? { reply: { kind: "url", url: msg.reply_url, events: msg.reply_events ?? false } }
          : {}),
      // A pool may move a conversation to another device when its device goes away; a fleet
      // message makes its first device the conversation's home.
      rebind: msg.pool !== undefined || target.fleet !== undefined,
      ...(target.fleet ? { fleet: target.fleet } : {}),
      ...(input.scheduleId ? { schedule_id: input.scheduleId } : {}),
    });
    if (!accepted.ok) {
      const title = { 404: "Not found", 409: "Conflict", 500: "Server misconfigured" }[accepted.status];
      return refuse(accepted.status, title, accepted.error);
    }

    // The run has started: from here on a repeat must get a stored answer, never a second run.
    stored = true;
    let outcome: Extract<MessageOutcome, { kind: "accepted" | "answered" }> = {
      kind: "accepted",
      accepted: { conversation_id, message_id, agent_id: accepted.agent_id ?? agent_id },
      replayed: false,
    };
    try {
      if (input.waitSeconds !== null) {
        const reply = await stub.waitForReply(message_id, input.waitSeconds * 1000);
        outcome = { kind: "answered", reply, replayed: false };
      }
    } finally {
      // If the wait failed, a repeat gets the 202: the message was accepted all the same.
      await claim.finish(storedOf(outcome));
    }
    return outcome;
  } finally {
    // Refused or failed before a run started: forget the key so the sender's retry is processed.
    if (!stored) await claim.release().catch(() => {});
  }
}

/** What the idempotency object keeps for repeats: the answer as the first request got it. */
function storedOf(outcome: Extract<MessageOutcome, { kind: "accepted" | "answered" }>): StoredResponse {
  const [status, value] = outcome.kind === "accepted" ? [202, outcome.accepted] : [200, outcome.reply];
  return { status, body: JSON.stringify(value), content_type: "application/json" };
}

/** A repeat's answer, read back from what storedOf kept. */
function replayOf(stored: StoredResponse): MessageOutcome {
  const body: unknown = JSON.parse(stored.body);
  return stored.status === 200
    ? { kind: "answered", reply: WaitReply.parse(body), replayed: true }
    : { kind: "accepted", accepted: MessageAccepted.parse(body), replayed: true };
}

/** Ids a keyed message gets, the same for every request with that key (from the sender's key's hash). */
async function keyedIds(sender: string, key: string): Promise<{ conversation_id: string; message_id: string }> {
  const hash = (await sha256Hex(`${sender}\n${key}`)).slice(0, 32);
  return { conversation_id: `conv_${hash}`, message_id: `msg_${hash}` };
}

function retryAfter(seconds: number): Record<string, string> {
  return { "retry-after": String(seconds) };
}

/**
 * What the principal may not do with this message, checked before anything is claimed: a scoped
 * principal's device or pool outside its grant (403), a conversation_id it did not start (404,
 * answered as for one that does not exist: the conversation checks again when the message
 * arrives), and for everyone a reply_url that is not a public https address (400).
 */
async function refusalFor(
  env: FrontDoorEnv,
  config: WorkerConfig,
  principal: Principal,
  msg: MessageRequest,
  ownConversation: boolean,
): Promise<MessageOutcome | null> {
  if (msg.reply_url !== undefined) {
    const check = checkOutboundUrl(msg.reply_url, outboundPolicy(config));
    if (!check.ok)
      return refuse(400, "Invalid reply_url", check.reason, { errors: [{ path: "reply_url", message: check.reason }] });
  }
  if (!principal.scoped) return null;
  const outside = targetRefusal(principal, msg);
  if (outside)
    return refuse(403, "Forbidden", outside.detail, { errors: [{ path: outside.field, message: outside.detail }] });
  if (msg.conversation_id !== undefined && !ownConversation) {
    const { exists, owner } = await conversationFor(env, msg.conversation_id).ownership();
    if (exists && !canSee(principal, owner))
      return refuse(404, "Not found", `no conversation '${msg.conversation_id}'`);
  }
  return null;
}
