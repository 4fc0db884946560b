/**
 * The commands that act on a node (docs/openclaw-nodes.md#acting-on-a-node), which the real node
 * on a headless Linux machine does not run: nodes written from OpenClaw's gateway protocol
 * (test/helpers/openclaw-node.ts) on plain `wrangler dev` with the scripted model. A Mac with
 * Computer Control and the Claude CLI relay, an Android phone with Accessibility Control, and an
 * iPhone relaying to its watch, each answering as OpenClaw's schemas say; the Mac's screenshots
 * are real JPEGs that reach the model as images.
 */
import { Buffer } from "node:buffer";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ScopedLlm } from "../../scripted-llm/scope-client.js";
import { approvedRun as approvedRunOf } from "../helpers/approved-run.js";
import { ADMIN_TOKEN, API_TOKEN } from "../helpers/local-worker.js";
import {
  type InvokeRequest,
  makeNodeKey,
  type NodeOptions,
  type OpenClawTestNode,
  openclawNode,
} from "../helpers/openclaw-node.js";
import { joinSharedStack, type SharedStack } from "../helpers/shared-stack.js";
import { waitUntil } from "../helpers/wait.js";

type Json = Record<string, unknown>;

let llm: ScopedLlm;
let worker: SharedStack["worker"];
let desk: OpenClawTestNode;
let droid: OpenClawTestNode;
let phone: OpenClawTestNode;
let screen: Buffer;

const params = (i: InvokeRequest) => JSON.parse(i.paramsJSON ?? "{}") as Json;

/** A 200x120 screen-like JPEG, encoded by a real encoder. */
const jpeg = (shade: number) =>
  sharp({ create: { width: 200, height: 120, channels: 3, background: { r: shade, g: 90, b: 160 } } })
    .jpeg({ quality: 80 })
    .toBuffer();

/** The Mac, as OpenClaw's Computer Use provider and node host answer (computer-use-contract.ts). */
function deskAnswer(req: InvokeRequest) {
  const p = params(req);
  if (req.command === "screen.snapshot")
    return {
      ok: true,
      payload: {
        format: "jpeg",
        base64: screen.toString("base64"),
        width: 200,
        height: 120,
        displayFrameId: "frame-1",
      },
    };
  if (req.command === "computer.act") {
    if (p.action === "set_value")
      return {
        ok: false,
        error: { code: "INVALID_REQUEST", message: "Error: COMPUTER_INVALID_REQUEST: invalid params" },
      };
    const observation = { kind: "screen", base64: screen.toString("base64"), format: "jpeg", width: 200, height: 120 };
    return { ok: true, payloadJSON: JSON.stringify({ ok: true, effect: "confirmed", observation }) };
  }
  // OpenClaw's node host: a staged upload's path and size; the browser relay's `{result, files}`.
  if (req.command === "terminal.upload")
    return { ok: true, payload: { path: `/tmp/openclaw-terminal-upload-x/${p.name}`, size: 5 } };
  if (req.command === "browser.proxy") {
    const file = { path: "/tmp/shot.jpg", base64: screen.toString("base64"), mimeType: "image/jpeg" };
    return { ok: true, payloadJSON: JSON.stringify({ result: { ok: true, path: file.path }, files: [file] }) };
  }
  return { ok: false, error: { code: "INVALID_REQUEST", message: `unknown command ${req.command}` } };
}

/** A Claude CLI turn as OpenClaw's node host runs it: stdout as progress, then the exit code. */
async function claudeTurn(req: InvokeRequest) {
  for (const [seq, chunk] of ["Hello ", "from Claude"].entries())
    await desk.request("node.invoke.progress", { invokeId: req.id, nodeId: req.nodeId, seq, chunk });
  return { ok: true, payloadJSON: JSON.stringify({ exitCode: 0, stderrTail: "", truncated: false }) };
}

/** The Android app's mobile.ui handlers (as OpenClaw's mobile_ui tool reads them). */
function droidAnswer(req: InvokeRequest) {
  if (req.command === "mobile.ui.observe")
    return {
      ok: true,
      payload: {
        snapshotId: "snap-1",
        package: "com.example.notes",
        windowTitle: "Notes",
        nodes: [
          { ref: "n1", role: "button", text: "New note", bounds: [0, 0, 100, 40], flags: {}, actions: ["click"] },
        ],
      },
    };
  if (req.command === "mobile.ui.act") return { ok: true, payload: { code: "ok", message: null } };
  return { ok: false, error: { code: "INVALID_REQUEST", message: `unknown command ${req.command}` } };
}

