/**
 * The commands only phones and desktops run (camera, screen, location), which the real node on a
 * headless Linux machine does not have: a node written from OpenClaw's gateway protocol
 * (test/helpers/openclaw-node.ts) on plain `wrangler dev` with the scripted model, advertising them
 * as an OpenClaw phone does. Its `camera.snap` answers as OpenClaw's node does,
 * `{format, base64, width, height}`, with a real JPEG; the photo reaches the model as an image and
 * people fetch it at the conversation's image route (docs/openclaw-nodes.md).
 */
import { Buffer } from "node:buffer";
import { readFileSync } from "node:fs";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { imageSize } from "../../durable-objects/conversation/core/image-size.js";
import { type ScriptedLlm, startScriptedLlm } from "../../scripted-llm/server.js";
import { sendMessage } from "../helpers/api.js";
import { approvedRun as approvedRunOf } from "../helpers/approved-run.js";
import { ADMIN_TOKEN, API_TOKEN, type LocalWorker, startLocalWorker } from "../helpers/local-worker.js";
import { type InvokeRequest, makeNodeKey, type OpenClawTestNode, openclawNode } from "../helpers/openclaw-node.js";
import { scriptedVars } from "../helpers/scripted-stack.js";
import { waitUntil } from "../helpers/wait.js";

const AGENT = "oc-phone";
type Json = Record<string, unknown>;

let llm: ScriptedLlm;
let worker: LocalWorker;
let node: OpenClawTestNode;
let photo: Buffer;
const clip = readFileSync(new URL("../fixtures/openclaw/clip.mp4", import.meta.url));
/** The largest frame the hub takes here: a clip over it ends its call with an error saying so. */
const MAX_FRAME = 256 * 1024;

/** A 320x240 photo-like JPEG: a gradient, encoded by a real encoder. */
async function jpeg(): Promise<Buffer> {
  const width = 320;
  const height = 240;
  const raw = Buffer.alloc(width * height * 3);
  for (let i = 0; i < width * height; i++) {
    raw[i * 3] = (i % width) % 256;
    raw[i * 3 + 1] = Math.floor(i / width) % 256;
    raw[i * 3 + 2] = 128;
  }
  return sharp(raw, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 80 })
    .toBuffer();
}

/** What the node does with each command, as OpenClaw's phone node answers. */
function answer(req: InvokeRequest) {
  if (req.command === "camera.snap")
    return { ok: true, payload: { format: "jpg", base64: photo.toString("base64"), width: 320, height: 240 } };
  if (req.command === "camera.clip")
    return { ok: true, payload: { format: "mp4", base64: clip.toString("base64"), durationMs: 1000, hasAudio: false } };
  // A recording longer than one frame may carry: bytes over the limit (the hub refuses on size alone).
  if (req.command === "screen.record")
    return {
      ok: true,
      payload: { format: "mp4", base64: Buffer.alloc(MAX_FRAME).toString("base64"), durationMs: 60_000 },
    };
  if (req.command === "sms.send") return { ok: true, payload: { ok: true, to: "+15555550123" } };
  // As OpenClaw's Android app answers (CallLogHandler.kt): `callLogs`, newest first.
  if (req.command === "callLog.search")
    return {
      ok: true,
      payload: { callLogs: [{ number: "+15555550123", cachedName: "Mom", date: 1, duration: 0, type: 3 }] },
    };
  if (req.command === "canvas.navigate") return { ok: true, payload: { ok: true } };
  if (req.command === "location.get")
    return { ok: true, payload: { lat: 52.52, lon: 13.405, accuracyMeters: 12, source: "gps" } };
  return { ok: false, error: { code: "INVALID_REQUEST", message: `unknown command ${req.command}` } };
}

