/**
 * The commands only phones and desktops run (camera, screen, location), which the real node on a
 * headless Linux machine does not have: a node written from OpenClaw's gateway protocol
 * (test/helpers/openclaw-node.ts) on plain `wrangler dev` with the scripted model, advertising them
 * as an OpenClaw phone does. Its `camera.snap` answers as OpenClaw's node does,
 * `{format, base64, width, height}`, with a real JPEG; the photo reaches the model as an image and
 * people fetch it at the conversation's image route (docs/openclaw-nodes.md).
 */
import { Buffer } from "node:buffer";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { imageSize } from "../../durable-objects/conversation/core/image-size.js";
import { type ScriptedLlm, startScriptedLlm } from "../../scripted-llm/server.js";
import { sendMessage } from "../helpers/api.js";
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
        match: "where is it",
        turns: [
          { tool_calls: [{ name: "location_get", arguments: { desiredAccuracy: "precise" } }] },
          { content: "It is at {{last_tool_result}}" },
        ],
      },
    ],
  });
  worker = await startLocalWorker({ vars: scriptedVars(llm) });
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
    caps: ["camera", "location"],
    commands: ["camera.list", "camera.snap", "location.get", "system.execApprovals.set"],
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
    expect(view.skills.flatMap((s) => s.tools.map((t) => t.name))).toEqual([
      "camera_list",
      "camera_snap",
      "location_get",
    ]);
  });

  it("a camera snap is sent as OpenClaw's gateway sends it, and the photo reaches the model", async () => {
    const { body } = await sendMessage(worker.url, { agent_id: AGENT, text: "what do you see" }, 60);
    expect(body).toMatchObject({ status: "completed", reply: "I see a gradient." });
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

  it("a location is read as the node's JSON", async () => {
    const { body } = await sendMessage(worker.url, { agent_id: AGENT, text: "where is it" }, 60);
    expect(body.status).toBe("completed");
    expect(body.reply).toContain('"lat":52.52');
    const get = node.invokes.find((i) => i.command === "location.get")!;
    expect(JSON.parse(get.paramsJSON!)).toEqual({ desiredAccuracy: "precise" });
  });
});
