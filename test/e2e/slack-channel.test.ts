/**
 * Slack end to end: Events API and interactivity bodies shaped as in Slack's documentation, signed
 * with the signing secret exactly as Slack signs them, to the real worker under plain `wrangler dev`,
 * whose Web API calls go to a local stand-in that records them. One wrangler, the scripted model,
 * built-in tools for most runs, and a real device agent for a tool's picture.
 */
import { Buffer } from "node:buffer";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ScriptedLlm, startScriptedLlm } from "../../scripted-llm/server.js";
import { SLACK_CHAT_RULES as RULES } from "../fixtures/chat-scripts.js";
import { adminJson, waitForRecorded } from "../helpers/channel-e2e.js";
import { startAgent } from "../helpers/device-agent.js";
import { type LocalWorker, startLocalWorker } from "../helpers/local-worker.js";
import { slackHeaders } from "../helpers/platform-signers.js";
import { ONE_PIXEL_PNG, type RecordedCall, type StandIn } from "../helpers/platform-standins/recording-server.js";
import { slackRateLimited, startSlackStandIn } from "../helpers/platform-standins/slack.js";
import { scriptedVars } from "../helpers/scripted-stack.js";
import { slackPayloads } from "../helpers/slack-payloads.js";
import { tempDir } from "../helpers/temp-dir.js";

const SIGNING_SECRET = "e2e-slack-signing-secret";
const BOT_TOKEN = "xoxb-e2e-bot-token";
const BOT_USER = "U0EDGELOOP";
const OWNER = "U0OWNER01"; // paired, and an approver
const MEMBER = "U0MEMBER1"; // paired, may talk but not approve
const STRANGER = "U0STRANGE"; // never paired
const TEAM_CHANNEL = "C0TEAM001";
const ALERTS_CHANNEL = "C0ALERTS1"; // where the named hook's replies go
const HOOK_SECRET = "e2e-alerts-hook-secret";

let llm: ScriptedLlm;
let slack: StandIn & { apiBaseUrl: string };
let worker: LocalWorker;

const vars = () =>
  scriptedVars(
    llm,
    { "pi-1": "t" },
    {
      TOOL_POLICIES: "echo:requires_approval",
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_BOT_TOKEN: BOT_TOKEN,
      SLACK_API_BASE_URL: slack.apiBaseUrl,
      CHANNEL_APPROVERS: `slack:${OWNER}`,
      HOOKS: JSON.stringify({
        alerts: {
          verify: "token",
          agent: "pi-1",
          template: "Alert {{title}} on {{host}}",
          reply: { platform: "slack", chat: ALERTS_CHANNEL },
        },
      }),
      HOOK_SECRETS: `alerts:${HOOK_SECRET}`,
    },
  );

beforeAll(async () => {
  llm = await startScriptedLlm({ port: 0, rules: RULES });
  slack = await startSlackStandIn(BOT_TOKEN);
  worker = await startLocalWorker({ vars: vars() });
});

afterAll(async () => {
  await worker?.stop();
  await llm?.close();
  await slack?.close();
});

const slackBody = slackPayloads(BOT_USER);
const directMessage = slackBody.directMessage;
const mention = (user: string, text: string) => slackBody.mention(TEAM_CHANNEL, user, text);

