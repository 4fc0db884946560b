import type { InboundEvent, InboundImage, OutboundMessage, PlatformClient, SendResult } from "../../platform.js";
import {
  fetchBytes,
  httpFailure,
  isPlatformUrl,
  type PlatformAnswer,
  platformCall,
  retryAfterHeaderMs,
} from "../common/platform-call.js";
import { messageBody } from "./format.js";
import type { DiscordSettings } from "./settings.js";

/** Where Discord serves attachments. */
const DISCORD_FILE_HOSTS = ["cdn.discordapp.com", "media.discordapp.net"];

/** Message flag: only the user who pressed sees it. */
const EPHEMERAL = 64;

/** Discord's JSON error code for a follow-up on an interaction it has not seen answered (or has forgotten). */
const UNKNOWN_INTERACTION = 10015;

/**
 * How long a follow-up waits for Discord to see the interaction's own response: the webhook answers
 * it (PONG, type 4 or 6) while the thread may already be posting the follow-up, and Discord refuses
 * a follow-up before that (404, code 10015). Discord drops an interaction not answered within 3 s,
 * so past that a 10015 is final.
 */
const FOLLOW_UP_WAITS_MS = [100, 250, 500, 1000, 1500];

/**
 * Discord answers 2xx with the message, and 429 with `{"retry_after": seconds, "global": bool}` in the
 * body (the header says the same, rounded up) (discord.com/developers/docs/topics/rate-limits).
 */
function interpret(answer: PlatformAnswer): SendResult {
  const body = (typeof answer.body === "object" && answer.body !== null ? answer.body : {}) as Record<string, unknown>;
  if (answer.status >= 200 && answer.status < 300) return { ok: true, messageId: String(body.id ?? "") };
  const retryAfterMs =
    typeof body.retry_after === "number" ? Math.ceil(body.retry_after * 1000) : retryAfterHeaderMs(answer.headers);
  const message = String(body.message ?? (typeof answer.body === "string" ? answer.body : ""));
  return httpFailure(answer, typeof body.code === "number" ? `${message} (code ${body.code})` : message, retryAfterMs);
}

export function discordClient(settings: DiscordSettings, fetchImpl: typeof fetch = fetch): PlatformClient {
  const base = settings.DISCORD_API_BASE_URL;
  const auth = { authorization: `Bot ${settings.DISCORD_BOT_TOKEN}` };
  const json = (method: string, path: string, body: unknown) =>
    platformCall(
      fetchImpl,
      `${base}${path}`,
      { method, headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify(body) },
      interpret,
    );

  /** A photo goes as multipart: `payload_json` plus the file (discord.com/developers/docs/reference#uploading-files). */
  function sendWithImage(channelId: string, message: OutboundMessage): Promise<SendResult> {
    const image = message.image!;
    const filename = `image.${image.mediaType.split("/")[1] ?? "png"}`;
    const form = new FormData();
    const payload = { ...messageBody(message), attachments: [{ id: 0, filename }] };
    if (image.caption && !payload.content) payload.content = image.caption;
    form.append("payload_json", JSON.stringify(payload));
    form.append("files[0]", new Blob([image.bytes as Uint8Array<ArrayBuffer>], { type: image.mediaType }), filename);
    return platformCall(
      fetchImpl,
      `${base}/channels/${channelId}/messages`,
      { method: "POST", headers: auth, body: form },
      interpret,
    );
  }

  /**
   * A follow-up on an interaction (discord.com/developers/docs/interactions/receiving-and-responding#create-followup-message),
   * ephemeral: seen only by the user who sent it. Retried while Discord has not yet seen the
   * interaction answered (see FOLLOW_UP_WAITS_MS).
   */
  async function followUp(token: string, content: string): Promise<SendResult> {
    const body = { content, flags: EPHEMERAL, allowed_mentions: { parse: [] } };
    const path = `/webhooks/${settings.DISCORD_APPLICATION_ID}/${token}`;
    let sent = await json("POST", path, body);
    for (const wait of FOLLOW_UP_WAITS_MS) {
      if (sent.ok || !sent.error.includes(`(code ${UNKNOWN_INTERACTION})`)) break;
      await new Promise((r) => setTimeout(r, wait));
      sent = await json("POST", path, body);
    }
    return sent;
  }

  return {
    send(to, message) {
      // A pairing code goes to its user alone, on the interaction that asked.
      if (message.onlyFor?.ackToken) return followUp(message.onlyFor.ackToken, messageBody(message).content);
      // A thread is a channel of its own on Discord: the chat id already names it.
      if (message.image) return sendWithImage(to.chatId, message);
      return json("POST", `/channels/${to.chatId}/messages`, messageBody(message));
    },
    edit(to, messageId, message) {
      return json("PATCH", `/channels/${to.chatId}/messages/${messageId}`, messageBody(message));
    },
    async typing(to) {
      await platformCall(
        fetchImpl,
        `${base}/channels/${to.chatId}/typing`,
        { method: "POST", headers: auth },
        interpret,
      ).catch(() => {});
    },
    async answerButton(event: Extract<InboundEvent, { kind: "button" }>, text: string) {
      // A follow-up on the press's own interaction, once Discord has its deferral: seen only by the presser.
      if (event.ackToken) await followUp(event.ackToken, text);
    },
    fetchImage(image: InboundImage) {
      if (!isPlatformUrl(image.ref, base, DISCORD_FILE_HOSTS))
        return Promise.reject(new Error("not a Discord attachment URL"));
      // Attachment URLs are signed by Discord; they need no token.
      return fetchBytes(fetchImpl, image.ref, {});
    },
  };
}
