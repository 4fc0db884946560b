import { validateArguments } from "@edgeloop/protocol/validate-arguments";
import { describe, expect, it } from "vitest";
import { invokeFor, outcomeOf, skillsFor } from "../../../durable-objects/device-hub/wires/openclaw/node-tools.js";
import { offeredCommands } from "../../../durable-objects/device-hub/wires/openclaw/phone-data-commands.js";

// What a Mac with Computer Control, an Android phone with Accessibility Control and a headless
// node with Claude CLI and the browser relay advertise, beyond node-protocol.test.ts's commands.
const control = [
  "screen.snapshot",
  "computer.act",
  "mobile.ui.observe",
  "mobile.ui.act",
  "terminal.upload",
  "browser.proxy",
  "browser.proxy.upload.v1",
  "agent.cli.claude.run.v1",
];
const tools = skillsFor(control)[0]!.tools;
const named = (name: string) => tools.find((t) => t.name === name)!;
const valid = (name: string, args: Record<string, unknown>) => {
  const t = named(name);
  return validateArguments(t.name, t.parameters, args);
};
const result = (tool: string, command: string, answer: object, args?: Record<string, unknown>, stdout?: string) =>
  outcomeOf(
    tool,
    command,
    { id: "r", nodeId: "n", ...answer } as never,
    { timeoutMs: 30_000, elapsedMs: 7 },
    {
      args,
      stdout,
    },
  );
const ctx = { executionId: "0b6f3c2e-9d1a-4f7e-8a2b-1c3d4e5f6a7b", computer: true };