/** POST a body to the worker's Slack request URL, signed as Slack signs (or not). */
async function deliver(body: string, contentType: string, extra: Record<string, string> = {}, signed = true) {
  const res = await fetch(`${worker.url}/v1/channels/slack`, {
    method: "POST",
    headers: { "content-type": contentType, ...(signed ? slackHeaders(SIGNING_SECRET, body) : {}), ...extra },
    body,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}
const postEvent = (body: unknown, extra?: Record<string, string>) =>
  deliver(JSON.stringify(body), "application/json", extra);

/** A Block Kit button press, form-encoded and signed, as Slack posts it. */
const press = (user: string, card: { channel: string; ts: string; threadTs?: string }, value: string) =>
  deliver(slackBody.press(user, card, value), "application/x-www-form-urlencoded");

type SlackBody = {
  channel?: string;
  thread_ts?: string;
  ts?: string;
  text?: string;
  user?: string;
  blocks?: unknown[];
};
const bodyOf = (c: RecordedCall) => (c.body ?? {}) as SlackBody;
const method = (c: RecordedCall) => c.path.replace(/^\/api\//, "");
const textOf = (c: RecordedCall) => String(bodyOf(c).text ?? "");
const waitForCall = (what: string, pred: (c: RecordedCall) => boolean, timeoutMs?: number) =>
  waitForRecorded(() => slack.calls, what, pred, timeoutMs);
/** How many runs started on `text`: each run's first model request has no tool result in it yet. */
const runsOn = (text: string) =>
  llm
    .requests()
    .filter((r) => JSON.stringify(r.body).includes(text) && !JSON.stringify(r.body).includes('"role":"tool"')).length;

/** Pair a Slack user the way an admin does: the user writes, gets a code, the code is approved. */
async function pair(user: string): Promise<void> {
  await postEvent(directMessage(user, "hi"));
  const notice = await waitForCall(
    `${user}'s pairing code`,
    (c) =>
      method(c) === "chat.postMessage" && bodyOf(c).channel === `D${user.slice(1)}` && /pairing code/.test(textOf(c)),
  );
  const code = textOf(notice).match(/pairing code is ([A-Z0-9]{4}-[A-Z0-9]{4})/)![1]!;
  const approved = await adminJson(worker.url, "POST", `/v1/channels/pairings/${code}/approve`, { agents: ["pi-1"] });
  expect(approved.status).toBe(200);
}

describe("Slack channel", () => {
  it("answers url_verification with its challenge, and refuses an unsigned request", async () => {
    const challenge = "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P";
    const body = { token: "Jhj5dZrVaK7ZwHHjRyZWjbDl", challenge, type: "url_verification" };
    expect(await postEvent(body)).toEqual({ status: 200, body: { challenge } });
    const unsigned = await deliver(JSON.stringify(body), "application/json", {}, false);
    expect(unsigned.status).toBe(401);
    const stale = await deliver(JSON.stringify(body), "application/json", {
      ...slackHeaders(SIGNING_SECRET, JSON.stringify(body), Math.floor(Date.now() / 1000) - 600),
    });
    expect(stale.status).toBe(401);
  });

  it("an unknown user gets a pairing code and reaches no device", async () => {
    const before = llm.requests().length;
    expect((await postEvent(directMessage(STRANGER, "run rm -rf on pi-1"))).status).toBe(200);
    await waitForCall("the pairing code", (c) => method(c) === "chat.postMessage" && /pairing code/.test(textOf(c)));
    await postEvent(directMessage(STRANGER, "and again"));
    await new Promise((r) => setTimeout(r, 1500));
    expect(llm.requests().length).toBe(before);
    expect(slack.calls.filter((c) => /pairing code/.test(textOf(c)))).toHaveLength(1);
    const status = await adminJson<{ pairings: { user_id: string }[] }>(worker.url, "GET", "/v1/channels");
    expect(status.body.pairings).toContainEqual(expect.objectContaining({ user_id: STRANGER }));
  });

  it("a paired user's mention gets one reply in its thread, edited as it grows; Slack's retry starts no second run", async () => {
    await pair(OWNER);
    await pair(MEMBER);
    const mark = slack.calls.length;
    const event = mention(OWNER, "clock please");
    const threadTs = event.event.ts;
    expect((await postEvent(event)).body).toMatchObject({ ok: true, taken: 1 });
    // Slack did not see the 200 in time and delivers the same event again.
    const retry = await postEvent(event, { "x-slack-retry-num": "1", "x-slack-retry-reason": "http_timeout" });
    expect(retry).toEqual({ status: 200, body: { ok: true, taken: 0, repeated: 1 } });
    const answer = await waitForCall(
      "the answer",
      (c) => method(c) === "chat.update" && textOf(c).includes("The clock on *pi-1* is fine."),
    );
    const posted = slack.calls.slice(mark).filter((c) => method(c) === "chat.postMessage" && c !== answer);
    const live = posted.filter((c) => bodyOf(c).thread_ts === threadTs);
    // One message in the thread: posted with the tool's line, then edited into the answer.
    expect(live).toHaveLength(1);
    expect(textOf(live[0]!)).toContain("get_current_time");
    expect(bodyOf(answer).ts).toBe((live[0]!.answer as { ts: string }).ts);
    expect(bodyOf(answer).channel).toBe(TEAM_CHANNEL);
    await new Promise((r) => setTimeout(r, 2000));
    expect(runsOn("clock please")).toBe(1);
    expect(
      slack.calls.slice(mark).filter((c) => bodyOf(c).thread_ts === threadTs && method(c) === "chat.postMessage"),
    ).toHaveLength(1);
  });

  it("an approval card: a non-approver's press is refused, the approver's applies once, a second press is answered", async () => {
    const event = mention(OWNER, "please echo");
    const threadTs = event.event.ts;
    await postEvent(event);
    const card = await waitForCall(
      "the approval card",
      (c) => method(c) === "chat.postMessage" && bodyOf(c).thread_ts === threadTs && /Approval needed/.test(textOf(c)),
    );
    const cardTs = String((card.answer as { ts: string }).ts);
    const actions = (
      bodyOf(card).blocks as { type: string; elements?: { text: { text: string }; value: string }[] }[]
    ).find((b) => b.type === "actions")!.elements!;
    expect(actions.map((b) => b.text.text)).toEqual(["Approve", "Always", "Deny"]);
    const approve = actions[0]!.value;
    const where = { channel: TEAM_CHANNEL, ts: cardTs, threadTs };

    expect((await press(MEMBER, where, approve)).status).toBe(200);
    await waitForCall(
      "the member's refusal, to the member alone",
      (c) => method(c) === "chat.postEphemeral" && bodyOf(c).user === MEMBER && /may not approve/.test(textOf(c)),
    );
    const audit = await adminJson<{ audit: { user_id: string; action: string }[] }>(worker.url, "GET", "/v1/channels");
    expect(audit.body.audit[0]).toMatchObject({ user_id: MEMBER, action: "approve refused" });

    await press(OWNER, where, approve);
    await press(OWNER, where, approve);
    const edited = await waitForCall(
      "the card edited in place",
      (c) => method(c) === "chat.update" && bodyOf(c).ts === cardTs && /Approved by/.test(textOf(c)),
    );
    expect((bodyOf(edited).blocks ?? []).some((b) => (b as { type: string }).type === "actions")).toBe(false);
    await waitForCall("the answer after approval", (c) => textOf(c).includes("Echo said tapped"));
    await waitForCall(
      "the second press answered",
      (c) => method(c) === "chat.postEphemeral" && bodyOf(c).user === OWNER && /Already decided/.test(textOf(c)),
    );
    const sawResult = llm
      .requests()
      .filter((r) => JSON.stringify(r.body).includes('"tapped"') && JSON.stringify(r.body).includes('"role":"tool"'));
    expect(sawResult).toHaveLength(1);
  });

  it("a picture shared in a direct message is fetched with the bot token and reaches the model", async () => {
    const event = slackBody.fileShare(OWNER, "what is in this slack picture?", {
      id: "F0PICTURE",
      name: "pixel.png",
      mimetype: "image/png",
      filetype: "png",
      url_private: `${slack.origin}/files/T123ABC456-F0PICTURE/pixel.png`,
      url_private_download: `${slack.origin}/files/T123ABC456-F0PICTURE/download/pixel.png`,
    });
    await postEvent(event);
    await waitForCall(
      "the answer",
      (c) => bodyOf(c).channel === `D${OWNER.slice(1)}` && textOf(c) === "Hello from pi-1.",
    );
    const download = slack.calls.find((c) => c.path === "/files/T123ABC456-F0PICTURE/download/pixel.png")!;
    expect(download.headers.authorization).toBe(`Bearer ${BOT_TOKEN}`);
    const request = llm.requests().find((r) => JSON.stringify(r.body).includes("what is in this slack picture"))!;
    const user = (request.body as { messages: { role: string; content: unknown }[] }).messages.at(-1)!;
    expect(user.content).toEqual([
      { type: "text", text: "what is in this slack picture?" },
      { type: "image_url", image_url: { url: `data:image/png;base64,${ONE_PIXEL_PNG.toString("base64")}` } },
    ]);
  });

  it("a real PNG from a device's image tool is uploaded to the chat as a file, its bytes unchanged", async () => {
    const workspace = tempDir("edgeloop-slack-pictures-ws-");
    await sharp({ create: { width: 200, height: 120, channels: 3, background: "#208040" } })
      .png()
      .toFile(join(workspace, "shot.png"));
    const agent = await startAgent({ url: worker.url, agentId: "pi-1", token: "t", workspace });
    try {
      const mark = slack.calls.length;
      await postEvent(directMessage(OWNER, "show me the screen"));
      const done = await waitForCall(
        "the photo's upload completed",
        (c) => method(c) === "files.completeUploadExternal",
        40_000,
      );
      expect(done.body).toMatchObject({
        channel_id: `D${OWNER.slice(1)}`,
        initial_comment: "🖼 image on pi-1",
        files: [{ id: "F0TEST" }],
      });
      const upload = slack.calls.slice(mark).find((c) => c.path === "/upload/F0TEST")!;
      expect(Buffer.compare(upload.body as Buffer, readFileSync(join(workspace, "shot.png")))).toBe(0);
      await waitForCall("the answer", (c) => textOf(c).includes("That is the screen."));
    } finally {
      await agent.stop();
    }
  });

  it("an approver lets a waiting device in with /approve CODE; a non-approver's try is refused", async () => {
    const open = await fetch(`${worker.url}/v1/pairing`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ agent_id: "pi-9", label: "kitchen pi" }),
    });
    expect(open.status).toBe(201);
    const { code } = (await open.json()) as { code: string };
    const pending = async () =>
      (await adminJson<{ pending: { code: string }[] }>(worker.url, "GET", "/v1/pairing")).body.pending.map(
        (p) => p.code,
      );

    await postEvent(directMessage(MEMBER, `/approve ${code}`));
    await waitForCall(
      "the member's refusal",
      (c) => bodyOf(c).channel === `D${MEMBER.slice(1)}` && /may not approve device pairings/.test(textOf(c)),
    );
    expect(await pending()).toContain(code);

    await postEvent(directMessage(OWNER, `/approve ${code.toLowerCase()}`));
    await waitForCall(
      "the approval",
      (c) => bodyOf(c).channel === `D${OWNER.slice(1)}` && textOf(c).includes("Approved: pi-9 may connect now"),
    );
    expect(await pending()).not.toContain(code);
  });

  it("a named hook's run is announced in its reply channel and its reply posted there, once", async () => {
    const body = JSON.stringify({ title: "disk full", host: "nas-1" });
    const fire = () =>
      fetch(`${worker.url}/v1/hooks/alerts`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${HOOK_SECRET}` },
        body,
      });
    expect((await fire()).status).toBe(202);
    const toAlerts = (c: RecordedCall) => method(c) === "chat.postMessage" && bodyOf(c).channel === ALERTS_CHANNEL;
    await waitForCall("the announcement", (c) => toAlerts(c) && textOf(c).includes("alerts: Alert disk full on nas-1"));
    await waitForCall("the reply", (c) => toAlerts(c) && textOf(c).includes("Hello from pi-1."));
    // The service delivers the same notification again: answered from the store, nothing posted anew.
    const again = await fire();
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    await new Promise((r) => setTimeout(r, 1500));
    expect(slack.calls.filter(toAlerts)).toHaveLength(2);
    expect(runsOn("Alert disk full")).toBe(1);
  });

  it("a question's options become buttons, and the asker's press answers it", async () => {
    const event = mention(OWNER, "ask me something");
    const threadTs = event.event.ts;
    await postEvent(event);
    const card = await waitForCall(
      "the question card",
      (c) =>
        method(c) === "chat.postMessage" && bodyOf(c).thread_ts === threadTs && textOf(c).includes("Which colour?"),
    );
    const buttons = (bodyOf(card).blocks as { type: string; elements?: { text: { text: string }; value: string }[] }[])
      .filter((b) => b.type === "actions")
      .flatMap((b) => b.elements!);
    expect(buttons.map((b) => b.text.text)).toEqual(["red", "blue"]);
    const where = { channel: TEAM_CHANNEL, ts: (card.answer as { ts: string }).ts, threadTs };
    await press(OWNER, where, buttons[1]!.value);
    const answer = await waitForCall("the answer", (c) => textOf(c).includes("You picked blue."));
    expect(bodyOf(answer).channel).toBe(TEAM_CHANNEL);
  });

  it("a 429 from Slack is retried after its Retry-After, and the answer still arrives once", async () => {
    slack.failNext("chat.postMessage", slackRateLimited(2));
    const event = mention(OWNER, "hello after a limit");
    const threadTs = event.event.ts;
    const sent = Date.now();
    await postEvent(event);
    await waitForCall(
      "the answer, accepted",
      (c) => bodyOf(c).thread_ts === threadTs && textOf(c) === "Hello from pi-1." && (c.answer as { ok: boolean }).ok,
    );
    expect(Date.now() - sent).toBeGreaterThanOrEqual(1900);
    await new Promise((r) => setTimeout(r, 1500));
    const inThread = slack.calls.filter((c) => method(c) === "chat.postMessage" && bodyOf(c).thread_ts === threadTs);
    // The refused call and the one that went through: the same message, sent once.
    expect(inThread.map((c) => (c.answer as { ok: boolean }).ok)).toEqual([false, true]);
  });

  it("a runtime killed mid-reply gives one reply: the live message in the thread is edited into the answer", async () => {
    const event = mention(OWNER, "what time is it");
    const threadTs = event.event.ts;
    await postEvent(event);
    const inThread = (c: RecordedCall) => bodyOf(c).thread_ts === threadTs && method(c) === "chat.postMessage";
    const live = await waitForCall("the live message", (c) => inThread(c) && textOf(c).includes("get_current_time"));
    const liveTs = (live.answer as { ts: string }).ts;
    // The model is streaming its answer slowly: kill the runtime in the middle of it.
    await new Promise((r) => setTimeout(r, 1500));
    await worker.kill();
    worker = await startLocalWorker({ vars: vars(), persistDir: worker.persistDir, port: worker.port });
    await waitForCall(
      "the answer after the restart",
      (c) => method(c) === "chat.update" && bodyOf(c).ts === liveTs && textOf(c).includes("after a restart"),
      60_000,
    );
    await new Promise((r) => setTimeout(r, 2000));
    expect(slack.calls.filter(inThread)).toHaveLength(1);
  });
});
