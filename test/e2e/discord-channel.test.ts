/**
 * Discord end to end over HTTP interactions: a slash command and a button press shaped as in
 * Discord's documentation, signed with Ed25519 over `timestamp + body` as Discord signs them, to
 * the real worker under plain `wrangler dev`, whose REST calls go to a local stand-in that records
 * them. The command is answered within the request; the reply is the bot's own channel message,
 * posted and then edited.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ScriptedLlm } from "../../scripted-llm/server.js";
import { CLOCK_AND_ECHO, HELLO } from "../fixtures/chat-scripts.js";
import { adminJson, waitForRecorded } from "../helpers/channel-e2e.js";
import type { LocalWorker } from "../helpers/local-worker.js";
import { discordKeyPair } from "../helpers/platform-signers.js";
import { type DiscordStandIn, startDiscordStandIn } from "../helpers/platform-standins/discord.js";
import type { RecordedCall } from "../helpers/platform-standins/recording-server.js";
import { startScriptedStack } from "../helpers/scripted-stack.js";

const BOT_TOKEN = "e2e-discord-bot-token";
const APPLICATION_ID = "1245551121451000001";
const CHANNEL = "645027906669510667";
const OWNER = "53908232506183680"; // paired, and an approver
const MEMBER = "53908232506183681"; // paired, may not approve
const RULES = [...CLOCK_AND_ECHO, HELLO];

const fixture = (name: string) =>
  JSON.parse(readFileSync(new URL(`../fixtures/channels/${name}`, import.meta.url), "utf8")) as Record<string, unknown>;
const COMMAND = fixture("discord-command.json");
const COMPONENT = fixture("discord-component.json");
const keys = discordKeyPair();

let llm: ScriptedLlm;
let discord: DiscordStandIn;
let worker: LocalWorker;
let n = 0;

beforeAll(async () => {
  discord = await startDiscordStandIn(BOT_TOKEN);
  ({ llm, worker } = await startScriptedStack({
    rules: RULES,
    devices: { "pi-1": "t" },
    vars: {
      TOOL_POLICIES: "echo:requires_approval",
      DISCORD_PUBLIC_KEY: keys.publicKeyHex,
      DISCORD_BOT_TOKEN: BOT_TOKEN,
      DISCORD_APPLICATION_ID: APPLICATION_ID,
      DISCORD_API_BASE_URL: discord.apiBaseUrl,
      CHANNEL_APPROVERS: `discord:${OWNER}`,
    },
  }));
});

afterAll(async () => {
  await worker?.stop();
  await llm?.close();
  await discord?.close();
});

const member = (id: string) => ({ ...(COMMAND.member as object), user: { id, username: `user${id.slice(-2)}` } });

/** `/ask text:…` from `user` in the channel, as the documented command interaction with fresh ids. */
const ask = (user: string, text: string) =>
  JSON.stringify({
    ...COMMAND,
    id: String(786008729715212338n + BigInt(++n)),
    member: member(user),
    channel_id: CHANNEL,
    data: { ...(COMMAND.data as object), options: [{ type: 3, name: "text", value: text }] },
  });

/** A press on a button of the bot's message `messageId`, as the documented component interaction. */
const pressOn = (user: string, messageId: string, customId: string) =>
  JSON.stringify({
    ...COMPONENT,
    id: String(846462639134605312n + BigInt(++n)),
    token: `press-token-${n}`,
    member: member(user),
    channel_id: CHANNEL,
    application_id: APPLICATION_ID,
    message: { ...(COMPONENT.message as object), id: messageId, channel_id: CHANNEL },
    data: { custom_id: customId, component_type: 2 },
  });

/** An interaction delivered the way Discord delivers it: follow-ups count only once it is answered. */
const interact = (body: string) => discord.interact(`${worker.url}/v1/channels/discord`, body, keys.headers(body));

type Component = { type: number; label?: string; custom_id?: string; components?: Component[] };
type MessageBody = { content?: string; components?: Component[] };
const bodyOf = (c: RecordedCall) => (c.body ?? {}) as MessageBody;
const contentOf = (c: RecordedCall) => String(bodyOf(c).content ?? "");
const inChannel = (verb: string) => (c: RecordedCall) =>
  c.method === verb && c.path.startsWith(`/api/v10/channels/${CHANNEL}/messages`);
const idOf = (c: RecordedCall) => String((c.answer as { id: string }).id);
const waitForCall = (what: string, pred: (c: RecordedCall) => boolean) =>
  waitForRecorded(() => discord.calls, what, pred);
