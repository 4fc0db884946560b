import type { HubFrame } from "@edgeloop/protocol";
import { describe, expect, it } from "vitest";
import { nodeEventFor, readNodeRequest } from "../../../durable-objects/device-hub/wires/openclaw/node-codec.js";
import { skillsFor } from "../../../durable-objects/device-hub/wires/openclaw/node-tools.js";

const tools = skillsFor(["system.run", "system.which"]).flatMap((s) => s.tools);
const command = (tool: string, parameters: Record<string, unknown>, timeout_ms = 5000): HubFrame => ({
  type: "command",
  command: "tool",
  request_id: "r1",
  payload: { tool, parameters, timeout_ms, request_id: "r1" },
});

describe("the OpenClaw wire decodes a node's text as the request it makes", () => {
  it("a request frame is read with its id, method and params", () => {
    const read = readNodeRequest(JSON.stringify({ type: "req", id: "q1", method: "connect", params: { a: 1 } }));
    expect(read).toEqual({ ok: true, value: { type: "req", id: "q1", method: "connect", params: { a: 1 } } });
  });

  it("text that is not JSON, or not a request, is refused with why", () => {
    expect(readNodeRequest("not json")).toEqual({ ok: false, error: "not JSON", issues: [] });
    const event = readNodeRequest(JSON.stringify({ type: "event", event: "tick", payload: {} }));
    expect(event.ok).toBe(false);
    expect(!event.ok && event.error).toMatch(/^not a request frame/);
    expect(readNodeRequest(JSON.stringify({ type: "req", id: "", method: "connect" })).ok).toBe(false);
  });
});

describe("the OpenClaw wire encodes the hub's frames as the events a node reads", () => {
  it("a tool command becomes node.invoke.request for the node command the tool runs", () => {
    const text = nodeEventFor(command("system_run", { command: ["ls"], timeout_ms: 99 }), "node-1", tools);
    expect(typeof text).toBe("string");
    const sent = JSON.parse(text as string);
    expect(sent).toMatchObject({
      type: "event",
      event: "node.invoke.request",
      payload: { id: "r1", nodeId: "node-1", command: "system.run", timeoutMs: 5000, idempotencyKey: "r1" },
    });
    // The call's own timeout is the invoke's, not a parameter the node sees.
    expect(JSON.parse(sent.payload.paramsJSON)).toEqual({ command: ["ls"], timeoutMs: 5000 });
  });

  it("a cancel becomes node.invoke.cancel", () => {
    const text = nodeEventFor({ type: "command", command: "cancel", request_id: "r1" }, "node-1", []);
    expect(JSON.parse(text as string)).toEqual({
      type: "event",
      event: "node.invoke.cancel",
      payload: { invokeId: "r1", nodeId: "node-1" },
    });
  });

  it("acks and refusals are nothing a node reads: sent, nothing written", () => {
    expect(nodeEventFor({ type: "ack", request_ids: ["r1"] }, "node-1", tools)).toBeNull();
    expect(nodeEventFor({ type: "rejected", reason: "bad", request_id: "r1" }, "node-1", tools)).toBeNull();
  });

  it("a command before the node signed in, or for a tool it no longer has, is not sent", () => {
    expect(nodeEventFor(command("system_run", { command: ["ls"] }), undefined, tools)).toBe(false);
    expect(nodeEventFor({ type: "command", command: "cancel", request_id: "r1" }, undefined, tools)).toBe(false);
    expect(nodeEventFor(command("camera_snap", {}), "node-1", tools)).toBe(false);
  });
});
