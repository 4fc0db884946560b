import type {
  ChatAddress,
  InboundEvent,
  InboundImage,
  OutboundMessage,
  PlatformClient,
  SendResult,
} from "../../platform.js";
import {
  fetchBytes,
  httpFailure,
  isPlatformUrl,
  type PlatformAnswer,
  platformCall,
  retryAfterHeaderMs,
} from "../common/platform-call.js";
import { messageBody } from "./format.js";
import type { SlackSettings } from "./settings.js";

/** Where Slack serves the files users share (url_private). */
const SLACK_FILE_HOSTS = ["files.slack.com"];

/**
 * Slack's Web API answers 200 with `{"ok":false,"error":…}` for most failures and 429 with
 * `Retry-After` (seconds) when rate limited (docs.slack.dev/apis/web-api/rate-limits).
 */
function interpret(answer: PlatformAnswer, idOf: (body: Record<string, unknown>) => unknown): SendResult {
  const body = (typeof answer.body === "object" && answer.body !== null ? answer.body : {}) as Record<string, unknown>;
  if (answer.status !== 200) return httpFailure(answer, String(body.error ?? ""), retryAfterHeaderMs(answer.headers));
  if (body.ok !== true) {
    const error = String(body.error ?? "unknown error");
    // Slack reports some throttling in the body; those are worth another try.
    const retryable = error === "ratelimited" || error === "internal_error" || error === "fatal_error";
    return { ok: false, retryable, error: `Slack: ${error}` };
  }
  return { ok: true, messageId: String(idOf(body) ?? "") };
}

export function slackClient(settings: SlackSettings, fetchImpl: typeof fetch = fetch): PlatformClient {
  const base = settings.SLACK_API_BASE_URL;
  const auth = { authorization: `Bearer ${settings.SLACK_BOT_TOKEN}` };
  const callJson = (method: string, body: unknown, idOf: (b: Record<string, unknown>) => unknown = (b) => b.ts) =>
    platformCall(
      fetchImpl,
      `${base}/${method}`,
      {
        method: "POST",
        headers: { ...auth, "content-type": "application/json; charset=utf-8" },
        body: JSON.stringify(body),
      },
      (a) => interpret(a, idOf),
    );
  const thread = (to: ChatAddress) => (to.threadId ? { thread_ts: to.threadId } : {});

  /** files.getUploadURLExternal → upload the bytes → files.completeUploadExternal (Slack's upload flow). */
  async function sendImage(to: ChatAddress, message: OutboundMessage): Promise<SendResult> {
    const image = message.image!;
    const filename = `image.${image.mediaType.split("/")[1] ?? "png"}`;
    let uploadUrl = "";
    const ticket = await platformCall(
      fetchImpl,
      `${base}/files.getUploadURLExternal`,
      {
        method: "POST",
        headers: { ...auth, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ filename, length: String(image.bytes.byteLength) }),
      },
      (a) => {
        const r = interpret(a, (b) => b.file_id);
        if (r.ok) uploadUrl = String((a.body as Record<string, unknown>).upload_url ?? "");
        return r;
      },
    );
    if (!ticket.ok) return ticket;
    const upload = await platformCall(
      fetchImpl,
      uploadUrl,
      { method: "POST", headers: { "content-type": image.mediaType }, body: image.bytes as Uint8Array<ArrayBuffer> },
      (a) => (a.status === 200 ? { ok: true, messageId: ticket.messageId } : httpFailure(a, "file upload")),
    );
    if (!upload.ok) return upload;
    const caption = image.caption ?? message.markdown;
    return callJson(
      "files.completeUploadExternal",
      {
        files: [{ id: ticket.messageId, title: filename }],
        channel_id: to.chatId,
        ...thread(to),
        ...(caption ? { initial_comment: caption } : {}),
      },
      () => ticket.messageId,
    );
  }

  return {
    send(to, message) {
      if (message.image) return sendImage(to, message);
      return callJson("chat.postMessage", { channel: to.chatId, ...thread(to), ...messageBody(message) });
    },
    edit(to, messageId, message) {
      return callJson("chat.update", { channel: to.chatId, ts: messageId, ...messageBody(message) });
    },
    async typing(to) {
      // Slack has no typing indicator for bots outside assistant threads, where it is a status line.
      if (!to.threadId) return;
      await callJson("assistant.threads.setStatus", {
        channel_id: to.chatId,
        thread_ts: to.threadId,
        status: "is working…",
      }).catch(() => {});
    },
    async answerButton(event: Extract<InboundEvent, { kind: "button" }>, text: string) {
      // The 200 to the webhook already acknowledged the press; the presser alone is told the outcome.
      await callJson("chat.postEphemeral", {
        channel: event.chat.chatId,
        user: event.user.id,
        text,
        ...thread(event.chat),
      });
    },
    fetchImage(image: InboundImage) {
      if (!isPlatformUrl(image.ref, base, SLACK_FILE_HOSTS))
        return Promise.reject(new Error("not a Slack file URL; the bot token is not sent elsewhere"));
      return fetchBytes(fetchImpl, image.ref, auth);
    },
  };
}
