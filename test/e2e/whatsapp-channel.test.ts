/**
 * WhatsApp end to end: Cloud API webhooks shaped as in Meta's documentation, signed with the app
 * secret as Meta signs them (`X-Hub-Signature-256`), to the real worker under plain `wrangler dev`,
 * whose Graph API calls go to a local stand-in that records them. WhatsApp cannot edit a message,
 * so what this proves beyond Slack and Telegram is that a reply is sent once, complete, with no
 * live message before it, and that a decided card is followed by a new message.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ScriptedLlm } from "../../scripted-llm/server.js";
import { CLOCK_AND_ECHO, HELLO } from "../fixtures/chat-scripts.js";
import { adminJson, waitForRecorded } from "../helpers/channel-e2e.js";
import type { LocalWorker } from "../helpers/local-worker.js";
import { hubSignature256 } from "../helpers/platform-signers.js";
import type { RecordedCall, StandIn } from "../helpers/platform-standins/recording-server.js";
import { startWhatsAppStandIn } from "../helpers/platform-standins/whatsapp.js";
import { startScriptedStack } from "../helpers/scripted-stack.js";

const APP_SECRET = "e2e-meta-app-secret";
const ACCESS_TOKEN = "EAAJB-e2e-token";
const PHONE_ID = "106540352242922";
const VERIFY_TOKEN = "e2e-verify-token";
const OWNER = "16505550001"; // paired, and an approver
const MEMBER = "16505550002"; // paired, may not approve
const RULES = [...CLOCK_AND_ECHO, HELLO];

const fixture = (name: string) => readFileSync(new URL(`../fixtures/channels/${name}`, import.meta.url), "utf8");
const TEXT = fixture("whatsapp-text.json");
const BUTTON = fixture("whatsapp-button-reply.json");

let llm: ScriptedLlm;
let meta: StandIn & { apiBaseUrl: string };
let worker: LocalWorker;
let n = 0;

beforeAll(async () => {
  meta = await startWhatsAppStandIn(ACCESS_TOKEN);
  ({ llm, worker } = await startScriptedStack({
    rules: RULES,
    devices: { "pi-1": "t" },
    vars: {
      TOOL_POLICIES: "echo:requires_approval",
      WHATSAPP_APP_SECRET: APP_SECRET,
      WHATSAPP_VERIFY_TOKEN: VERIFY_TOKEN,
      WHATSAPP_ACCESS_TOKEN: ACCESS_TOKEN,
      WHATSAPP_PHONE_NUMBER_ID: PHONE_ID,
      WHATSAPP_API_BASE_URL: meta.apiBaseUrl,
      CHANNEL_APPROVERS: `whatsapp:${OWNER}`,
    },
  }));
});

afterAll(async () => {
  await worker?.stop();
  await llm?.close();
  await meta?.close();
});

/** The documented text message from `from`, with a fresh wamid. */
const textFrom = (from: string, text: string) =>
  TEXT.replaceAll("16505551234", from)
    .replace(/wamid\.[A-Za-z0-9=]+/, `wamid.E2E${++n}`)
    .replace("Does it come in another color?", text);

/** The documented reply-button press from `from` on the message `cardId`, carrying the button id edgeloop sent. */
const pressFrom = (from: string, cardId: string, id: string) =>
  BUTTON.replaceAll("16505551234", from)
    .replace("wamid.HBgLMTY1MDM4Nzk0MzkVAgARGBI3NjNFN0U5QzMzMDA0Q0I1M0IA", cardId)
    .replace(/"id": "wamid\.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQUFERjg0NDEzNDdFODU3MUMxMAA="/, `"id": "wamid.E2E${++n}"`)
    .replace('"id": "change-button"', `"id": ${JSON.stringify(id)}`);

