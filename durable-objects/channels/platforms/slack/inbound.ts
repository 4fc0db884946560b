import { z } from "zod";
import type { InboundEvent, InboundImage, InboundResult } from "../../platform.js";

/**
 * What Slack sends, validated: Events API bodies (JSON) and interactivity or slash-command bodies
 * (form-encoded). Fields edgeloop does not read are let through unchecked; a body of another shape
 * is a 400.
 */

const SlackFile = z.object({
  mimetype: z.string().optional(),
  url_private_download: z.string().optional(),
  url_private: z.string().optional(),
});

const SlackMessageEvent = z.object({
  type: z.enum(["message", "app_mention"]),
  subtype: z.string().optional(),
  bot_id: z.string().optional(),
  user: z.string().optional(),
  text: z.string().default(""),
  ts: z.string(),
  thread_ts: z.string().optional(),
  channel: z.string(),
  channel_type: z.string().optional(),
  files: z.array(SlackFile).default([]),
});

const EventsApiBody = z.discriminatedUnion("type", [
  z.object({ type: z.literal("url_verification"), challenge: z.string() }),
  z.object({
    type: z.literal("event_callback"),
    event_id: z.string().min(1),
    event: z.looseObject({ type: z.string() }),
    /** Who the app is in this workspace: its bot user is how a channel message mentions it. */
    authorizations: z.array(z.object({ user_id: z.string().optional(), is_bot: z.boolean().optional() })).default([]),
  }),
]);

const BlockActionsPayload = z.object({
  type: z.literal("block_actions"),
  trigger_id: z.string().min(1),
  user: z.object({ id: z.string(), username: z.string().optional(), name: z.string().optional() }),
  channel: z.object({ id: z.string() }),
  container: z.object({ message_ts: z.string().optional(), thread_ts: z.string().optional() }).default({}),
  message: z.object({ ts: z.string(), thread_ts: z.string().optional() }).optional(),
  actions: z.array(z.object({ value: z.string().optional(), action_id: z.string() })).min(1),
});

const SlashCommand = z.object({
  command: z.string().startsWith("/"),
  text: z.string().default(""),
  trigger_id: z.string().min(1),
  user_id: z.string(),
  user_name: z.string().optional(),
  channel_id: z.string(),
  channel_name: z.string().optional(),
});

const bad = (reason: string): InboundResult => ({ ok: false, status: 400, reason });

/** The text of a mention without the leading `<@BOT>`: the bot's name is not part of the request. */
const withoutMention = (text: string) => text.replace(/^\s*<@[A-Z0-9]+>\s*/, "");

/** Parse a verified Events API body (JSON). */
export function parseEventsBody(raw: string): InboundResult {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return bad("the body is not JSON");
  }
  const body = EventsApiBody.safeParse(json);
  if (!body.success) return bad(`not a Slack Events API body: ${body.error.issues[0]?.message}`);
  if (body.data.type === "url_verification")
    return { ok: true, events: [], immediate: { status: 200, body: { challenge: body.data.challenge } } };
  const event = SlackMessageEvent.safeParse(body.data.event);
  if (!event.success) return { ok: true, events: [] }; // an event type edgeloop does not subscribe to
  const e = event.data;
  // Bots (edgeloop's own posts among them) and edits, deletions, joins … are not requests.
  if (e.bot_id || !e.user || (e.subtype && e.subtype !== "file_share" && e.subtype !== "thread_broadcast"))
    return { ok: true, events: [] };
  // Direct-message channel ids start with D; events of the message.im kind also say so.
  const direct = e.channel_type === "im" || (e.channel_type === undefined && e.channel.startsWith("D"));
  // In a channel only a message addressed to the bot is a request (not every message in the room).
  const botUsers = body.data.authorizations.filter((a) => a.is_bot && a.user_id).map((a) => a.user_id!);
  const addressed = e.type === "app_mention" || botUsers.some((id) => e.text.includes(`<@${id}>`));
  if (!direct && !addressed) return { ok: true, events: [] };
  const images: InboundImage[] = e.files
    .filter((f) => f.mimetype?.startsWith("image/") && (f.url_private_download ?? f.url_private))
    .map((f) => ({ ref: (f.url_private_download ?? f.url_private)!, mediaType: f.mimetype }));
  // A mention in a channel starts (or continues) a thread: the thread is the conversation.
  const threadId = e.thread_ts ?? (direct ? undefined : e.ts);
  const event_: InboundEvent = {
    kind: "message",
    // The message's own id, not the delivery's event_id: a retry carries both, but a mention in a
    // channel subscribed to message.channels arrives twice (app_mention and message), with two event_ids.
    eventId: `${e.channel}:${e.ts}`,
    chat: { chatId: e.channel, ...(threadId ? { threadId } : {}) },
    user: { id: e.user, name: e.user },
    chatType: direct ? "direct" : "group",
    text: withoutMention(e.text),
    images,
  };
  return { ok: true, events: [event_] };
}

/** Parse a verified form-encoded body: an interactivity `payload=` or a slash command. */
export function parseFormBody(raw: string): InboundResult {
  const form = new URLSearchParams(raw);
  const payloadRaw = form.get("payload");
  if (payloadRaw === null) return parseSlashCommand(form);
  let json: unknown;
  try {
    json = JSON.parse(payloadRaw);
  } catch {
    return bad("payload is not JSON");
  }
  if ((json as { type?: unknown })?.type !== "block_actions") return { ok: true, events: [] };
  const p = BlockActionsPayload.safeParse(json);
  if (!p.success) return bad(`not a Slack block_actions payload: ${p.error.issues[0]?.message}`);
  const messageTs = p.data.container.message_ts ?? p.data.message?.ts;
  const action = p.data.actions[0]!;
  if (!messageTs || action.value === undefined) return bad("block_actions without a message or a button value");
  const threadId = p.data.container.thread_ts ?? p.data.message?.thread_ts;
  return {
    ok: true,
    events: [
      {
        kind: "button",
        // Slack does not resend interactions; the trigger id is unique to this press.
        eventId: `action:${p.data.trigger_id}`,
        chat: { chatId: p.data.channel.id, ...(threadId ? { threadId } : {}) },
        user: { id: p.data.user.id, name: p.data.user.username ?? p.data.user.name ?? p.data.user.id },
        data: action.value,
        messageId: messageTs,
      },
    ],
  };
}

function parseSlashCommand(form: URLSearchParams): InboundResult {
  const c = SlashCommand.safeParse(Object.fromEntries(form));
  if (!c.success) return bad(`neither an interactivity payload nor a slash command: ${c.error.issues[0]?.message}`);
  const direct = c.data.channel_id.startsWith("D") || c.data.channel_name === "directmessage";
  // `/edgeloop text` asks; any other command (`/new`, `/device pi-2`) is passed as written.
  const text = c.data.command === "/edgeloop" ? c.data.text : `${c.data.command} ${c.data.text}`.trim();
  return {
    ok: true,
    events: [
      {
        kind: "message",
        eventId: `command:${c.data.trigger_id}`,
        chat: { chatId: c.data.channel_id },
        user: { id: c.data.user_id, name: c.data.user_name ?? c.data.user_id },
        chatType: direct ? "direct" : "group",
        text,
        images: [],
      },
    ],
    // An empty 200 acknowledges the command (api.slack.com/interactivity/slash-commands); a body would be
    // shown in the channel as the command's answer.
    immediate: { status: 200, body: "" },
  };
}
