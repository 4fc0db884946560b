import { spawn } from "node:child_process";
import { join } from "node:path";
import { ADMIN_TOKEN } from "./local-worker.js";
import { REPO_ROOT } from "./processes.js";
import type { BotApiCall, TelegramStandin } from "./telegram-standin.js";
import { waitUntil } from "./wait.js";

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

export async function adminCall<T>(workerUrl: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${workerUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as T };
}

/** `edgeloop` as an operator runs it, against the worker with the admin token and no config file. */
export function runCli(
  workerUrl: string,
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(REPO_ROOT, "cli/bin/edgeloop.js"), ...args], {
      cwd: REPO_ROOT,
      env: {
        PATH: process.env.PATH!,
        HOME: "/nonexistent",
        EDGELOOP_URL: workerUrl,
        EDGELOOP_ADMIN_TOKEN: ADMIN_TOKEN,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

export const textOf = (c: BotApiCall) => String(c.params.text ?? "");
export const toChat = (chat: number) => (c: BotApiCall) => String(c.params.chat_id) === String(chat);

/** The first recorded Bot API call matching `pred`, waited for. */
export async function waitForBotCall(
  standin: TelegramStandin,
  what: string,
  pred: (c: BotApiCall) => boolean,
  timeoutMs = 30_000,
): Promise<BotApiCall> {
  const found = await waitUntil(
    async () => standin.calls().find(pred),
    (c) => c !== undefined,
    { timeoutMs, what },
  );
  return found!;
}

/** The inline keyboard a sendMessage carried. */
export const keyboardOf = (c: BotApiCall) =>
  (c.params.reply_markup as { inline_keyboard: { text: string; callback_data: string }[][] }).inline_keyboard;
