/**
 * Images end to end, the way users run it: plain `wrangler dev`, a real device agent whose bundled
 * `image` tool fits a real PNG from its workspace, the reference MCP server's `get-tiny-image` on
 * the same device, and the scripted model recording every request, once in the OpenAI-compatible
 * format and once in Anthropic's. The model gets the picture where its API expects it, within the
 * limits; people fetch it at the conversation's image route; images sent with a message reach the
 * model the same way; an image beyond IMAGES_IN_CONTEXT becomes a placeholder naming its call; the
 * CLI saves a conversation's images to files and the dashboard's timeline shows thumbnails.
 */
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { storedEvents, type TimedEvent } from "../../bench/lib/conversation-events.js";
import { imageSize } from "../../durable-objects/conversation/core/image-size.js";
import type { ScriptRuleInput } from "../../scripted-llm/script.js";
import { type ScriptedLlm, startScriptedLlm } from "../../scripted-llm/server.js";
import { sendMessage } from "../helpers/api.js";
import { asClient, runCli } from "../helpers/cli.js";
import { dashboardPage, launchChromium, logIn } from "../helpers/dashboard-browser.js";
import { BUNDLED_SKILLS, startAgent } from "../helpers/device-agent.js";
import { API_TOKEN, type LocalWorker, startLocalWorker } from "../helpers/local-worker.js";
import { everythingSkill } from "../helpers/mcp.js";
import { scriptedVars } from "../helpers/scripted-stack.js";
import { tempDir } from "../helpers/temp-dir.js";

type Json = Record<string, unknown>;
type Ref = { sha256: string; url: string; width: number; height: number; media_type: string };

const RULES: ScriptRuleInput[] = [
  {
    match: "look at the screenshot",
    turns: [{ tool_calls: [{ name: "image", arguments: { path: "shot.png" } }] }, { content: "I see the screenshot." }],
  },
  {
    match: "tiny image",
    turns: [{ tool_calls: [{ name: "get-tiny-image", arguments: {} }] }, { content: "I see the MCP logo." }],
  },
  { match: "what is in my picture", turns: [{ content: "Your picture is red." }] },
  {
    match: "look at the photo",
    turns: [{ tool_calls: [{ name: "image", arguments: { path: "photo.jpg" } }] }, { content: "A noisy photo." }],
  },
];

/** A 2400x1200 screenshot-like PNG: over the device's 1568-pixel default, so the tool fits it. */
async function writeScreenshot(workspace: string): Promise<void> {
  const width = 2400;
  const height = 1200;
  const raw = Buffer.alloc(width * height * 3);
  for (let i = 0; i < width * height; i++) raw.writeUIntBE(i % width < width / 2 ? 0x3060c0 : 0xf0f0f0, i * 3, 3);
  await sharp(raw, { raw: { width, height, channels: 3 } })
    .png()
    .toFile(join(workspace, "shot.png"));
  // A photo as a camera takes it: 1.5 MB of noise, far over what the agent's 256 KiB output cap carries as base64.
  const noise = Buffer.alloc(1400 * 1000 * 3);
  for (let i = 0; i < noise.length; i++) noise[i] = (i * 2654435761) >>> 24;
  await sharp(noise, { raw: { width: 1400, height: 1000, channels: 3 } })
    .jpeg({ quality: 95 })
    .toFile(join(workspace, "photo.jpg"));
}

async function setUp(format: "openai" | "anthropic", extraVars: Record<string, string> = {}) {
  const workspace = tempDir("edgeloop-images-ws-");
  await writeScreenshot(workspace);
  const llm = await startScriptedLlm({ port: 0, rules: RULES });
  const token = `images-${format}-token`;
  const vars: Record<string, string> =
    format === "openai"
      ? scriptedVars(llm)
      : { LLM_PROVIDER: "anthropic", ANTHROPIC_BASE_URL: llm.origin, ANTHROPIC_API_KEY: "k", LLM_MODEL: "claude-e2e" };
  const worker = await startLocalWorker({ vars: { ...vars, DEVICE_TOKENS: `pi-img:${token}`, ...extraVars } });
  const agent = await startAgent({
    url: worker.url,
    agentId: "pi-img",
    token,
    workspace,
    skills: [...BUNDLED_SKILLS, everythingSkill()],
  });
  return { llm, worker, agent };
}

const lastRequest = (llm: ScriptedLlm, words: string) =>
  llm
    .requests()
    .filter((r) => JSON.stringify(r.body).includes(words))
    .at(-1)!.body as { messages: Json[] };

