import type { ChannelPlatform } from "@edgeloop/protocol/channels";
import type { z } from "zod";

/**
 * The seam between edgeloop's channel logic and one chat platform (Telegram, Slack, Discord,
 * WhatsApp). A platform module only speaks its platform's wire format: it verifies an inbound
 * request the platform's own way, turns a verified body into normalized events (validated with
 * zod), and performs outbound calls against a configurable API base URL. Everything else — which
 * conversation a chat maps to, grants, pairing, approvers, deduplication, the outbox, throttling
 * edits — lives in the channel core and is the same for every platform.
 */

/** A platform's name: one of protocol/channels.ts's CHANNEL_PLATFORMS, the one list of them. */
export type PlatformName = ChannelPlatform;

/** Where a reply goes: a chat, and inside it a thread or topic when the platform has one. */
export interface ChatAddress {
  /** Telegram chat id, Slack channel id, Discord channel id, WhatsApp phone number (wa_id). */
  chatId: string;
  /** Telegram message_thread_id, Slack thread_ts, Discord thread id; absent otherwise. */
  threadId?: string;
}

export interface ChatUser {
  /** The platform's stable user id (Telegram from.id, Slack user, Discord user.id, WhatsApp wa_id). */
  id: string;
  /** A display name, for cards ("approved by …") and audit; never used for authorization. */
  name: string;
}

export interface InboundImage {
  /** The platform's handle for fetching the bytes (Telegram file_id, Slack url_private, WhatsApp media id). */
  ref: string;
  mediaType?: string;
}

/** What a verified platform request means, normalized. One request may carry several events. */
export type InboundEvent =
  | {
      kind: "message";
      /** The platform's own id for this delivery (Telegram update_id, Slack event_id, …): the dedupe key. */
      eventId: string;
      chat: ChatAddress;
      user: ChatUser;
      /** "group" when others share the chat; grants may bind a whole group. */
      chatType: "direct" | "group";
      text: string;
      images: InboundImage[];
      /** What the platform needs to answer the sender alone (Discord's interaction token), when it has that. */
      ackToken?: string;
    }
  | {
      /** A press on a button edgeloop sent; `data` is the short id edgeloop put there (≤ 64 bytes). */
      kind: "button";
      eventId: string;
      chat: ChatAddress;
      user: ChatUser;
      data: string;
      /** The message holding the card, so the card can be edited in place. */
      messageId: string;
      /** What the platform needs to acknowledge the press (Telegram callback_query id, Discord token). */
      ackToken?: string;
    };

/**
 * The answer a platform expects synchronously, when it expects one besides 200 (Slack url_verification,
 * Discord PING, WhatsApp's GET handshake). A string body is sent as plain text, anything else as JSON.
 */
export interface ImmediateAnswer {
  status: number;
  /** A string is sent as it is, as text/plain (WhatsApp's hub.challenge); anything else as JSON. */
  body: unknown;
}

export type InboundResult =
  | { ok: true; events: InboundEvent[]; immediate?: ImmediateAnswer }
  | { ok: false; status: 400 | 401 | 403; reason: string };

export interface Button {
  /** Shown on the button. */
  label: string;
  /** Carried back in a `button` event; a short id, never a secret, at most 64 bytes. */
  data: string;
  style?: "primary" | "danger";
}

export interface OutboundMessage {
  /** Markdown as the model wrote it; the platform module converts it to its own format. */
  markdown: string;
  /** Rows of buttons. */
  buttons?: Button[][];
  /** A photo to send with (or instead of) the text. */
  image?: { bytes: Uint8Array; mediaType: string; caption?: string };
  /**
   * Seen only by the sender of the message it answers, where the platform can do that (Discord: an
   * ephemeral follow-up on the interaction's `ackToken`); a pairing code is a secret. Elsewhere the
   * chat is the sender's own (Telegram and WhatsApp direct chats) or the message goes to the chat.
   */
  onlyFor?: { userId: string; ackToken?: string };
}

/** A platform call's outcome, shaped for the outbox: retry on 429/5xx after `retryAfterMs`. */
export type SendResult =
  | { ok: true; messageId: string }
  | { ok: false; retryable: boolean; retryAfterMs?: number; error: string };

export interface PlatformLimits {
  /** Longest text one message may carry; longer answers are split. */
  maxMessageLength: number;
  /** Least time between two edits of one message in one chat. */
  minEditIntervalMs: number;
  /** Whether a message can be edited in place (WhatsApp cannot: the reply is sent when complete). */
  canEdit: boolean;
  /** The largest photo the platform takes from a bot; a larger one is replaced by a line saying so. */
  photoMaxBytes: number;
}

/** A platform's settings as its module reads them: null while the channel is off. */
export type SettingsResult<S> = { ok: true; value: S | null } | { ok: false; error: string };

/**
 * One platform: everything about it is in its folder (platforms/<name>/) and reached through this
 * shape; the registry (platforms/index.ts) lists it once. Verification and parsing are pure over
 * (request bytes, settings); the client does I/O.
 */
export interface ChatPlatform<Settings> {
  name: PlatformName;
  /** How people write the platform's name ("WhatsApp"), in what a chat is told. */
  title: string;
  limits: PlatformLimits;
  /** Its vars, each with a `.describe()` (docs/configuration.md is generated from it). */
  settingsSchema: z.ZodObject;
  /** Its settings read from the deployment's vars: null while the channel is off. */
  settings(env: object): SettingsResult<Settings>;
  /**
   * How to point the platform at `webhookUrl` by hand: the API call to make (against the configured
   * API base URL) or where in the platform's console; secrets stay placeholders.
   */
  registration(webhookUrl: string, settings: Settings): string;
  /** Verify the request the platform's way and parse it; never throws on bad input. */
  inbound(request: Request, settings: Settings): Promise<InboundResult>;
  client(settings: Settings, fetchImpl?: typeof fetch): PlatformClient;
}

export interface PlatformClient {
  send(to: ChatAddress, message: OutboundMessage): Promise<SendResult>;
  edit(to: ChatAddress, messageId: string, message: OutboundMessage): Promise<SendResult>;
  /**
   * Show "typing…" while tools run; best effort. `inReplyTo` is the user's message being answered,
   * which WhatsApp's indicator needs (without it WhatsApp shows nothing).
   */
  typing(to: ChatAddress, inReplyTo?: string): Promise<void>;
  /** Mark a user's message read where the platform shows that to the sender (WhatsApp); best effort. */
  markRead?(to: ChatAddress, messageId: string): Promise<void>;
  /**
   * Tell the presser what their press did (a toast, an ephemeral follow-up, or a reply in their chat
   * where the platform has neither): docs/channels.md promises every press an answer.
   */
  answerButton(event: Extract<InboundEvent, { kind: "button" }>, text: string): Promise<void>;
  /** Fetch the bytes of an image a user sent. */
  fetchImage(image: InboundImage): Promise<{ bytes: Uint8Array; mediaType: string }>;
  /**
   * Point the platform at edgeloop's webhook URL, for platforms whose API does that (Telegram's
   * setWebhook); absent where it is done in the platform's console (`edgeloop channels register`
   * then prints the steps).
   */
  registerWebhook?(webhookUrl: string): Promise<{ ok: boolean; detail: string }>;
}