describe("commands that act on a node, as tools", () => {
  it("offers each under its command's name; all but mobile_ui_observe and the screenshot ask a person first", () => {
    expect(tools.map((t) => [t.name, t.binary, t.policy])).toEqual([
      ["screen_snapshot", "screen.snapshot", undefined],
      ["computer_act", "computer.act", "requires_approval"],
      ["mobile_ui_observe", "mobile.ui.observe", undefined],
      ["mobile_ui_act", "mobile.ui.act", "requires_approval"],
      ["terminal_upload", "terminal.upload", "requires_approval"],
      ["browser_proxy", "browser.proxy", "requires_approval"],
      ["browser_proxy_upload_v1", "browser.proxy.upload.v1", "requires_approval"],
      ["agent_cli_claude_run_v1", "agent.cli.claude.run.v1", "requires_approval"],
    ]);
  });

  it("computer_act: one action per call, only the fields that action takes, in the connection's execution", () => {
    const bad = valid("computer_act", { action: "teleport" });
    expect(bad.ok).toBe(false);
    expect(bad.ok ? "" : bad.error).toContain("'action' must be one of [left_click");
    expect(valid("computer_act", { action: "left_click", x: -1, y: 2 }).ok).toBe(false);
    const click = { action: "left_click", x: 10, y: 20, displayFrameId: "f1", refWidth: 1280, text: "stray" };
    expect(valid("computer_act", click).ok).toBe(true);
    // The node refuses a field its action does not take: `text` is not sent with a click.
    expect(invokeFor(named("computer_act"), click, 30_000, ctx)).toEqual({
      command: "computer.act",
      params: {
        action: "left_click",
        executionId: ctx.executionId,
        displayFrameId: "f1",
        x: 10,
        y: 20,
        refWidth: 1280,
      },
    });
    expect(invokeFor(named("computer_act"), { action: "type", text: "hi", x: 3 }, 30_000, ctx)?.params).toEqual({
      action: "type",
      executionId: ctx.executionId,
      text: "hi",
    });
    // Its screenshots are taken in the same execution, so their frames authorize its input.
    expect(invokeFor(named("screen_snapshot"), { screenIndex: 0 }, 10_000, ctx)?.params).toEqual({
      screenIndex: 0,
      executionId: ctx.executionId,
    });
    expect(invokeFor(named("screen_snapshot"), {}, 10_000, { executionId: "x", computer: false })?.params).toEqual({});
  });

  it("computer_act's result: the observation as an image, a refusal as an error, bad params with what the action takes", () => {
    const observation = {
      kind: "screen",
      base64: "AAAA",
      format: "jpeg",
      width: 1280,
      height: 800,
      observationId: "o1",
    };
    const ok = result("computer_act", "computer.act", {
      ok: true,
      payload: { ok: true, effect: "confirmed", observation },
    });
    expect(ok.status).toBe("success");
    const text = JSON.stringify({ ok: true, effect: "confirmed", observation: { ...observation, base64: undefined } });
    expect(ok).toMatchObject({ result: text });
    expect(ok.status === "success" && ok.content).toEqual([
      { type: "text", text },
      { type: "image", data: "AAAA", mimeType: "image/jpeg" },
    ]);
    const refused = result("computer_act", "computer.act", {
      ok: true,
      payloadJSON: JSON.stringify({ ok: false, details: { code: "background_occluded" } }),
    });
    expect(refused).toMatchObject({ status: "error", error_type: "execution_failed" });
    expect(refused.status === "error" && refused.error).toContain("background_occluded");
    const invalid = result(
      "computer_act",
      "computer.act",
      { ok: false, error: { code: "INVALID_REQUEST", message: "Error: COMPUTER_INVALID_REQUEST: invalid params" } },
      { action: "set_value" },
    );
    expect(invalid).toMatchObject({ status: "error", error_type: "invalid_params" });
    expect(invalid.status === "error" && invalid.error).toContain(
      "(set_value needs windowRef, elementRef, observationId, value; takes windowRef, elementRef, observationId, value, deliveryMode)",
    );
  });

  it("a Computer Use screenshot tells the model the frame its coordinates refer to", () => {
    const shot = result("screen_snapshot", "screen.snapshot", {
      ok: true,
      payload: { format: "jpeg", base64: "AAAA", width: 1280, height: 800, displayFrameId: "frame-7", screenIndex: 0 },
    });
    expect(shot.status === "success" && shot.result).toBe(
      'Picture from the node (jpeg 1280x800). For computer_act: displayFrameId "frame-7", refWidth 1280, screenIndex 0.',
    );
  });

  it("mobile_ui_act sends one action against a snapshot, as OpenClaw's mobile_ui tool does", () => {
    expect(valid("mobile_ui_act", { snapshotId: "s1" }).ok).toBe(false);
    expect(valid("mobile_ui_act", { snapshotId: "s1", action: { type: "fling" } }).ok).toBe(false);
    expect(valid("mobile_ui_act", { snapshotId: "s1", action: { type: "tap", x: -3, y: 1 } }).ok).toBe(false);
    const tap = { snapshotId: "s1", action: { type: "tap", x: 30, y: 40 } };
    expect(valid("mobile_ui_act", tap).ok).toBe(true);
    expect(invokeFor(named("mobile_ui_act"), tap, 30_000, ctx)).toEqual({ command: "mobile.ui.act", params: tap });
    expect(invokeFor(named("mobile_ui_observe"), {}, 10_000, ctx)).toEqual({
      command: "mobile.ui.observe",
      params: {},
    });
  });

  it("a Claude CLI turn gets the call's timeout and an idle one; its output is what it printed as progress", () => {
    expect(valid("agent_cli_claude_run_v1", { argv: ["-p"] }).ok).toBe(false);
    const args = { argv: ["-p", "--output-format", "text"], stdin: "say hi" };
    expect(invokeFor(named("agent_cli_claude_run_v1"), { ...args, timeout_ms: 60_000 }, 60_000, ctx)).toEqual({
      command: "agent.cli.claude.run.v1",
      params: { ...args, idleTimeoutMs: 60_000, timeoutMs: 60_000 },
    });
    const cmd = "agent.cli.claude.run.v1";
    const done = result("agent_cli_claude_run_v1", cmd, { ok: true, payloadJSON: '{"exitCode":0}' }, args, "hi\n");
    expect(done).toMatchObject({ status: "success", result: "hi\n" });
    const failed = result("agent_cli_claude_run_v1", cmd, {
      ok: true,
      payload: { exitCode: 1, stderrTail: "not logged in" },
    });
    expect(failed).toMatchObject({ status: "error", error_type: "execution_failed", exit_code: 1 });
    expect(failed.status === "error" && failed.error).toBe("claude exited with code 1: not logged in");
    // The node's own exec approvals ask its owner: edgeloop never answers for them.
    const asks = result("agent_cli_claude_run_v1", cmd, { ok: true, payload: { approvalRequired: true } });
    expect(asks).toMatchObject({ status: "error", error_type: "permission_denied" });
    expect(Object.keys(named("agent_cli_claude_run_v1").parameters.properties ?? {})).not.toContain("approvalDecision");
  });

  it("terminal_upload and the browser relay send OpenClaw's params; the relay's pictures come back as images", () => {
    expect(valid("terminal_upload", { name: "a.txt" }).ok).toBe(false);
    const upload = { name: "a.txt", contentBase64: "aGk=" };
    expect(invokeFor(named("terminal_upload"), upload, 10_000, ctx)).toEqual({
      command: "terminal.upload",
      params: upload,
    });
    expect(valid("browser_proxy", { path: "/tabs", method: "PUT" }).ok).toBe(false);
    const files = [{ name: "x.png", contentBase64: "AAAA" }];
    expect(invokeFor(named("browser_proxy_upload_v1"), { files, body: { ref: "e1" } }, 30_000, ctx)?.params).toEqual({
      method: "POST",
      path: "/hooks/file-chooser",
      body: { ref: "e1" },
      upload: { envelope: "browser-upload-v1", files },
    });
    const shot = result("browser_proxy", "browser.proxy", {
      ok: true,
      payloadJSON: JSON.stringify({
        result: { ok: true },
        files: [{ path: "/t/s.png", base64: "AAAA", mimeType: "image/png" }],
      }),
    });
    expect(shot.status === "success" && shot.content).toEqual([
      { type: "text", text: '{"result":{"ok":true},"files":[{"path":"/t/s.png","mimeType":"image/png","bytes":3}]}' },
      { type: "image", data: "AAAA", mimeType: "image/png" },
    ]);
  });

  it("offers watch.* only from an iPhone, as OpenClaw's gateway decides", () => {
    const phone = ["watch.status", "watch.notify", "camera.list"];
    expect(offeredCommands(phone, { platform: "iOS 18.2", deviceFamily: "iPhone" })).toEqual(phone);
    expect(offeredCommands(phone, { platform: "ios", deviceFamily: "iPhone" })).toEqual(phone);
    expect(offeredCommands(phone, { deviceFamily: "iPhone" })).toEqual(phone);
    for (const other of [
      { platform: "iPadOS 18", deviceFamily: "iPad" },
      { platform: "android", deviceFamily: "Android" },
      { platform: "linux" },
      { platform: "macos 15", deviceFamily: "iPhone" },
    ])
      expect(offeredCommands(phone, other)).toEqual(["camera.list"]);
  });
});
