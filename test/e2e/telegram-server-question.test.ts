/**
 * A remote MCP server's question in a chat thread: the conversation started from Telegram calls
 * a tool of a server (official SDK, loopback) that asks the person during the call. A question of
 * one choice becomes a card with a button per choice and one to decline, and the press is the
 * answer the server gets; a question of several fields is answered by replying with text, and a
 * reply that does not fit is refused in the chat with the reason, the question staying open.
 * Telegram is the local Bot API stand-in; the worker is the real one under `wrangler dev`.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ScriptedLlm, startScriptedLlm } from "../../scripted-llm/server.js";
import { freePort } from "../helpers/free-port.js";
import { type LocalWorker, startLocalWorker } from "../helpers/local-worker.js";
import { type Child, REPO_ROOT, startChild } from "../helpers/processes.js";
import { scriptedVars } from "../helpers/scripted-stack.js";
import {
  keyboardOf,
  pairChat,
  postUpdate,
  pressUpdate,
  sinceCall,
  textOf,
  textUpdate,
  waitForBotCall,
} from "../helpers/telegram-chat.js";
import { type BotApiCall, startTelegramStandin, type TelegramStandin } from "../helpers/telegram-standin.js";
import { waitUntil } from "../helpers/wait.js";

const BOT_TOKEN = "123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11";
const SECRET = "e2e-telegram-question-secret";
const OWNER = 4444444;
let llm: ScriptedLlm;
let telegram: TelegramStandin;
let worker: LocalWorker;
let server: Child;

const post = (update: unknown) => postUpdate(worker.url, update, SECRET);
const waitForCall = (what: string, pred: (c: BotApiCall) => boolean) => waitForBotCall(telegram, what, pred, 30_000);
const owner = { id: OWNER, name: "Owner" };

beforeAll(async () => {
  const port = await freePort();
  server = startChild(process.execPath, [join(REPO_ROOT, "test/fixtures/mcp/asking-http-server.mjs")], {
    name: "asking-server",
    env: { PORT: String(port) },
  });
  await waitUntil(
    () => fetch(`http://127.0.0.1:${port}/mcp`, { method: "POST", body: "{}" }).then((r) => r.status),
    (s) => s > 0,
    { what: "the asking server" },
  );
  llm = await startScriptedLlm({
    port: 0,
    rules: [
      {
        match: "^pick a region",
        turns: [
          { tool_calls: [{ name: "asker__pick_region", arguments: {} }] },
          { content: "Region: {{last_tool_result}}" },
        ],
      },
      {
        match: "^book a table",
        turns: [
          { tool_calls: [{ name: "asker__book_table", arguments: {} }] },
          { content: "Booked: {{last_tool_result}}" },
        ],
      },
    ],
  });
  telegram = await startTelegramStandin(BOT_TOKEN);
  const url = `http://127.0.0.1:${port}/mcp`;
  worker = await startLocalWorker({
    vars: scriptedVars(
      llm,
      { "pi-1": "t" },
      {
        TELEGRAM_BOT_TOKEN: BOT_TOKEN,
        TELEGRAM_WEBHOOK_SECRET: SECRET,
        TELEGRAM_API_BASE_URL: telegram.url,
        ALLOW_PRIVATE_OUTBOUND: "true",
        MCP_SERVERS: JSON.stringify([{ name: "asker", url, timeout_secs: 10, max_retries: 0 }]),
      },
    ),
  });
  // The person pairs their chat with the device, as a new chat user does.
  await pairChat(telegram, { workerUrl: worker.url, secret: SECRET, user: OWNER, agentId: "pi-1" });
});

afterAll(async () => {
  await worker?.stop();
  await server?.stop();
  await llm?.close();
  await telegram?.close();
});

const since = (mark: number, pred: (c: BotApiCall) => boolean) => sinceCall(telegram, mark, pred);

describe("a remote MCP server's question in a chat thread", () => {
  it("a choice becomes buttons, with one to decline; the press is the server's answer", async () => {
    const mark = telegram.calls().length;
    await post(textUpdate(OWNER, "pick a region"));
    const card = await waitForCall(
      "the question card",
      since(mark, (c) => textOf(c).includes("[asker] Which region?")),
    );
    const rows = keyboardOf(card);
    expect(rows.map((r) => r[0]!.text)).toEqual(["Europe", "America", "✗ Decline"]);
    await post(pressUpdate(owner, OWNER, card.message_id!, rows[1]![0]!.callback_data));
    const reply = await waitForCall(
      "the answer",
      since(mark, (c) => textOf(c).includes("Region:")),
    );
    expect(textOf(reply)).toContain('Region: accept {"region":"us-1"}');
  });

  it("the decline button declines", async () => {
    const mark = telegram.calls().length;
    await post(textUpdate(OWNER, "pick a region again"));
    const card = await waitForCall(
      "the question card",
      since(mark, (c) => textOf(c).includes("[asker] Which region?")),
    );
    const decline = keyboardOf(card).at(-1)![0]!;
    expect(decline.text).toBe("✗ Decline");
    await post(pressUpdate(owner, OWNER, card.message_id!, decline.callback_data));
    await waitForCall(
      "the declined answer",
      since(mark, (c) => textOf(c).includes("Region: decline")),
    );
  });

  it("a form of several fields is answered by text; a reply that does not fit is refused with the reason", async () => {
    const mark = telegram.calls().length;
    await post(textUpdate(OWNER, "book a table"));
    await waitForCall(
      "the question card",
      since(mark, (c) => textOf(c).includes("[asker] Who is the table for?")),
    );
    await post(textUpdate(OWNER, "guests: 99"));
    const refused = await waitForCall(
      "the refusal",
      since(mark, (c) => textOf(c).includes("does not fit the question")),
    );
    expect(textOf(refused)).toMatch(/guests/);
    await post(textUpdate(OWNER, "name: Ada\nguests: 3"));
    const reply = await waitForCall(
      "the answer",
      since(mark, (c) => textOf(c).includes("Booked:")),
    );
    expect(textOf(reply)).toContain('Booked: accept {"name":"Ada","guests":3,"seating":"inside"}');
  });
});
