/**
 * Pictures in a Telegram chat, both ways, the way users run it: plain `wrangler dev`, the Bot API
 * stand-in (getFile and its file download for a user's photo, sendPhoto as multipart for a tool's
 * picture), the scripted model recording its requests in the OpenAI-compatible format, and a real
 * device agent whose bundled `image` tool reads a real PNG from its workspace.
 */
import { Buffer } from "node:buffer";
import { createHash, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ScriptRuleInput } from "../../scripted-llm/script.js";
import { type ScriptedLlm, startScriptedLlm } from "../../scripted-llm/server.js";
import { adminJson } from "../helpers/channel-e2e.js";
import { type AgentProcess, BUNDLED_SKILLS, startAgent } from "../helpers/device-agent.js";
import { type LocalWorker, startLocalWorker } from "../helpers/local-worker.js";
import { scriptedVars } from "../helpers/scripted-stack.js";
import { photoUpdate, postUpdate, textOf, textUpdate, waitForBotCall } from "../helpers/telegram-chat.js";
import { type BotApiCall, startTelegramStandin, type TelegramStandin } from "../helpers/telegram-standin.js";
import { tempDir } from "../helpers/temp-dir.js";

type Json = Record<string, unknown>;
const BOT_TOKEN = "654321:pictures-e2e-token";
const SECRET = "e2e-telegram-pictures-secret";
const OWNER = 4444444;
/** Small, so a noisy photo is over it without a large upload. */
const MESSAGE_IMAGES_MAX_BYTES = 200_000;

const RULES: ScriptRuleInput[] = [
  { match: "^what is in this photo", turns: [{ content: "A pink square." }] },
  { match: "^\\(a picture, no caption\\)", turns: [{ content: "Nice picture." }] },
  {
    match: "^show me the screen",
    turns: [{ tool_calls: [{ name: "image", arguments: { path: "shot.png" } }] }, { content: "That is the screen." }],
  },
];

let llm: ScriptedLlm;
let telegram: TelegramStandin;
let worker: LocalWorker;
let agent: AgentProcess;
let workspace: string;

const vars = () =>
  scriptedVars(
    llm,
    { "pi-1": "t" },
    {
      TELEGRAM_BOT_TOKEN: BOT_TOKEN,
      TELEGRAM_WEBHOOK_SECRET: SECRET,
      TELEGRAM_API_BASE_URL: telegram.url,
      MESSAGE_IMAGES_MAX_BYTES: String(MESSAGE_IMAGES_MAX_BYTES),
    },
  );

beforeAll(async () => {
  llm = await startScriptedLlm({ port: 0, rules: RULES });
  telegram = await startTelegramStandin(BOT_TOKEN);
  workspace = tempDir("edgeloop-tg-pictures-ws-");
  // Within the device's fitting limits, so the tool sends it as it is.
  await sharp({ create: { width: 320, height: 200, channels: 3, background: "#2050a0" } })
    .png()
    .toFile(join(workspace, "shot.png"));
  worker = await startLocalWorker({ vars: vars() });
  agent = await startAgent({ url: worker.url, agentId: "pi-1", token: "t", workspace, skills: BUNDLED_SKILLS });
  const grant = { platform: "telegram", subject: `user:${OWNER}`, agents: ["pi-1"] };
  expect((await adminJson(worker.url, "POST", "/v1/channels/grants", grant)).status).toBe(201);
});

afterAll(async () => {
  await agent?.stop();
  await worker?.stop();
  await llm?.close();
  await telegram?.close();
});

const post = (update: unknown) => postUpdate(worker.url, update, SECRET);
const waitForCall = (what: string, pred: (c: BotApiCall) => boolean, timeoutMs?: number) =>
  waitForBotCall(telegram, what, pred, timeoutMs);
const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
const requestsWith = (words: string) => llm.requests().filter((r) => JSON.stringify(r.body).includes(words));
/** The last user message of the model's last request that mentions `words`. */
const lastUserMessage = (words: string) =>
  (requestsWith(words).at(-1)!.body as { messages: Json[] }).messages.filter((m) => m.role === "user").at(-1)!;
const photoOf = (c: BotApiCall) => c.params.photo as { sha256: string; content_type: string; file_bytes: number };