beforeAll(async () => {
  photo = await jpeg();
  llm = await startScriptedLlm({
    port: 0,
    rules: [
      {
        match: "what do you see",
        turns: [
          { tool_calls: [{ name: "camera_snap", arguments: { facing: "back" } }] },
          { content: "I see a gradient." },
        ],
      },
      {
        match: "water the garden",
        turns: [
          { tool_calls: [{ name: "nodes", arguments: {} }] },
          { tool_calls: [{ name: "skill", arguments: { name: "garden" } }] },
          { content: "The skill says: {{last_tool_result}}" },
        ],
      },
      {
        match: "film the door",
        turns: [
          { tool_calls: [{ name: "camera_clip", arguments: { facing: "back", durationMs: 1000 } }] },
          { content: "Filmed: {{last_tool_result}}" },
        ],
      },
      {
        match: "record the screen",
        turns: [
          { tool_calls: [{ name: "screen_record", arguments: { durationMs: 60_000 } }] },
          { content: "Recorded: {{last_tool_result}}" },
        ],
      },
      {
        match: "text mom",
        turns: [
          // Without the text: refused against the schema before anything reaches the node.
          { tool_calls: [{ name: "sms_send", arguments: { to: "+15555550123" } }] },
          { tool_calls: [{ name: "sms_send", arguments: { to: "+15555550123", message: "on my way" } }] },
          { content: "Sent: {{last_tool_result}}" },
        ],
      },
      {
        match: "show the board",
        turns: [
          {
            tool_calls: [
              { name: "canvas_navigate", arguments: { url: "/__openclaw__/canvas/documents/board/index.html" } },
            ],
          },
          { content: "Shown: {{last_tool_result}}" },
        ],
      },
      {
        match: "who called",
        turns: [
          { tool_calls: [{ name: "callLog_search", arguments: { type: 3, limit: 5 } }] },
          { content: "Missed: {{last_tool_result}}" },
        ],
      },
      {
        match: "where is it",
        turns: [
          { tool_calls: [{ name: "location_get", arguments: { desiredAccuracy: "precise" } }] },
          { content: "It is at {{last_tool_result}}" },
        ],
      },
    ],
  });
  worker = await startLocalWorker({ vars: { ...scriptedVars(llm), DEVICE_MAX_FRAME_BYTES: String(MAX_FRAME) } });
  const setup = await fetch(`${worker.url}/v1/openclaw/${AGENT}/setup`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: "{}",
  });
  expect(setup.status).toBe(201);
  const { setup_code } = (await setup.json()) as { setup_code: string };
  const { bootstrapToken } = JSON.parse(Buffer.from(setup_code, "base64url").toString()) as { bootstrapToken: string };
  const ws = new WebSocket(`${worker.url.replace(/^http/, "ws")}/v1/openclaw/${AGENT}`);
  node = openclawNode(ws, {
    key: await makeNodeKey(),
    auth: { bootstrapToken },
    caps: ["camera", "location", "screen", "canvas", "sms"],
    commands: [
      "camera.list",
      "camera.snap",
      "camera.clip",
      "screen.record",
      "canvas.navigate",
      "sms.send",
      "callLog.search",
      "location.get",
      "system.execApprovals.get",
      "system.execApprovals.set",
    ],
    onInvoke: answer,
  });
  expect((await node.connect()).ok).toBe(true);
}, 300_000);

afterAll(async () => {
  node?.ws.close(1000, "done");
  await worker?.stop();
  await llm?.close();
});

const lastRequest = (words: string) =>
  llm
    .requests()
    .filter((r) => JSON.stringify(r.body).includes(words))
    .at(-1)!.body as { messages: Json[]; tools: { function: { name: string } }[] };

const _api = (path: string, init: RequestInit = {}) =>
  fetch(`${worker.url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${API_TOKEN}`, "content-type": "application/json", ...init.headers },
  });

/**
 * A message whose call of `command` waits for a person: the node sees nothing of it until it is
 * approved, then the run ends.
 */
const approvedRun = (text: string, command: string) =>
  approvedRunOf(worker.url, {
    agentId: AGENT,
    text,
    sent: () => node.invokes.filter((i) => i.command === command).length,
  });

