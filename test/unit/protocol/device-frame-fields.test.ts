/**
 * Each field of the frames a device and its hub exchange, as the other end reads it: what a missing
 * field becomes, which optional field is kept, and which is dropped instead of refusing the frame.
 */

import {
  DeviceFrame,
  HubFrame,
  PING_FRAME,
  PONG_FRAME,
  parseDeviceFrame,
  parseHubFrame,
  parseValue,
  ToolCommandFrame,
} from "@edgeloop/protocol";
import { describe, expect, it } from "vitest";

const payload = { tool: "bash", parameters: { command: "ls" }, timeout_ms: 30000, request_id: "req-1" };
const command = { type: "command", command: "tool", request_id: "req-1", payload };
const traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
const limits = { max_width: 1568, max_height: 1568, max_bytes: 3_932_160 };
const success = { type: "result", request_id: "req-1", status: "success", tool: "bash", result: "ok\n" };
const failure = { ...success, status: "error", result: undefined, error: "boom", error_type: "execution_failed" };
const value = <T>(parsed: { ok: true; value: T } | { ok: false; error: string }): T => {
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value;
};

describe("the heartbeat", () => {
  it("is a ping answered by a pong, as JSON frames", () => {
    expect(JSON.parse(PING_FRAME)).toEqual({ type: "ping" });
    expect(JSON.parse(PONG_FRAME)).toEqual({ type: "pong" });
  });
});

describe("a tool command's optional fields", () => {
  it("keeps the trace and the image limits it carries", () => {
    const parsed = value(
      parseHubFrame(JSON.stringify({ ...command, payload: { ...payload, traceparent, image_limits: limits } })),
    );
    expect(parsed).toEqual({ ...command, payload: { ...payload, traceparent, image_limits: limits } });
  });

  it("drops a malformed trace or image limits and still takes the command", () => {
    for (const bad of [
      { traceparent: "00-xyz" },
      { image_limits: { ...limits, max_width: 0 } },
      { image_limits: { max_width: 10 } },
    ]) {
      const parsed = value(parseValue(ToolCommandFrame, { ...command, payload: { ...payload, ...bad } }));
      expect(parsed, JSON.stringify(bad)).toEqual(command);
    }
  });

  it("refuses parameters that are not an object", () => {
    expect(parseValue(ToolCommandFrame, { ...command, payload: { ...payload, parameters: ["ls"] } }).ok).toBe(false);
  });
});

describe("the hub's other frames", () => {
  it("takes a rejection with or without the request it names", () => {
    expect(value(parseHubFrame('{"type":"rejected","reason":"bad frame","request_id":"r1"}'))).toEqual({
      type: "rejected",
      reason: "bad frame",
      request_id: "r1",
    });
    expect(parseValue(HubFrame, { type: "rejected" }).ok).toBe(false);
    expect(parseValue(HubFrame, { type: "ack", request_ids: ["a b"] }).ok).toBe(false);
  });
});

describe("a hello", () => {
  const hello = { type: "hello", protocol: 1, agent_id: "pi-1", version: "0.1.0" };

  it("fills every list it leaves out with an empty one", () => {
    expect(value(parseDeviceFrame(JSON.stringify(hello)))).toEqual({
      ...hello,
      capabilities: [],
      skills: [],
      held: [],
      filtered: [],
    });
  });

  it("keeps the tools it filtered out, with why", () => {
    const filtered = [{ skill: "desk", tool: "gpu", reason: "binary nvidia-smi not found" }];
    expect(value(parseValue(DeviceFrame, { ...hello, filtered }))).toMatchObject({ filtered });
    expect(parseValue(DeviceFrame, { ...hello, filtered: [{ skill: "desk", tool: "gpu" }] }).ok).toBe(false);
  });

  it("takes a version of up to 64 characters", () => {
    expect(parseValue(DeviceFrame, { ...hello, version: "v".repeat(64) }).ok).toBe(true);
    expect(parseValue(DeviceFrame, { ...hello, version: "v".repeat(65) }).ok).toBe(false);
  });
});

describe("a result", () => {
  it("fills a success's stderr, exit code and time when the device leaves them out", () => {
    expect(value(parseDeviceFrame(JSON.stringify(success)))).toEqual({
      ...success,
      stderr: "",
      exit_code: 0,
      elapsed_ms: 0,
    });
  });

  it("keeps the report of output cut at the agent's cap, on a success and an error", () => {
    const cut = { truncated: true, bytes_total: 2_000_000, bytes_returned: 1_048_576 };
    expect(value(parseDeviceFrame(JSON.stringify({ ...success, ...cut })))).toMatchObject(cut);
    expect(value(parseDeviceFrame(JSON.stringify({ ...failure, ...cut })))).toMatchObject(cut);
    expect(parseValue(DeviceFrame, { ...success, bytes_total: -1 }).ok).toBe(false);
    expect(parseValue(DeviceFrame, { ...success, bytes_returned: 1.5 }).ok).toBe(false);
  });

  it("leaves an error's optional fields out when the device does", () => {
    const parsed = value(parseDeviceFrame(JSON.stringify(failure)));
    expect(parsed).toEqual({
      type: "result",
      request_id: "req-1",
      status: "error",
      tool: "bash",
      error: "boom",
      error_type: "execution_failed",
    });
    const full = { ...failure, elapsed_ms: 5, stderr: "e", exit_code: 2 };
    expect(value(parseDeviceFrame(JSON.stringify(full)))).toMatchObject({ elapsed_ms: 5, stderr: "e", exit_code: 2 });
  });
});

describe("the device's other frames", () => {
  it("takes an accepted frame, from the agent unless it says the broker", () => {
    expect(value(parseDeviceFrame('{"type":"accepted","request_id":"r1"}'))).toEqual({
      type: "accepted",
      request_id: "r1",
      by: "agent",
    });
    expect(value(parseDeviceFrame('{"type":"accepted","request_id":"r1","by":"broker"}'))).toMatchObject({
      by: "broker",
    });
    expect(value(parseDeviceFrame('{"type":"accepted","request_id":"r1","by":"agent"}'))).toMatchObject({
      by: "agent",
    });
    expect(parseDeviceFrame('{"type":"accepted","request_id":"r1","by":"bridge"}').ok).toBe(false);
  });

  it("takes progress with content", () => {
    const progress = { type: "progress", request_id: "r1", content: [{ type: "text", text: "half way" }] };
    expect(value(parseDeviceFrame(JSON.stringify(progress)))).toEqual(progress);
  });

  it("takes a manifest update, its lists empty when left out", () => {
    expect(value(parseDeviceFrame('{"type":"manifest_update"}'))).toEqual({
      type: "manifest_update",
      capabilities: [],
      skills: [],
      filtered: [],
    });
  });
});