async function imagesOf(worker: LocalWorker, conversationId: string): Promise<Ref[]> {
  const res = await fetch(`${worker.url}/v1/conversations/${conversationId}`, {
    headers: { authorization: `Bearer ${API_TOKEN}` },
  });
  const view = (await res.json()) as { messages: { images?: Ref[] }[] };
  return view.messages.flatMap((m) => m.images ?? []);
}

async function fetchImage(worker: LocalWorker, url: string): Promise<Buffer> {
  const res = await fetch(`${worker.url}${url}`, { headers: { authorization: `Bearer ${API_TOKEN}` } });
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
const fromDataUrl = (url: string) => Buffer.from(url.replace(/^data:image\/png;base64,/, ""), "base64");

describe("images on an OpenAI-compatible model", () => {
  let env: Awaited<ReturnType<typeof setUp>>;
  beforeAll(async () => {
    env = await setUp("openai");
  });
  afterAll(async () => {
    await env?.agent.stop();
    await env?.worker.stop();
    await env?.llm.close();
  });

  it("the bundled image tool's PNG follows the tool results in a user message, fitted, and is served to people", async () => {
    const { body } = await sendMessage(env.worker.url, { agent_id: "pi-img", text: "look at the screenshot" }, 60);
    expect(body).toMatchObject({ status: "completed", reply: "I see the screenshot." });
    const sent = lastRequest(env.llm, "look at the screenshot").messages;
    const [tool, user] = sent.slice(-2) as Json[];
    expect(tool).toMatchObject({
      role: "tool",
      content: expect.stringContaining("Image shot.png (2400x1200 png, sent as"),
    });
    expect(typeof tool!.content).toBe("string");
    const parts = user!.content as Json[];
    expect(user!.role).toBe("user");
    expect(parts[0]).toEqual({ type: "text", text: "Attached image(s) from tool result:" });
    expect(parts).toHaveLength(2);
    const png = fromDataUrl((parts[1]!.image_url as { url: string }).url);
    const size = imageSize(png)!;
    expect(size.media_type).toBe("image/png");
    expect(size.width).toBeLessThanOrEqual(1568);
    expect(size.height).toBeLessThanOrEqual(1568);

    const [ref] = await imagesOf(env.worker, body.conversation_id);
    expect(ref).toMatchObject({ sha256: sha256(png), width: size.width, height: size.height, media_type: "image/png" });
    expect(sha256(await fetchImage(env.worker, ref!.url))).toBe(ref!.sha256);
    // The event stream carries the reference, never the bytes.
    const events = (await storedEvents(env.worker.url, body.conversation_id)) as (TimedEvent & Json)[];
    const end = events.find((e) => e.type === "tool_execution_end")!;
    expect((end.result as { content: Json[] }).content).toContainEqual(
      expect.objectContaining({ type: "image", sha256: ref!.sha256, url: ref!.url }),
    );
    expect(JSON.stringify(events)).not.toContain("iVBORw0KGgo");

    // The CLI shows the conversation and saves its image under its hash.
    const dir = tempDir("edgeloop-cli-images-");
    const run = await runCli(["conversations", body.conversation_id, "--images", dir], {
      HOME: dir,
      ...asClient(env.worker.url),
    });
    expect(run.code, run.stderr).toBe(0);
    const shown = run.stdout;
    const file = join(dir, `${ref!.sha256}.png`);
    expect(shown).toContain(`[image image/png ${size.width}x${size.height}, ${png.length} bytes: ${file}]`);
    expect(sha256(readFileSync(file))).toBe(ref!.sha256);
  });

  it("a photo larger than the agent's output cap is fitted to it on the device and reaches the model", async () => {
    const { body } = await sendMessage(env.worker.url, { agent_id: "pi-img", text: "look at the photo" }, 60);
    expect(body).toMatchObject({ status: "completed", reply: "A noisy photo." });
    const parts = lastRequest(env.llm, "look at the photo").messages.at(-1)!.content as Json[];
    const url = (parts[1]!.image_url as { url: string }).url;
    expect(url).toMatch(/^data:image\/jpeg;base64,/);
    const jpeg = Buffer.from(url.slice(url.indexOf(",") + 1), "base64");
    expect(imageSize(jpeg)!.media_type).toBe("image/jpeg");
    // The agent's default cap is 256 KiB of stdout: the picture was made to fit within it.
    expect(jpeg.length).toBeLessThanOrEqual(((256 * 1024 - 16 * 1024) * 3) / 4);
  });

  it("the dashboard timeline shows the result's image as a thumbnail, loaded with the page's session", async () => {
    const browser = await launchChromium();
    try {
      const errors: string[] = [];
      const page = await dashboardPage(browser, errors);
      await logIn(page, env.worker.url);
      const accepted = await sendMessage(env.worker.url, { agent_id: "pi-img", text: "look at the screenshot again" });
      const open = page.locator(`button[data-conversation="${accepted.body.conversation_id}"]`);
      await open.waitFor({ timeout: 20_000 });
      await open.click();
      const thumb = page.locator("#timeline li.tool img.thumb");
      await thumb.waitFor({ timeout: 20_000 });
      await expect.poll(() => thumb.evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);
      expect(await thumb.getAttribute("src")).toMatch(/\/images\/[0-9a-f]{64}$/);
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
  });

  it("a device MCP server's image is handled as the bundled tool's", async () => {
    const { body } = await sendMessage(env.worker.url, { agent_id: "pi-img", text: "show the tiny image" }, 60);
    expect(body).toMatchObject({ status: "completed", reply: "I see the MCP logo." });
    const user = lastRequest(env.llm, "show the tiny image").messages.at(-1)!;
    const parts = user.content as Json[];
    expect(parts.map((p) => p.type)).toEqual(["text", "image_url"]);
    const png = fromDataUrl((parts[1]!.image_url as { url: string }).url);
    expect(imageSize(png)).toEqual({ media_type: "image/png", width: 20, height: 20 });
    const [ref] = await imagesOf(env.worker, body.conversation_id);
    expect(ref!.sha256).toBe(sha256(png));
  });
});

describe("images on Anthropic's Messages API", () => {
  let env: Awaited<ReturnType<typeof setUp>>;
  beforeAll(async () => {
    // A smaller limit than the device's own default: the command passes it on and the tool fits to it.
    env = await setUp("anthropic", { IMAGES_IN_CONTEXT: "1", IMAGE_MAX_WIDTH: "800" });
  });
  afterAll(async () => {
    await env?.agent.stop();
    await env?.worker.stop();
    await env?.llm.close();
  });

  it("the image, fitted on the device to the worker's limits, goes inside the tool_result; an older one beyond IMAGES_IN_CONTEXT becomes a placeholder naming its call", async () => {
    const first = await sendMessage(env.worker.url, { agent_id: "pi-img", text: "look at the screenshot" }, 60);
    expect(first.body).toMatchObject({ status: "completed", reply: "I see the screenshot." });
    const turns = lastRequest(env.llm, "look at the screenshot").messages;
    const result = (turns.at(-1)!.content as Json[])[0]!;
    expect(result.type).toBe("tool_result");
    const [text, image] = result.content as Json[];
    expect(text).toMatchObject({ type: "text", text: expect.stringContaining("Image shot.png") });
    const source = image!.source as { type: string; media_type: string; data: string };
    expect(image!.type).toBe("image");
    expect(source).toMatchObject({ type: "base64", media_type: "image/png" });
    expect(imageSize(Buffer.from(source.data, "base64"))).toMatchObject({ width: 800, height: 400 });
    expect(text!.text).toContain("sent as 800x400");

    const second = await sendMessage(
      env.worker.url,
      { agent_id: "pi-img", conversation_id: first.body.conversation_id, text: "now the tiny image" },
      60,
    );
    expect(second.body.status).toBe("completed");
    const later = JSON.stringify(lastRequest(env.llm, "now the tiny image").messages);
    // Only the latest image is sent; the screenshot's result names its call instead.
    expect(later.split('"type":"image"').length - 1).toBe(1);
    expect(later).toMatch(/from the 'image' call [^ ]+ not shown: only the latest 1 images stay in context/);
    // The same screenshot was stored once, whatever the history holds.
    expect(new Set((await imagesOf(env.worker, first.body.conversation_id)).map((r) => r.sha256)).size).toBe(2);
  });

  it("an image sent with the message reaches the model as an image block after the text", async () => {
    const red = await sharp({ create: { width: 64, height: 48, channels: 3, background: "#ff0000" } })
      .png()
      .toBuffer();
    const data = red.toString("base64");
    const { body } = await sendMessage(
      env.worker.url,
      {
        agent_id: "pi-img",
        text: "what is in my picture?",
        images: [{ type: "image", source: { type: "base64", media_type: "image/png", data } }],
      },
      60,
    );
    expect(body).toMatchObject({ status: "completed", reply: "Your picture is red." });
    const user = lastRequest(env.llm, "what is in my picture").messages.at(-1)!;
    expect((user.content as Json[]).map((b) => b.type)).toEqual(["text", "image"]);
    expect(((user.content as Json[])[1]!.source as { data: string }).data).toBe(data);
    const [ref] = await imagesOf(env.worker, body.conversation_id);
    expect(await fetchImage(env.worker, ref!.url)).toEqual(red);
  });
});