describe("an OpenClaw phone's commands", () => {
  it("become tools, except the node's own exec approvals", async () => {
    const view = await waitUntil(
      async () => {
        const res = await fetch(`${worker.url}/v1/devices/${AGENT}`, {
          headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        });
        return (await res.json()) as { online: boolean; skills: { tools: { name: string }[] }[] };
      },
      (v) => v.online,
      { what: "the node online" },
    );
    const tools = view.skills.flatMap((s) => s.tools) as { name: string; policy?: string }[];
    expect(tools.map((t) => t.name)).toEqual([
      "camera_list",
      "camera_snap",
      "camera_clip",
      "screen_record",
      "canvas_navigate",
      "sms_send",
      "callLog_search",
      "location_get",
    ]);
    // OpenClaw's dangerous commands wait for a person unless TOOL_POLICIES says otherwise.
    expect(tools.filter((t) => t.policy === "requires_approval").map((t) => t.name)).toEqual([
      "camera_snap",
      "camera_clip",
      "screen_record",
      "sms_send",
    ]);
  });

  it("a camera snap is sent as OpenClaw's gateway sends it, and the photo reaches the model", async () => {
    const run = await approvedRun("what do you see", "camera.snap");
    expect(run.reply).toBe("I see a gradient.");
    const body = { conversation_id: run.id };
    const snap = node.invokes.find((i) => i.command === "camera.snap")!;
    expect(JSON.parse(snap.paramsJSON!)).toEqual({ facing: "back", maxWidth: 1600, quality: 0.95, format: "jpg" });

    const sent = lastRequest("what do you see");
    expect(sent.tools.map((t) => t.function.name)).toContain("camera_snap");
    const user = sent.messages.at(-1)!;
    expect(user.role).toBe("user");
    const parts = user.content as Json[];
    expect(parts[0]).toEqual({ type: "text", text: "Attached image(s) from tool result:" });
    const url = (parts[1]!.image_url as { url: string }).url;
    expect(url.startsWith("data:image/jpeg;base64,")).toBe(true);
    const seen = Buffer.from(url.slice("data:image/jpeg;base64,".length), "base64");
    expect(imageSize(seen)).toMatchObject({ media_type: "image/jpeg", width: 320, height: 240 });

    // People fetch the same photo at the conversation's image route.
    const view = (await (
      await fetch(`${worker.url}/v1/conversations/${body.conversation_id}`, {
        headers: { authorization: `Bearer ${API_TOKEN}` },
      })
    ).json()) as { messages: { images?: { url: string; media_type: string }[] }[] };
    const ref = view.messages.flatMap((m) => m.images ?? [])[0]!;
    expect(ref.media_type).toBe("image/jpeg");
    const served = await fetch(`${worker.url}${ref.url}`, { headers: { authorization: `Bearer ${API_TOKEN}` } });
    expect(served.status).toBe(200);
    expect(Buffer.from(await served.arrayBuffer()).equals(seen)).toBe(true);
  });

  it("a skill the node publishes (its SKILL.md) is loaded by the model like a device's", async () => {
    const content = "---\nname: garden\ndescription: Water the garden\n---\nRun `water --minutes 5` with system_run.";
    const res = await node.request("node.skills.update", {
      skills: [{ name: "garden", description: "Water the garden", content }],
    });
    expect(res).toMatchObject({ ok: true });
    const { body } = await sendMessage(worker.url, { agent_id: AGENT, text: "water the garden" }, 60);
    expect(body.status).toBe("completed");
    expect(body.reply).toContain("# Skill: garden");
    expect(body.reply).toContain("Run `water --minutes 5` with system_run.");
    // The device's details, as the model sees them, list it with its workflow.
    const details = lastRequest("water the garden")
      .messages.filter((m) => m.role === "tool" && String(m.content).startsWith("{"))
      .map((m) => JSON.parse(String(m.content)) as Json)
      .find((c) => "skills" in c)!;
    expect(details.skills).toContainEqual({ name: "garden", has_workflow: true, tools: [] });
  });

  it("a clip is stored: the model gets its link and a poster, and the link serves the clip with auth only", async () => {
    const run = await approvedRun("film the door", "camera.clip");
    const clipCall = node.invokes.find((i) => i.command === "camera.clip")!;
    expect(JSON.parse(clipCall.paramsJSON!)).toEqual({
      facing: "back",
      durationMs: 1000,
      includeAudio: true,
      format: "mp4",
    });
    // The poster: a snap from the same camera, asked right after the clip, under the call's id.
    const poster = node.invokes.find((i) => i.id === `${clipCall.id}:poster`)!;
    expect(poster.command).toBe("camera.snap");
    expect(JSON.parse(poster.paramsJSON!)).toEqual({ facing: "back", maxWidth: 1600, quality: 0.95, format: "jpg" });

    const link = /http:\/\/[^\s"]+\/v1\/devices\/oc-phone\/clips\/[0-9a-f]{64}/.exec(run.reply)?.[0];
    expect(link, run.reply).toBeDefined();
    expect(run.reply).toContain("video/mp4, 2241 bytes, 1.0 s, no sound");
    expect(run.reply).toContain("not a frame of the clip");
    // The poster reached the model as an image.
    const user = lastRequest("film the door").messages.at(-1)!;
    const url = ((user.content as Json[])[1]!.image_url as { url: string }).url;
    expect(Buffer.from(url.slice("data:image/jpeg;base64,".length), "base64").equals(photo)).toBe(true);

    const served = await fetch(link!, { headers: { authorization: `Bearer ${API_TOKEN}` } });
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toBe("video/mp4");
    expect(Buffer.from(await served.arrayBuffer()).equals(clip)).toBe(true);
    expect((await fetch(link!)).status).toBe(401);
    expect((await fetch(link!, { headers: { authorization: "Bearer wrong" } })).status).toBe(401);
  });

  it("a recording too big for one frame ends its call with an error that says so", async () => {
    const run = await approvedRun("record the screen", "screen.record");
    expect(run.reply).toContain(`over the ${MAX_FRAME} bytes this deployment takes in one frame`);
    expect(run.reply).toContain("DEVICE_MAX_FRAME_BYTES");
    const record = node.invokes.find((i) => i.command === "screen.record")!;
    expect(JSON.parse(record.paramsJSON!)).toEqual({
      durationMs: 60_000,
      screenIndex: 0,
      fps: 10,
      includeAudio: true,
      format: "mp4",
    });
  });

  it("an SMS is checked against OpenClaw's schema before the node sees it, then sent as OpenClaw sends it", async () => {
    const run = await approvedRun("text mom", "sms.send");
    expect(run.reply).toContain('"to":"+15555550123"');
    const sms = node.invokes.filter((i) => i.command === "sms.send");
    expect(sms.map((i) => JSON.parse(i.paramsJSON!))).toEqual([{ to: "+15555550123", message: "on my way" }]);
    const refused = lastRequest("text mom").messages.find((m) => m.role === "tool")!;
    expect(String(refused.content)).toContain("Invalid parameters for 'sms_send': missing 'message'");
  });

  it("the widget panel is pointed at a document, with no approval asked", async () => {
    const { body } = await sendMessage(worker.url, { agent_id: AGENT, text: "show the board" }, 60);
    expect(body.status).toBe("completed");
    const nav = node.invokes.find((i) => i.command === "canvas.navigate")!;
    expect(JSON.parse(nav.paramsJSON!)).toEqual({ url: "/__openclaw__/canvas/documents/board/index.html" });
    // The node's own approval policy is never a tool the model sees.
    const names = lastRequest("show the board").tools.map((t) => t.function.name);
    expect(names.filter((n) => /execApprovals/i.test(n))).toEqual([]);
  });

  it("a location is read as the node's JSON", async () => {
    const { body } = await sendMessage(worker.url, { agent_id: AGENT, text: "where is it" }, 60);
    expect(body.status).toBe("completed");
    expect(body.reply).toContain('"lat":52.52');
    const get = node.invokes.find((i) => i.command === "location.get")!;
    expect(JSON.parse(get.paramsJSON!)).toEqual({ desiredAccuracy: "precise" });
  });

  it("a call log search runs at once, with the model's filters, and reads as the node's JSON", async () => {
    const { body } = await sendMessage(worker.url, { agent_id: AGENT, text: "who called" }, 60);
    expect(body.status).toBe("completed");
    expect(body.reply).toContain('"cachedName":"Mom"');
    const search = node.invokes.find((i) => i.command === "callLog.search")!;
    expect(JSON.parse(search.paramsJSON!)).toEqual({ type: 3, limit: 5 });
  });
});