const script = [
  {
    match: "click the button",
    turns: [
      { tool_calls: [{ name: "screen_snapshot", arguments: {} }] },
      {
        tool_calls: [
          {
            name: "computer_act",
            arguments: { action: "left_click", x: 50, y: 60, displayFrameId: "frame-1", refWidth: 200 },
          },
        ],
      },
      { content: "Clicked: {{last_tool_result}}" },
    ],
  },
  {
    match: "set the field",
    turns: [
      // A click at "ten": refused against the schema before anything reaches the node.
      { tool_calls: [{ name: "computer_act", arguments: { action: "left_click", x: "ten", y: 1 } }] },
      { tool_calls: [{ name: "computer_act", arguments: { action: "set_value", value: "42" } }] },
      { content: "Result: {{last_tool_result}}" },
    ],
  },
  {
    match: "put the notes",
    turns: [
      { tool_calls: [{ name: "terminal_upload", arguments: { name: "notes.txt", contentBase64: "aGVsbG8=" } }] },
      { content: "Staged: {{last_tool_result}}" },
    ],
  },
  {
    match: "show the page",
    turns: [
      { tool_calls: [{ name: "browser_proxy", arguments: { path: "/screenshot", method: "POST" } }] },
      { content: "Page: {{last_tool_result}}" },
    ],
  },
  {
    match: "ask claude",
    turns: [
      {
        tool_calls: [
          { name: "agent_cli_claude_run_v1", arguments: { argv: ["-p", "--output-format", "text"], stdin: "say hi" } },
        ],
      },
      { content: "Claude said: {{last_tool_result}}" },
    ],
  },
  {
    match: "new note",
    turns: [
      { tool_calls: [{ name: "mobile_ui_observe", arguments: {} }] },
      {
        tool_calls: [
          { name: "mobile_ui_act", arguments: { snapshotId: "snap-1", action: { type: "activate", ref: "n1" } } },
        ],
      },
      { content: "Done: {{last_tool_result}}" },
    ],
  },
];

/** A node set up by a setup code, signed in as `opts` says. */
async function join(agent: string, opts: Omit<NodeOptions, "key" | "auth">): Promise<OpenClawTestNode> {
  const setup = await fetch(`${worker.url}/v1/openclaw/${agent}/setup`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: "{}",
  });
  expect(setup.status).toBe(201);
  const { setup_code } = (await setup.json()) as { setup_code: string };
  const { bootstrapToken } = JSON.parse(Buffer.from(setup_code, "base64url").toString()) as { bootstrapToken: string };
  const ws = new WebSocket(`${worker.url.replace(/^http/, "ws")}/v1/openclaw/${agent}`);
  const node = openclawNode(ws, { ...opts, key: await makeNodeKey(), auth: { bootstrapToken } });
  expect((await node.connect()).ok).toBe(true);
  return node;
}

beforeAll(async () => {
  screen = await jpeg(40);
  // The suite's shared worker: the nodes pair through setup codes, so it needs no device tokens.
  ({ llm, worker } = await joinSharedStack({ scope: "openclaw-node-control", rules: script }));
  desk = await join("oc-desk", {
    platform: "macOS 15.2",
    deviceFamily: "Mac",
    caps: ["screen", "computer"],
    // A Mac advertises no watch relay; one that did would still not get watch tools.
    commands: [
      "screen.snapshot",
      "computer.act",
      "agent.cli.claude.run.v1",
      "terminal.upload",
      "browser.proxy",
      "watch.status",
    ],
    onInvoke: (req) => (req.command === "agent.cli.claude.run.v1" ? claudeTurn(req) : deskAnswer(req)),
  });
  droid = await join("oc-droid", {
    platform: "Android 15 (SDK 35)",
    deviceFamily: "Android",
    caps: ["mobileUI"],
    commands: ["mobile.ui.observe", "mobile.ui.act"],
    onInvoke: droidAnswer,
  });
  phone = await join("oc-iphone", {
    platform: "iOS 18.2",
    deviceFamily: "iPhone",
    caps: ["watch"],
    commands: ["watch.status", "watch.notify"],
  });
}, 300_000);

afterAll(async () => {
  for (const n of [desk, droid, phone]) n?.ws.close(1000, "done");
  await llm?.close();
});

const _api = (path: string, init: RequestInit = {}) =>
  fetch(`${worker.url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${API_TOKEN}`, "content-type": "application/json", ...init.headers },
  });

