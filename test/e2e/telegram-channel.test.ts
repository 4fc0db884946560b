/**
 * Telegram end to end: updates shaped as in the Bot API's documentation, sent with the secret
 * token header exactly as Telegram sends it, to the real worker under plain `wrangler dev`, whose
 * Bot API calls go to a local stand-in that records them. One wrangler, the scripted model, an
 * offline device for most runs (built-in tools), and a real agent for the long device tool.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ScriptedLlm, startScriptedLlm } from "../../scripted-llm/server.js";
import { LONG_ANSWER, TELEGRAM_CHAT_RULES as RULES } from "../fixtures/telegram-chat-script.js";
import { adminJson } from "../helpers/channel-e2e.js";
import { asAdmin, runCli } from "../helpers/cli.js";
import { dashboardPage, launchChromium, logIn } from "../helpers/dashboard-browser.js";
import { type AgentProcess, startAgent } from "../helpers/device-agent.js";
import { type LocalWorker, startLocalWorker } from "../helpers/local-worker.js";
import { scriptedVars } from "../helpers/scripted-stack.js";
import {
  keyboardOf,
  postUpdate,
  pressUpdate,
  textOf,
  textUpdate,
  toChat,
  waitForBotCall,
} from "../helpers/telegram-chat.js";
import { type BotApiCall, startTelegramStandin, type TelegramStandin } from "../helpers/telegram-standin.js";

const BOT_TOKEN = "123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11";
const SECRET = "e2e-telegram-webhook-secret";
const OWNER = 1111111; // paired, and an approver
const STRANGER = 2222222;
const NEWCOMER = 3333333; // paired from the dashboard
let llm: ScriptedLlm;
let telegram: TelegramStandin;
let worker: LocalWorker;
let agent: AgentProcess | undefined;

const vars = () =>
  scriptedVars(
    llm,
    { "pi-1": "t" },
    {
      TOOL_POLICIES: "echo:requires_approval",
      TELEGRAM_BOT_TOKEN: BOT_TOKEN,
      TELEGRAM_WEBHOOK_SECRET: SECRET,
      TELEGRAM_API_BASE_URL: telegram.url,
      CHANNEL_APPROVERS: `telegram:${OWNER}`,
    },
  );

beforeAll(async () => {
  llm = await startScriptedLlm({ port: 0, rules: RULES });
  telegram = await startTelegramStandin(BOT_TOKEN);
  worker = await startLocalWorker({ vars: vars() });
});

afterAll(async () => {
  await agent?.stop();
  await worker?.stop();
  await llm?.close();
  await telegram?.close();
});

const post = (update: unknown, secret: string | null = SECRET) => postUpdate(worker.url, update, secret);
const admin = <T>(method: string, path: string, body?: unknown) => adminJson<T>(worker.url, method, path, body);
const cli = (args: string[]) => runCli(args, asAdmin(worker.url));
const waitForCall = (what: string, pred: (c: BotApiCall) => boolean, timeoutMs?: number) =>
  waitForBotCall(telegram, what, pred, timeoutMs);
const owner = { id: OWNER, name: "Owner" };
const stranger = { id: STRANGER, name: "Stranger" };

describe("Telegram channel", () => {
  it("edgeloop channels register points Telegram at the webhook with the secret token", async () => {
    const out = await cli([
      "channels",
      "register",
      "telegram",
      "--webhook-url",
      "https://edgeloop.example/v1/channels/telegram",
    ]);
    expect(out.code, out.stderr).toBe(0);
    const [call] = telegram.callsOf("setWebhook");
    expect(call?.params).toEqual({
      url: "https://edgeloop.example/v1/channels/telegram",
      secret_token: SECRET,
      allowed_updates: ["message", "callback_query"],
    });
    telegram.reset();
  });

  it("--print shows the setWebhook call against this worker's Bot API, and refuses a URL Telegram would not call", async () => {
    const printed = await cli([
      "channels",
      "register",
      "telegram",
      "--print",
      "--webhook-url",
      "https://edgeloop.example/v1/channels/telegram",
    ]);
    expect(printed.code, printed.stderr).toBe(0);
    expect(printed.stdout).toContain(`curl -sS ${telegram.url}/bot$TELEGRAM_BOT_TOKEN/setWebhook`);
    expect(printed.stdout).toContain("-d url=https://edgeloop.example/v1/channels/telegram");
    expect(printed.stdout).not.toContain(SECRET);
    // Without --webhook-url the URL is the worker's own, http here: the worker refuses it, so nothing is printed.
    const local = await cli(["channels", "register", "telegram", "--print"]);
    expect(local.code).not.toBe(0);
    expect(local.stderr).toMatch(/https/);
    expect(local.stdout).not.toContain("setWebhook");
    expect(telegram.callsOf("setWebhook")).toHaveLength(0);
  });

  it("refuses an update without the secret token, or with a wrong one", async () => {
    expect((await post(textUpdate(OWNER, "hello"), null)).status).toBe(401);
    expect((await post(textUpdate(OWNER, "hello"), "not-the-secret-token")).status).toBe(401);
    expect(telegram.calls()).toHaveLength(0);
  });

  it("an unknown user gets a pairing code and reaches no device; approved, they are told so", async () => {
    const before = llm.requests().length;
    expect((await post(textUpdate(OWNER, "hello before pairing"))).status).toBe(200);
    const notice = await waitForCall(
      "the pairing code",
      (c) => c.method === "sendMessage" && /pairing code/.test(textOf(c)),
    );
    const code = textOf(notice).match(/pairing code is ([A-Z0-9]{4}-[A-Z0-9]{4})/)![1]!;
    // Writing again: no second code, and still nothing reaches the model.
    await post(textUpdate(OWNER, "hello again"));
    const pending = await cli(["channels", "pairings"]);
    expect(pending.code, pending.stderr).toBe(0);
    expect(pending.stdout).toContain(code);
    expect(pending.stdout).toContain(String(OWNER));
    expect(llm.requests().length).toBe(before);
    expect(telegram.callsOf("sendMessage").filter((c) => /pairing code/.test(textOf(c)))).toHaveLength(1);

    const approved = await cli(["channels", "approve", code, "--agent", "pi-1"]);
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout).toContain("may reach pi-1");
    const status = await admin<{ grants: { subject: string; agents: string[] }[] }>("GET", "/v1/channels");
    expect(status.body.grants).toContainEqual(expect.objectContaining({ subject: `user:${OWNER}`, agents: ["pi-1"] }));
    await waitForCall("the paired notice", (c) => toChat(OWNER)(c) && /^Paired/.test(textOf(c)));
    expect((await admin("POST", `/v1/channels/pairings/${code}/approve`, { agents: ["pi-1"] })).status).toBe(404);
  });

  it("the dashboard's channels panel shows a waiting code and approves it", async () => {
    await post(textUpdate(NEWCOMER, "hi"));
    const notice = await waitForCall("the code", (c) => toChat(NEWCOMER)(c) && /pairing code/.test(textOf(c)));
    const code = textOf(notice).match(/pairing code is ([A-Z0-9]{4}-[A-Z0-9]{4})/)![1]!;
    const browser = await launchChromium();
    try {
      const errors: string[] = [];
      const page = await dashboardPage(browser, errors);
      await logIn(page, worker.url);
      const row = page.locator("#channel-pairings tr", { hasText: code });
      await row.waitFor();
      await row.getByRole("button", { name: `Approve ${code}` }).click();
      await page.getByLabel("Devices the chat user may use, comma-separated").fill("pi-1");
      await page.getByRole("button", { name: "Approve code" }).click();
      await page.locator("#pairing-result", { hasText: "may reach pi-1" }).waitFor();
      await page.locator("#channel-grants tr", { hasText: `user:${NEWCOMER}` }).waitFor();
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
    await waitForCall("the paired notice", (c) => toChat(NEWCOMER)(c) && /^Paired/.test(textOf(c)));
  });

  it("a paired user's message gets one answer, in Telegram's HTML; a platform retry starts no second run", async () => {
    const update = textUpdate(OWNER, "hello there");
    const first = await post(update);
    expect(first.body).toMatchObject({ ok: true, taken: 1 });
    // Telegram delivers the same update again (it did not see our 200 in time).
    const again = await post(update);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ taken: 0, repeated: 1 });
    // The answer streams into one message; its last form is Telegram HTML.
    const answer = await waitForCall("the answer", (c) => textOf(c) === "Hello back from <b>pi-1</b>.");
    expect(answer.params.parse_mode).toBe("HTML");
    await new Promise((r) => setTimeout(r, 2000));
    expect(llm.requests().filter((r) => JSON.stringify(r.body).includes("hello there"))).toHaveLength(1);
    const answers = telegram.calls().filter((c) => c.method === "sendMessage" && textOf(c).includes("Hello back"));
    expect(answers.length).toBeLessThanOrEqual(1);
  });

  it("approval by button: a stranger is refused, the approver's press applies once, the card says who", async () => {
    await post(textUpdate(OWNER, "please echo"));
    const card = await waitForCall(
      "the approval card",
      (c) => c.method === "sendMessage" && /Approval needed/.test(textOf(c)),
    );
    const keyboard = keyboardOf(card)[0]!;
    expect(keyboard.map((b) => b.text)).toEqual(["Approve", "Always", "Deny"]);
    for (const b of keyboard) expect(new TextEncoder().encode(b.callback_data).length).toBeLessThanOrEqual(64);
    const approve = keyboard[0]!.callback_data;
    const cardId = card.message_id!;

    await post(pressUpdate(stranger, OWNER, cardId, approve));
    const refused = await waitForCall(
      "the stranger's refusal",
      (c) => c.method === "answerCallbackQuery" && /may not approve/.test(textOf(c)),
    );
    expect(refused).toBeDefined();
    const audit = await admin<{ audit: { user_id: string; action: string }[] }>("GET", "/v1/channels");
    expect(audit.body.audit[0]).toMatchObject({ user_id: String(STRANGER), action: "approve refused" });

    await post(pressUpdate(owner, OWNER, cardId, approve));
    await post(pressUpdate(owner, OWNER, cardId, approve));
    const edited = await waitForCall(
      "the card edited in place",
      (c) =>
        c.method === "editMessageText" && Number(c.params.message_id) === cardId && /Approved by Owner/.test(textOf(c)),
    );
    expect(edited.params.reply_markup).toEqual({ inline_keyboard: [] });
    await waitForCall("the answer after approval", (c) => textOf(c).includes("Echo said tapped"));
    await waitForCall(
      "the second press answered",
      (c) => c.method === "answerCallbackQuery" && /Already decided/.test(textOf(c)),
    );
    // The echo ran once: one model turn saw its result.
    const sawResult = llm
      .requests()
      .filter((r) => JSON.stringify(r.body).includes('"tapped"') && JSON.stringify(r.body).includes('"role":"tool"'));
    expect(sawResult).toHaveLength(1);
  });

  it("Always remembers the approval for this chat: the next call of the tool asks no one", async () => {
    const mark = telegram.calls().length;
    const isNew = (c: BotApiCall) => telegram.calls().indexOf(c) >= mark;
    await post(textUpdate(OWNER, "please echo again"));
    const card = await waitForCall(
      "a card",
      (c) => isNew(c) && c.method === "sendMessage" && /Approval needed/.test(textOf(c)),
    );
    const always = keyboardOf(card)[0]!.find((b) => b.text === "Always")!;
    await post(pressUpdate(owner, OWNER, card.message_id!, always.callback_data));
    await waitForCall(
      "the card",
      (c) => isNew(c) && c.method === "editMessageText" && /Always approved by Owner/.test(textOf(c)),
    );
    await waitForCall("the first answer", (c) => isNew(c) && !c.failed && textOf(c).includes("Echo said tapped"));
    const second = telegram.calls().length;
    await post(textUpdate(OWNER, "please echo once more"));
    await waitForCall(
      "the second answer",
      (c) => telegram.calls().indexOf(c) >= second && !c.failed && textOf(c).includes("Echo said tapped"),
    );
    const cards = telegram
      .calls()
      .slice(second)
      .filter((c) => /Approval needed/.test(textOf(c)));
    expect(cards).toEqual([]);
    const rules = await admin<{ rules: { tool: string; effect: string; owner: string | null }[] }>(
      "GET",
      "/v1/approval-rules",
    );
    expect(rules.body.rules).toContainEqual(
      expect.objectContaining({ tool: "echo", effect: "allow", owner: `chat:telegram:${OWNER}` }),
    );
  });

  it("a long answer is split at Telegram's length, each part sent once, in order", async () => {
    const mark = telegram.calls().length;
    await post(textUpdate(OWNER, "long answer please"));
    await waitForCall("the last part", (c) => telegram.calls().indexOf(c) >= mark && textOf(c).includes("line 119"));
    await new Promise((r) => setTimeout(r, 2000));
    const calls = telegram
      .calls()
      .slice(mark)
      .filter((c) => !c.failed && c.method !== "sendChatAction");
    // The last form of each message: the live message's final edit, then the parts sent after it.
    const last = new Map<number, string>();
    for (const c of calls) last.set(c.message_id ?? Number(c.params.message_id), textOf(c));
    const parts = [...last.values()];
    for (const p of parts) expect(p.length).toBeLessThanOrEqual(4096);
    // Whole, in order, nothing twice (the answer's trailing space is trimmed).
    expect(parts.join("\n")).toBe(LONG_ANSWER.trimEnd());
    expect(parts.length).toBe(2);
  });

  it("/device switches only to a device the grant allows; /new starts a fresh conversation", async () => {
    await post(textUpdate(OWNER, "/device pi-2"));
    await waitForCall("the refusal", (c) => toChat(OWNER)(c) && textOf(c) === "You may not use pi-2.");
    await post(textUpdate(OWNER, "/new@edgeloop_bot"));
    await waitForCall("the fresh start", (c) => toChat(OWNER)(c) && textOf(c) === "Started a fresh conversation.");
    const before = llm.requests().length;
    const mark = telegram.calls().length;
    await post(textUpdate(OWNER, "hello fresh"));
    await waitForCall(
      "the answer",
      (c) => telegram.calls().indexOf(c) >= mark && !c.failed && textOf(c) === "Hello back from <b>pi-1</b>.",
    );
    // The model saw only this message: the conversation before /new is not in its view.
    const request = JSON.stringify(llm.requests().slice(before)[0]?.body);
    expect(request).toContain("hello fresh");
    expect(request).not.toContain("hello there");
  });

  it("a question's options become buttons; the press answers it", async () => {
    await post(textUpdate(OWNER, "ask me something"));
    const card = await waitForCall(
      "the question card",
      (c) => c.method === "sendMessage" && textOf(c).includes("Which colour?"),
    );
    const rows = keyboardOf(card);
    expect(rows.map((r) => r[0]!.text)).toEqual(["red", "blue"]);
    await post(pressUpdate(owner, OWNER, card.message_id!, rows[1]![0]!.callback_data));
    await waitForCall("the answer", (c) => textOf(c).includes("You picked blue."));
  });

  it("a 429 from Telegram is retried after its retry_after, and the answer still arrives once", async () => {
    telegram.reset();
    telegram.fail({ method: "sendMessage", times: 1, status: 429, retry_after: 2 });
    await post(textUpdate(OWNER, "hello after a limit"));
    const answer = await waitForCall("the answer", (c) => !c.failed && textOf(c) === "Hello back from <b>pi-1</b>.");
    const [refused, ...accepted] = telegram.callsOf("sendMessage");
    expect(refused!.failed).toBe(true);
    expect(answer.at - refused!.at).toBeGreaterThanOrEqual(1900);
    await new Promise((r) => setTimeout(r, 1500));
    expect(accepted).toHaveLength(1);
  });

  it('a long tool call on the device shows its line and keeps "typing…" up until the answer', async () => {
    agent = await startAgent({ url: worker.url, agentId: "pi-1", token: "t" });
    telegram.reset();
    await post(textUpdate(OWNER, "run slow"));
    const live = await waitForCall(
      "the running line",
      (c) => c.method === "sendMessage" && textOf(c).includes("<code>bash</code> on pi-1 …"),
    );
    await waitForCall(
      "the answer",
      (c) =>
        c.method === "editMessageText" &&
        Number(c.params.message_id) === live.message_id &&
        textOf(c).includes("Slept well."),
      40_000,
    );
    // The call took 7 s and Telegram's indicator lasts 5: it was sent again while the tool ran,
    // with no event from the run in between.
    const renewed = telegram.callsOf("sendChatAction").filter((c) => c.at > live.at + 2000);
    expect(renewed.length).toBeGreaterThanOrEqual(1);
    await agent.stop();
    agent = undefined;
  });

  it("when the live message cannot be edited any more, the answer comes as a new message", async () => {
    telegram.reset();
    telegram.fail({
      method: "editMessageText",
      times: 50,
      status: 400,
      description: "Bad Request: message to edit not found",
    });
    await post(textUpdate(OWNER, "clock please"));
    const answer = await waitForCall(
      "the answer",
      (c) => c.method === "sendMessage" && textOf(c).includes("The clock is fine."),
    );
    expect(textOf(answer)).toContain("<code>get_current_time</code> on pi-1 ✓");
    // First the live message (the tool line alone), then the failed edit, then the answer anew.
    const [live] = telegram.callsOf("sendMessage");
    expect(textOf(live!)).not.toContain("The clock is fine.");
    expect(telegram.callsOf("editMessageText").some((c) => c.failed && textOf(c).includes("The clock is fine."))).toBe(
      true,
    );
    telegram.reset();
  });

  it("a runtime killed mid-reply gives one reply: the live message is edited into the answer", async () => {
    telegram.reset();
    await post(textUpdate(OWNER, "what time is it"));
    const live = await waitForCall(
      "the live message with the tool line",
      (c) => c.method === "sendMessage" && textOf(c).includes("get_current_time"),
    );
    const liveId = live.message_id!;
    // While the tool ran the chat showed "typing…".
    expect(telegram.callsOf("sendChatAction").filter(toChat(OWNER)).length).toBeGreaterThan(0);
    // The model is now streaming its answer slowly: kill the runtime in the middle.
    await new Promise((r) => setTimeout(r, 1500));
    await worker.kill();
    worker = await startLocalWorker({ vars: vars(), persistDir: worker.persistDir, port: worker.port });
    await waitForCall(
      "the answer after the restart",
      (c) =>
        c.method === "editMessageText" &&
        Number(c.params.message_id) === liveId &&
        textOf(c).includes("after a restart"),
      60_000,
    );
    await new Promise((r) => setTimeout(r, 2000));
    const sends = telegram.callsOf("sendMessage").filter(toChat(OWNER));
    expect(sends.map(textOf).filter((t) => t.includes("after a restart"))).toHaveLength(0);
    expect(sends).toHaveLength(1);
  });
});