async function deliver(body: string) {
  const res = await fetch(`${worker.url}/v1/channels/whatsapp`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-hub-signature-256": hubSignature256(APP_SECRET, body) },
    body,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

type Outbound = { to?: string; type?: string; text?: { body: string }; interactive?: Interactive };
type Interactive = { body: { text: string }; action: { buttons?: { reply: { id: string; title: string } }[] } };
const outbound = (c: RecordedCall) => (c.body ?? {}) as Outbound;
const isMessage = (c: RecordedCall) => c.method === "POST" && /\/messages$/.test(c.path);
const textOf = (c: RecordedCall) => outbound(c).text?.body ?? outbound(c).interactive?.body.text ?? "";
const toOwner = (c: RecordedCall) => isMessage(c) && outbound(c).to === OWNER;
const toMember = (c: RecordedCall) => isMessage(c) && outbound(c).to === MEMBER;
/** A text sent in reply to the message `id` (WhatsApp's `context`). */
const replyTo = (id: string) => (c: RecordedCall) =>
  (c.body as { context?: { message_id?: string } } | null)?.context?.message_id === id;
const idOf = (c: RecordedCall) => String((c.answer as { messages: { id: string }[] }).messages[0]!.id);
const waitForCall = (what: string, pred: (c: RecordedCall) => boolean) => waitForRecorded(() => meta.calls, what, pred);

describe("WhatsApp channel", () => {
  it("answers Meta's verify handshake with the challenge as plain text", async () => {
    const url = `${worker.url}/v1/channels/whatsapp?hub.mode=subscribe&hub.challenge=1158201444`;
    const ok = await fetch(`${url}&hub.verify_token=${VERIFY_TOKEN}`);
    expect(ok.status).toBe(200);
    expect(ok.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(await ok.text()).toBe("1158201444");
    expect((await fetch(`${url}&hub.verify_token=guess`)).status).toBe(403);
  });

  it("pairs a new number with a code an admin approves", async () => {
    for (const [who, to] of [
      [OWNER, toOwner],
      [MEMBER, toMember],
    ] as const) {
      expect((await deliver(textFrom(who, "hi"))).body).toMatchObject({ ok: true, taken: 1 });
      const notice = await waitForCall("the pairing code", (c) => to(c) && /pairing code/.test(textOf(c)));
      const code = textOf(notice).match(/pairing code is ([A-Z0-9]{4}-[A-Z0-9]{4})/)![1]!;
      const approved = await adminJson(worker.url, "POST", `/v1/channels/pairings/${code}/approve`, {
        agents: ["pi-1"],
      });
      expect(approved.status).toBe(200);
      await waitForCall("the paired notice", (c) => to(c) && /^Paired/.test(textOf(c)));
    }
  });

  it("a reply is sent once, complete, with no live message before it; a redelivery starts nothing", async () => {
    const mark = meta.calls.length;
    const body = textFrom(OWNER, "clock please");
    expect((await deliver(body)).body).toMatchObject({ taken: 1 });
    expect((await deliver(body)).body).toMatchObject({ taken: 0, repeated: 1 });
    const answer = await waitForCall(
      "the answer",
      (c) => toOwner(c) && textOf(c).includes("The clock on *pi-1* is fine."),
    );
    expect(textOf(answer)).toContain("get_current_time");
    await new Promise((r) => setTimeout(r, 2000));
    expect(meta.calls.slice(mark).filter(toOwner)).toHaveLength(1);
  });

  it("an approval card's reply button applies once; the decision follows as a new message", async () => {
    await deliver(textFrom(OWNER, "please echo"));
    const card = await waitForCall("the card", (c) => toOwner(c) && outbound(c).type === "interactive");
    const buttons = outbound(card).interactive!.action.buttons!;
    expect(buttons.map((b) => b.reply.title)).toEqual(["Approve", "Always", "Deny"]);
    await deliver(pressFrom(OWNER, idOf(card), buttons[0]!.reply.id));
    await deliver(pressFrom(OWNER, idOf(card), buttons[0]!.reply.id));
    await waitForCall("the decision", (c) => toOwner(c) && /Approved by/.test(textOf(c)));
    await waitForCall(
      "the second press told, in reply to the card",
      (c) => toOwner(c) && replyTo(idOf(card))(c) && /^Already decided/.test(textOf(c)),
    );
    await waitForCall("the answer", (c) => toOwner(c) && textOf(c).includes("Echo said tapped"));
    const ran = llm
      .requests()
      .filter((r) => JSON.stringify(r.body).includes('"tapped"') && JSON.stringify(r.body).includes('"role":"tool"'));
    expect(ran).toHaveLength(1);
  });

  it("a non-approver's press is answered in their chat, and applies nothing", async () => {
    const mark = meta.calls.length;
    await deliver(textFrom(MEMBER, "please echo"));
    const card = await waitForCall(
      "the member's card",
      (c) => meta.calls.indexOf(c) >= mark && toMember(c) && outbound(c).type === "interactive",
    );
    const approve = outbound(card).interactive!.action.buttons![0]!.reply.id;
    await deliver(pressFrom(MEMBER, idOf(card), approve));
    await waitForCall(
      "the refusal, in reply to the card",
      (c) => toMember(c) && replyTo(idOf(card))(c) && textOf(c) === "You may not approve tool calls here.",
    );
    expect(meta.calls.slice(mark).filter((c) => toMember(c) && /Approved by/.test(textOf(c)))).toEqual([]);
  });

  it("marks a granted user's message read with the typing indicator when it starts a run", async () => {
    const body = textFrom(OWNER, "clock please");
    const wamid = (JSON.parse(body) as { entry: { changes: { value: { messages: { id: string }[] } }[] }[] }).entry[0]!
      .changes[0]!.value.messages[0]!.id;
    await deliver(body);
    const read = await waitForCall(
      "the typing indicator",
      (c) => isMessage(c) && (c.body as { message_id?: string } | null)?.message_id === wamid,
    );
    expect(read.body).toEqual({
      messaging_product: "whatsapp",
      status: "read",
      message_id: wamid,
      typing_indicator: { type: "text" },
    });
    expect(read.answer).toEqual({ success: true });
  });
});
