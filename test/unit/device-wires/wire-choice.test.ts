import type { HubFrame } from "@edgeloop/protocol";
import { describe, expect, it } from "vitest";
import { WIRE_NAMES, wireNamed } from "../../../durable-objects/device-hub/wires/device-wire.js";
import { decodeEdgeloopFrame, encodeEdgeloopFrame } from "../../../durable-objects/device-hub/wires/edgeloop-codec.js";

describe("the hub picks a socket's wire once, from the name its route gives", () => {
  it("names each wire the hub speaks, and nothing else", () => {
    expect(WIRE_NAMES).toEqual(["edgeloop", "openclaw"]);
    expect(wireNamed("edgeloop")).toBe("edgeloop");
    expect(wireNamed("openclaw")).toBe("openclaw");
  });

  it("no name, or one it does not speak, picks no wire (the upgrade is refused)", () => {
    for (const value of [null, undefined, "", "OpenClaw", "mqtt", "edgeloop ", "toString", "__proto__"])
      expect(wireNamed(value)).toBeNull();
  });
});

describe("edgeloop's own wire", () => {
  it("decodes the protocol's device frames as they are", () => {
    const hello = {
      type: "hello",
      protocol: 1,
      agent_id: "pi-1",
      version: "1.0.0",
      capabilities: ["fs"],
      skills: [],
      held: ["r1"],
    };
    const decoded = decodeEdgeloopFrame(JSON.stringify(hello));
    expect(decoded.ok).toBe(true);
    expect(decoded.ok && decoded.value).toMatchObject({ type: "hello", agent_id: "pi-1", held: ["r1"] });
    const result = decodeEdgeloopFrame(
      JSON.stringify({ type: "result", request_id: "r1", status: "success", tool: "bash", result: "ok" }),
    );
    expect(result.ok && result.value).toMatchObject({ type: "result", request_id: "r1", status: "success" });
  });

  it("refuses text that is not one of its frames, naming why", () => {
    const notJson = decodeEdgeloopFrame("{nope");
    expect(notJson.ok).toBe(false);
    const unknown = decodeEdgeloopFrame(JSON.stringify({ type: "node.invoke.result", id: "x" }));
    expect(unknown.ok).toBe(false);
    expect(!unknown.ok && unknown.error).toMatch(/type/);
  });

  it("encodes a hub frame as the frame itself, so the agent and the bridge read it unchanged", () => {
    const frames: HubFrame[] = [
      { type: "command", command: "cancel", request_id: "r1" },
      { type: "ack", request_ids: ["r1", "r2"] },
      { type: "rejected", reason: "duplicate result for 'r1'", request_id: "r1" },
    ];
    for (const frame of frames) expect(JSON.parse(encodeEdgeloopFrame(frame))).toEqual(frame);
  });
});
