import { DeviceFrame, HubFrame, MessageRequest, parseJson, parseValue, ToolCommandFrame } from "@edgeloop/protocol";
import { describe, expect, it } from "vitest";
import { bashToolManifest } from "../../fixtures/bash-tool-manifest.js";

// EvoClaw's command to an edge agent, with `type` added.
const seedCommand = {
  type: "command",
  command: "tool",
  payload: {
    tool: "bash",
    parameters: { command: "ls -la" },
    timeout_ms: 30000,
    request_id: "req-1739635200000000000",
  },
  request_id: "req-1739635200000000000",
};
const seedSuccess = {
  type: "result",
  request_id: "req-1",
  status: "success",
  tool: "bash",
  result: "file1.txt\nfile2.txt\n",
  stderr: "",
  exit_code: 0,
  elapsed_ms: 123,
};
const seedError = {
  type: "result",
  request_id: "req-1",
  status: "error",
  tool: "bash",
  error: "Command timed out after 30000ms",
  error_type: "timeout",
};

describe("protocol: device frames", () => {
  it("accepts the EvoClaw tool command", () => {
    expect(parseValue(ToolCommandFrame, seedCommand).ok).toBe(true);
    expect(parseValue(HubFrame, seedCommand).ok).toBe(true);
  });

  it("accepts the EvoClaw success and error reports", () => {
    const s = parseValue(DeviceFrame, seedSuccess);
    expect(s).toMatchObject({ ok: true, value: { status: "success", result: "file1.txt\nfile2.txt\n" } });
    const e = parseValue(DeviceFrame, seedError);
    expect(e).toMatchObject({ ok: true, value: { error_type: "timeout" } });
  });

  it("accepts a hello with skills and held ids", () => {
    const hello = {
      type: "hello",
      protocol: 1,
      agent_id: "pi-1",
      version: "0.1.0",
      capabilities: ["shell"],
      held: ["req-1"],
      skills: [
        {
          name: "desktop-tools",
          version: "1.0.0",
          tools: [{ ...bashToolManifest, permissions: ["shell"] }],
        },
      ],
    };
    const parsed = parseValue(DeviceFrame, hello);
    expect(parsed.ok).toBe(true);
  });

  it.each([
    ["an unknown error_type", { ...seedError, error_type: "exploded" }, "error_type"],
    ["a result without request_id", { ...seedSuccess, request_id: undefined }, "request_id"],
    ["a negative elapsed_ms", { ...seedSuccess, elapsed_ms: -1 }, "elapsed_ms"],
    ["a request id with spaces", { ...seedSuccess, request_id: "a b" }, "request_id"],
    ["an unknown frame type", { type: "telemetry" }, ""],
    ["a hello of another protocol version", { type: "hello", protocol: 2, agent_id: "pi-1", version: "1" }, "protocol"],
    ["a progress frame with no content", { type: "progress", request_id: "r", content: [] }, "content"],
  ])("rejects %s", (_name, frame, field) => {
    const parsed = parseValue(DeviceFrame, frame);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok && field) expect(parsed.error).toContain(field);
  });

  it.each([
    [
      "a cancel and an ack",
      [
        { type: "command", command: "cancel", request_id: "r1" },
        { type: "ack", request_ids: ["r1"] },
        { type: "rejected", reason: "why" },
      ],
    ],
  ])("accepts hub frames: %s", (_name, frames) => {
    for (const frame of frames) expect(parseValue(HubFrame, frame).ok).toBe(true);
  });

  it.each([
    [
      "an unknown command",
      { type: "command", command: "reboot", request_id: "r1" },
      "command: Invalid discriminator value. Expected 'tool' | 'cancel'",
    ],
    ["an unknown frame type", { type: "telemetry" }, "type: Invalid discriminator value"],
    ["an ack whose ids are not a list", { type: "ack", request_ids: "r1" }, "request_ids:"],
    [
      "a tool command with a zero timeout",
      { ...seedCommand, payload: { ...seedCommand.payload, timeout_ms: 0 } },
      "payload.timeout_ms:",
    ],
  ])("names the failing field of a hub frame: %s", (_name, frame, error) => {
    const parsed = parseValue(HubFrame, frame);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toContain(error);
  });

  it("rejects malformed JSON with a clear error", () => {
    const parsed = parseJson(DeviceFrame, "{not json");
    expect(parsed).toMatchObject({ ok: false });
    if (!parsed.ok) expect(parsed.error).toMatch(/^malformed JSON/);
  });
});

describe("protocol: webhook body", () => {
  it("accepts the documented body", () => {
    expect(parseValue(MessageRequest, { agent_id: "pi-1", text: "Check the CPU temperature" }).ok).toBe(true);
    expect(parseValue(MessageRequest, { agent_id: "pi-1", conversation_id: "c-1", text: "x" }).ok).toBe(true);
  });

  it("names the failing field", () => {
    const r = parseValue(MessageRequest, { agent_id: "pi-1", text: "" });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.issues[0]!.path).toBe("text");
    const unknown = parseValue(MessageRequest, { agent_id: "pi-1", text: "x", extra: 1 });
    expect(unknown.ok).toBe(false);
  });
});