const toolsOf = async (agent: string) => {
  const view = await waitUntil(
    () =>
      fetch(`${worker.url}/v1/devices/${agent}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }).then(
        (r) => r.json() as Promise<{ online: boolean; skills: { tools: { name: string; policy?: string }[] }[] }>,
      ),
    (v) => v.online,
    { what: `${agent} online` },
  );
  return view.skills.flatMap((s) => s.tools).map((t) => [t.name, t.policy ?? "auto"]);
};

const lastRequest = async (words: string) =>
  (await llm.requests()).filter((r) => JSON.stringify(r.body).includes(words)).at(-1)!.body as { messages: Json[] };

/** A message whose call of `command` waits for a person: the node sees nothing of it until approved. */
const approvedRun = async (agentId: string, node: OpenClawTestNode, text: string, command: string) =>
  (
    await approvedRunOf(worker.url, {
      agentId,
      text,
      sent: () => node.invokes.filter((i) => i.command === command).length,
    })
  ).reply;

describe("commands that act on an OpenClaw node", () => {
  it("become tools that ask a person first; watch tools only on the iPhone", async () => {
    expect(await toolsOf("oc-desk")).toEqual([
      ["screen_snapshot", "auto"],
      ["computer_act", "requires_approval"],
      ["agent_cli_claude_run_v1", "requires_approval"],
      ["terminal_upload", "requires_approval"],
      ["browser_proxy", "requires_approval"],
    ]);
    expect(await toolsOf("oc-droid")).toEqual([
      ["mobile_ui_observe", "auto"],
      ["mobile_ui_act", "requires_approval"],
    ]);
    expect(await toolsOf("oc-iphone")).toEqual([
      ["watch_status", "auto"],
      ["watch_notify", "auto"],
    ]);
  });

  it("a click is one approved call in the screenshot's execution, and what the node then sees reaches the model", async () => {
    const reply = await approvedRun("oc-desk", desk, "click the button", "computer.act");
    expect(reply).toContain('"effect":"confirmed"');
    const shot = desk.invokes.find((i) => i.command === "screen.snapshot")!;
    const click = desk.invokes.find((i) => i.command === "computer.act")!;
    const executionId = params(shot).executionId;
    expect(executionId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(params(click)).toEqual({
      action: "left_click",
      executionId,
      displayFrameId: "frame-1",
      x: 50,
      y: 60,
      refWidth: 200,
    });
    // The screenshot told the model its frame, and the click's observation came back as a picture.
    const tool = (await lastRequest("click the button")).messages.filter((m) => m.role === "tool");
    expect(String(tool[0]!.content)).toContain('For computer_act: displayFrameId "frame-1", refWidth 200.');
    const user = (await lastRequest("click the button")).messages.at(-1)!;
    const url = ((user.content as Json[])[1]!.image_url as { url: string }).url;
    expect(Buffer.from(url.slice("data:image/jpeg;base64,".length), "base64").equals(screen)).toBe(true);
  });

  it("bad arguments come back as errors the model can act on: the schema's, then the node's with what it takes", async () => {
    const reply = await approvedRun("oc-desk", desk, "set the field", "computer.act");
    const refused = (await lastRequest("set the field")).messages.find((m) => m.role === "tool")!;
    expect(String(refused.content)).toContain("Invalid parameters for 'computer_act': 'x' must be a number");
    expect(reply).toContain("(set_value needs windowRef, elementRef, observationId, value;");
    const sent = desk.invokes.filter((i) => i.command === "computer.act").map(params);
    expect(sent.at(-1)).toMatchObject({ action: "set_value", value: "42" });
    expect(sent.some((p) => p.x === "ten")).toBe(false);
  });

  it("a Claude CLI turn runs once approved, and the model gets what it printed", async () => {
    const reply = await approvedRun("oc-desk", desk, "ask claude", "agent.cli.claude.run.v1");
    expect(reply).toBe("Claude said: Hello from Claude");
    const run = desk.invokes.find((i) => i.command === "agent.cli.claude.run.v1")!;
    expect(params(run)).toEqual({
      argv: ["-p", "--output-format", "text"],
      stdin: "say hi",
      idleTimeoutMs: 120_000,
      timeoutMs: run.timeoutMs,
    });
  });

  it("a file is staged on the node once approved, and the model gets its path", async () => {
    const reply = await approvedRun("oc-desk", desk, "put the notes", "terminal.upload");
    expect(reply).toBe('Staged: {"path":"/tmp/openclaw-terminal-upload-x/notes.txt","size":5}');
    const upload = desk.invokes.find((i) => i.command === "terminal.upload")!;
    expect(params(upload)).toEqual({ name: "notes.txt", contentBase64: "aGVsbG8=" });
  });

  it("the browser relay's screenshot reaches the model as an image, its bytes left out of the text", async () => {
    const reply = await approvedRun("oc-desk", desk, "show the page", "browser.proxy");
    expect(reply).toContain('"files":[{"path":"/tmp/shot.jpg","mimeType":"image/jpeg","bytes":');
    expect(reply).not.toContain(screen.toString("base64").slice(0, 40));
    expect(params(desk.invokes.find((i) => i.command === "browser.proxy")!)).toEqual({
      path: "/screenshot",
      method: "POST",
    });
    const user = (await lastRequest("show the page")).messages.at(-1)!;
    const url = ((user.content as Json[])[1]!.image_url as { url: string }).url;
    expect(Buffer.from(url.slice("data:image/jpeg;base64,".length), "base64").equals(screen)).toBe(true);
  });

  it("a phone's screen is read at once, and acting on it waits for a person", async () => {
    const reply = await approvedRun("oc-droid", droid, "new note", "mobile.ui.act");
    expect(reply).toBe('Done: {"code":"ok","message":null}');
    expect(droid.invokes.map((i) => [i.command, params(i)])).toEqual([
      ["mobile.ui.observe", {}],
      ["mobile.ui.act", { snapshotId: "snap-1", action: { type: "activate", ref: "n1" } }],
    ]);
  });
});