/** An ephemeral follow-up (flags 64) Discord took: seen by the interaction's user alone. */
const ephemeral = (c: RecordedCall) =>
  c.method === "POST" &&
  c.path.startsWith(`/api/v10/webhooks/${APPLICATION_ID}/`) &&
  (c.body as { flags?: number } | null)?.flags === 64 &&
  typeof (c.answer as { id?: unknown } | undefined)?.id === "string";

async function pair(user: string): Promise<void> {
  const mark = discord.calls.length;
  await interact(ask(user, "hi"));
  const notice = await waitForCall(
    "the pairing code, to the user alone",
    (c) => discord.calls.indexOf(c) >= mark && ephemeral(c) && /pairing code/.test(contentOf(c)),
  );
  expect(discord.calls.slice(mark).filter((c) => inChannel("POST")(c) && /pairing code/.test(contentOf(c)))).toEqual(
    [],
  );
  const code = contentOf(notice).match(/pairing code is ([A-Z0-9]{4}-[A-Z0-9]{4})/)![1]!;
  expect(
    (await adminJson(worker.url, "POST", `/v1/channels/pairings/${code}/approve`, { agents: ["pi-1"] })).status,
  ).toBe(200);
  await waitForCall("the paired notice", (c) => discord.calls.indexOf(c) >= mark && /^Paired/.test(contentOf(c)));
}

describe("Discord channel", () => {
  it("answers a PING with PONG and refuses a request not signed by the application's key", async () => {
    const ping = JSON.stringify({ type: 1, id: "1", application_id: APPLICATION_ID, token: "t", version: 1 });
    expect(await interact(ping)).toEqual({ status: 200, body: { type: 1 } });
    const forged = await fetch(`${worker.url}/v1/channels/discord`, {
      method: "POST",
      headers: { "content-type": "application/json", ...keys.headers(ping) },
      body: ping.replace('"t"', '"u"'),
    });
    expect(forged.status).toBe(401);
  });

  it("a paired user's /ask is answered at once, then by one bot message edited into the answer", async () => {
    await pair(OWNER);
    await pair(MEMBER);
    const mark = discord.calls.length;
    const answerNow = await interact(ask(OWNER, "clock please"));
    expect(answerNow.body).toMatchObject({ type: 4, data: { content: "> clock please" } });
    const live = await waitForCall(
      "the live message",
      (c) => inChannel("POST")(c) && contentOf(c).includes("get_current_time"),
    );
    await waitForCall(
      "the answer",
      (c) =>
        inChannel("PATCH")(c) &&
        c.path.endsWith(`/${idOf(live)}`) &&
        contentOf(c).includes("The clock on **pi-1** is fine."),
    );
    await new Promise((r) => setTimeout(r, 2000));
    expect(discord.calls.slice(mark).filter(inChannel("POST"))).toHaveLength(1);
  });

  it("an approval card: a non-approver's press is refused, the approver's applies once", async () => {
    await interact(ask(OWNER, "please echo"));
    const card = await waitForCall("the card", (c) => inChannel("POST")(c) && /Approval needed/.test(contentOf(c)));
    const buttons = bodyOf(card).components!.flatMap((row) => row.components ?? []);
    expect(buttons.map((b) => b.label)).toEqual(["Approve", "Always", "Deny"]);
    const approve = buttons[0]!.custom_id!;

    expect((await interact(pressOn(MEMBER, idOf(card), approve))).body).toEqual({ type: 6 });
    await waitForCall("the refusal, to the member alone", (c) => ephemeral(c) && /may not approve/.test(contentOf(c)));
    await interact(pressOn(OWNER, idOf(card), approve));
    await interact(pressOn(OWNER, idOf(card), approve));
    await waitForCall("the second press told", (c) => ephemeral(c) && /^Already decided/.test(contentOf(c)));
    await waitForCall(
      "the card edited in place",
      (c) => inChannel("PATCH")(c) && c.path.endsWith(`/${idOf(card)}`) && /Approved by/.test(contentOf(c)),
    );
    await waitForCall("the answer", (c) => contentOf(c).includes("Echo said tapped"));
    const ran = llm
      .requests()
      .filter((r) => JSON.stringify(r.body).includes('"tapped"') && JSON.stringify(r.body).includes('"role":"tool"'));
    expect(ran).toHaveLength(1);
  });
});
