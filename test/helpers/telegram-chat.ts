import { expect } from "vitest";
import { waitForRecorded } from "./channel-e2e.js";
import { asAdmin, runCli } from "./cli.js";
import type { BotApiCall, TelegramStandin } from "./telegram-standin.js";

/**
 * A Telegram chat against a local worker, as the e2e tests drive it: updates shaped as the Bot
 * API documents them, posted with the secret-token header as Telegram sends it; the admin API and
 * the CLI as an operator uses them; and waiting for the worker's calls to the Bot API stand-in.
 */
let updateId = 500_000;

/** A private-chat text message (`chat.id` equals the user's id, as in a direct chat). */
export function textUpdate(from: number, text: string) {
  const id = ++updateId;
  const user = { id: from, is_bot: false, first_name: "Test", last_name: "Lastname", username: `user${from}` };
  return {
    update_id: id,
    message: { message_id: id, from: user, chat: { ...user, type: "private" }, date: 1441645532, text },
  };
}

/**
 * A private-chat photo as Telegram delivers it: the sizes it made of the picture, smallest first,
 * each with its own file_id (the last is the original's size), and the caption when there is one.
 */
export function photoUpdate(from: number, fileIds: { thumb: string; full: string }, caption?: string) {
  const { update_id, message } = textUpdate(from, "");
  const { text: _text, ...rest } = message;
  const photo = [
    { file_id: fileIds.thumb, file_unique_id: `u_${fileIds.thumb}`, file_size: 1093, width: 90, height: 60 },
    { file_id: fileIds.full, file_unique_id: `u_${fileIds.full}`, file_size: 24_313, width: 320, height: 213 },
  ];
  return { update_id, message: { ...rest, photo, ...(caption !== undefined ? { caption } : {}) } };
}

/** A press on an inline button of message `messageId` in `chat`. */
export function pressUpdate(from: { id: number; name: string }, chat: number, messageId: number, data: string) {
  const id = ++updateId;
  return {
    update_id: id,
    callback_query: {
      id: `cb${id}`,
      from: { id: from.id, is_bot: false, first_name: from.name },
      message: { message_id: messageId, chat: { id: chat, type: "private" }, date: 1441645532, text: "card" },
      chat_instance: "-1234",
      data,
    },
  };
}

export async function postUpdate(workerUrl: string, update: unknown, secret: string | null) {
  const res = await fetch(`${workerUrl}/v1/channels/telegram`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(secret ? { "X-Telegram-Bot-Api-Secret-Token": secret } : {}) },
    body: JSON.stringify(update),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

export const textOf = (c: BotApiCall) => String(c.params.text ?? "");
export const toChat = (chat: number) => (c: BotApiCall) => String(c.params.chat_id) === String(chat);

/** The first recorded Bot API call matching `pred`, waited for. */
export const waitForBotCall = (
  standin: TelegramStandin,
  what: string,
  pred: (c: BotApiCall) => boolean,
  timeoutMs?: number,
): Promise<BotApiCall> => waitForRecorded(() => standin.calls(), what, pred, timeoutMs);

/** The inline keyboard a sendMessage carried. */
export const keyboardOf = (c: BotApiCall) =>
  (c.params.reply_markup as { inline_keyboard: { text: string; callback_data: string }[][] }).inline_keyboard;

/** A matcher for the calls from index `mark` on (a run's answer edits its live message). */
export const sinceCall =
  (standin: TelegramStandin, mark: number, pred: (c: BotApiCall) => boolean) => (c: BotApiCall) =>
    standin.calls().indexOf(c) >= mark && pred(c);

/**
 * A new chat user pairs their chat with `agentId` as the README says: they write, the bot answers
 * with a pairing code, and an admin approves it with `edgeloop channels approve`.
 */
export async function pairChat(
  standin: TelegramStandin,
  chat: { workerUrl: string; secret: string; user: number; agentId: string },
): Promise<void> {
  const waitFor = (what: string, pred: (c: BotApiCall) => boolean) => waitForBotCall(standin, what, pred, 30_000);
  await postUpdate(chat.workerUrl, textUpdate(chat.user, "hello"), chat.secret);
  const notice = await waitFor("the pairing code", (c) => /pairing code/.test(textOf(c)));
  const code = textOf(notice).match(/pairing code is ([A-Z0-9]{4}-[A-Z0-9]{4})/)![1]!;
  const approved = await runCli(["channels", "approve", code, "--agent", chat.agentId], asAdmin(chat.workerUrl));
  expect(approved.code, approved.stderr).toBe(0);
  await waitFor("the paired notice", (c) => toChat(chat.user)(c) && /^Paired/.test(textOf(c)));
}