describe("pictures in a Telegram chat", () => {
  it("a user's photo with a caption reaches the model as an image part, fetched once; a retry starts no second run", async () => {
    const jpeg = await sharp({ create: { width: 320, height: 213, channels: 3, background: "#e070a0" } })
      .jpeg()
      .toBuffer();
    telegram.putFile("thumb-1", new Uint8Array(1093));
    telegram.putFile("full-1", jpeg);
    const update = photoUpdate(OWNER, { thumb: "thumb-1", full: "full-1" }, "what is in this photo?");
    expect((await post(update)).body).toMatchObject({ ok: true, taken: 1 });
    expect((await post(update)).body).toMatchObject({ taken: 0, repeated: 1 });
    await waitForCall("the answer", (c) => textOf(c) === "A pink square.");

    // The largest size Telegram offered, by getFile and its file path.
    expect(telegram.callsOf("getFile").map((c) => c.params.file_id)).toEqual(["full-1"]);
    expect(lastUserMessage("what is in this photo").content).toEqual([
      { type: "text", text: "what is in this photo?" },
      { type: "image_url", image_url: { url: `data:image/jpeg;base64,${jpeg.toString("base64")}` } },
    ]);
    await new Promise((r) => setTimeout(r, 1500));
    expect(requestsWith("what is in this photo")).toHaveLength(1);
  });

  it("a photo without a caption reaches the model too, with a line saying it has none", async () => {
    const png = await sharp({ create: { width: 64, height: 64, channels: 3, background: "#10c040" } })
      .png()
      .toBuffer();
    telegram.putFile("full-2", png);
    await post(photoUpdate(OWNER, { thumb: "full-2", full: "full-2" }));
    await waitForCall("the answer", (c) => textOf(c) === "Nice picture.");
    // Telegram calls every photo a JPEG; the model is told what it is.
    expect(lastUserMessage("(a picture, no caption)").content).toEqual([
      { type: "text", text: "(a picture, no caption)" },
      { type: "image_url", image_url: { url: `data:image/png;base64,${png.toString("base64")}` } },
    ]);
  });

  it("a photo over the deployment's cap gets a reply saying so and reaches no model", async () => {
    // Random pixels: JPEG cannot shrink them, so the photo is surely over the cap.
    const big = await sharp(randomBytes(400 * 400 * 3), { raw: { width: 400, height: 400, channels: 3 } })
      .jpeg({ quality: 100 })
      .toBuffer();
    expect(big.length).toBeGreaterThan(MESSAGE_IMAGES_MAX_BYTES);
    telegram.putFile("full-3", big);
    const before = llm.requests().length;
    await post(photoUpdate(OWNER, { thumb: "full-3", full: "full-3" }, "what is in this photo, large?"));
    const refusal = await waitForCall("the refusal", (c) => textOf(c).startsWith("Not sent: the picture is"));
    expect(textOf(refusal)).toContain("at most 0.2 MB of pictures in one message");
    await new Promise((r) => setTimeout(r, 1500));
    expect(llm.requests().length).toBe(before);
  });

  it("a real PNG from the device's image tool arrives as a sendPhoto with the same bytes, and the answer after it", async () => {
    telegram.reset();
    await post(textUpdate(OWNER, "show me the screen"));
    const photo = await waitForCall("the photo", (c) => c.method === "sendPhoto" && !c.failed, 40_000);
    expect(String(photo.params.chat_id)).toBe(String(OWNER));
    expect(photo.params.caption).toBe("🖼 image on pi-1");
    // The tool sends a picture within the limits as it is: the file's own bytes are the photo's.
    const file = readFileSync(join(workspace, "shot.png"));
    expect(photoOf(photo)).toMatchObject({ sha256: sha256(file), content_type: "image/png", file_bytes: file.length });
    await waitForCall("the answer", (c) => textOf(c).includes("That is the screen."));
    // And it is the picture the model was shown, after the tool result as Chat Completions takes images.
    const parts = lastUserMessage("show me the screen").content as Json[];
    const url = String((parts[1]!.image_url as { url: string }).url);
    expect(sha256(Buffer.from(url.replace(/^data:image\/png;base64,/, ""), "base64"))).toBe(sha256(file));
    await new Promise((r) => setTimeout(r, 1500));
    expect(telegram.callsOf("sendPhoto")).toHaveLength(1);
  });

  it("a photo refused with 429 waits for retry_after and goes once, across a runtime restart", async () => {
    telegram.reset();
    telegram.fail({ method: "sendPhoto", times: 1, status: 429, retry_after: 6 });
    await post(textUpdate(OWNER, "show me the screen again"));
    const refused = await waitForCall("the refused photo", (c) => c.method === "sendPhoto", 40_000);
    expect(refused.failed).toBe(true);
    // Once the outbox has noted the wait, the runtime dies; the row, with its wait, outlives it.
    await new Promise((r) => setTimeout(r, 1000));
    await worker.kill();
    worker = await startLocalWorker({ vars: vars(), persistDir: worker.persistDir, port: worker.port });
    const sent = await waitForCall("the photo again", (c) => c.method === "sendPhoto" && !c.failed, 60_000);
    expect(sent.at - refused.at).toBeGreaterThanOrEqual(5900);
    expect(photoOf(sent).sha256).toBe(photoOf(refused).sha256);
    await waitForCall("the answer", (c) => textOf(c).includes("That is the screen."), 60_000);
    await new Promise((r) => setTimeout(r, 2000));
    expect(telegram.callsOf("sendPhoto").filter((c) => !c.failed)).toHaveLength(1);
  });
});
