/**
 * A device MCP server's question in a chat thread: the conversation started from Telegram calls a
 * tool of a server that runs on the device (a skill's `[mcp]` server, the official SDK over
 * stdio, under a real `edgeloop-agent`), and the server asks the person during the call. The
 * question reaches the chat as a remote server's does (docs/protocol.md#elicitation): a choice
 * becomes a card with a button per choice, and the press goes back to the device in an
 * `elicitation_answer` frame and is the answer the server gets; a form of several fields is
 * answered by replying with text, with the form's defaults. Telegram is the local Bot API
 * stand-in; the worker is the real one under `wrangler dev`.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ScriptedLlm, startScriptedLlm } from "../../scripted-llm/server.js";
import { type AgentProcess, startAgent } from "../helpers/device-agent.js";
import { type LocalWorker, startLocalWorker } from "../helpers/local-worker.js";
import { mcpSkill } from "../helpers/mcp.js";
import { REPO_ROOT } from "../helpers/processes.js";
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

const BOT_TOKEN = "123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew22";
const SECRET = "e2e-telegram-device-question-secret";
const OWNER = 5555555;
const AGENT = "pi-chat-asks";
const DEVICE_TOKEN = "chat-asks-device-token";
const ASKING_SERVER = join(REPO_ROOT, "test/fixtures/mcp/asking-stdio-server.mjs");
let llm: ScriptedLlm;
let telegram: TelegramStandin;
let worker: LocalWorker;
let agent: AgentProcess;

const post = (update: unknown) => postUpdate(worker.url, update, SECRET);
const waitForCall = (what: string, pred: (c: BotApiCall) => boolean) => waitForBotCall(telegram, what, pred, 30_000);
const owner = { id: OWNER, name: "Owner" };

/** The asking server's tools, with time for a person to answer. */
function askingSkill(): string {
  const lines = [
    `command = ["node", "${ASKING_SERVER}"]`,
    `tools = ["pick_region", "book_table"]`,
    "timeout_ms = 120000",
    "max_timeout_ms = 120000",
  ];
  return mcpSkill("ask", lines.join("\n"));
}

beforeAll(async () => {
  llm = await startScriptedLlm({
    port: 0,
    rules: [
      {
        match: "^pick a region",
        turns: [{ tool_calls: [{ name: "pick_region", arguments: {} }] }, { content: "Region: {{last_tool_result}}" }],
      },
      {
        match: "^book a table",
        turns: [{ tool_calls: [{ name: "book_table", arguments: {} }] }, { content: "Booked: {{last_tool_result}}" }],
      },
    ],
  });
  telegram = await startTelegramStandin(BOT_TOKEN);
  worker = await startLocalWorker({
    vars: scriptedVars(
      llm,
      { [AGENT]: DEVICE_TOKEN },
      { TELEGRAM_BOT_TOKEN: BOT_TOKEN, TELEGRAM_WEBHOOK_SECRET: SECRET, TELEGRAM_API_BASE_URL: telegram.url },
    ),
  });
  agent = await startAgent({ url: worker.url, agentId: AGENT, token: DEVICE_TOKEN, skills: [askingSkill()] });
  // The person pairs their chat with the device, as a new chat user does.
  await pairChat(telegram, { workerUrl: worker.url, secret: SECRET, user: OWNER, agentId: AGENT });
});

afterAll(async () => {
  await agent?.stop();
  await worker?.stop();
  await llm?.close();
  await telegram?.close();
});

const since = (mark: number, pred: (c: BotApiCall) => boolean) => sinceCall(telegram, mark, pred);

describe("a device MCP server's question in a chat thread", () => {
  it("a choice becomes buttons; the press reaches the server on the device", async () => {
    const mark = telegram.calls().length;
    await post(textUpdate(OWNER, "pick a region"));
    const card = await waitForCall(
      "the question card",
      since(mark, (c) => textOf(c).includes("[ask] Which region?")),
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

  it("a form of several fields is answered by text, and the server gets it with the form's defaults", async () => {
    const mark = telegram.calls().length;
    await post(textUpdate(OWNER, "book a table"));
    await waitForCall(
      "the question card",
      since(mark, (c) => textOf(c).includes("[ask] Who is the table for?")),
    );
    await post(textUpdate(OWNER, "name: Ada\nseating: terrace"));
    const reply = await waitForCall(
      "the answer",
      since(mark, (c) => textOf(c).includes("Booked:")),
    );
    expect(textOf(reply)).toContain('Booked: accept {"name":"Ada","guests":2,"seating":"terrace"}');
  });
});
