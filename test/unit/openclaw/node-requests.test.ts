import { describe, expect, it } from "vitest";
import { ConnectParams, negotiateProtocol } from "../../../durable-objects/device-hub/wires/openclaw/gateway-frames.js";
import { answerNodeRequest } from "../../../durable-objects/device-hub/wires/openclaw/node-requests.js";

const deps = (commands: string[] = ["system.run", "mcp.tools.call.v1"]) => ({
  ledger: { get: () => null },
  commands: () => commands,
  device: () => ({ skills: [], capabilities: ["system"] }),
  now: 0,
});
const req = (method: string, params: unknown) => ({ type: "req" as const, id: "q1", method, params });

describe("every request a node makes is answered", () => {
  it("an empty progress chunk is the node's heartbeat: the command is taken; text is progress", () => {
    const beat = answerNodeRequest(
      req("node.invoke.progress", { invokeId: "r1", nodeId: "n", seq: 0, chunk: "" }),
      deps(),
    );
    expect(beat.response).toEqual({ type: "res", id: "q1", ok: true, payload: { ok: true } });
    expect(beat.frame).toEqual({ ok: true, value: { type: "accepted", request_id: "r1", by: "agent" } });
    const text = answerNodeRequest(
      req("node.invoke.progress", { invokeId: "r1", nodeId: "n", seq: 1, chunk: "50%" }),
      deps(),
    );
    expect(text.frame).toEqual({
      ok: true,
      value: { type: "progress", request_id: "r1", content: [{ type: "text", text: "50%" }] },
    });
  });

  it("published MCP tools replace the node's tools, keeping its capabilities", () => {
    const tools = [{ pluginId: "mcp", name: "search", description: "Search", mcp: { server: "s", tool: "search" } }];
    const a = answerNodeRequest(req("node.pluginTools.update", { tools }), deps());
    expect(a.frame).toMatchObject({
      ok: true,
      value: {
        type: "manifest_update",
        capabilities: ["system"],
        skills: [{ tools: [{ name: "system_run" }, { name: "search" }] }],
      },
    });
  });

  it("a malformed request or an unknown method gets an error response, and nothing reaches the hub", () => {
    expect(answerNodeRequest(req("node.invoke.result", { id: "r1" }), deps())).toMatchObject({
      response: { ok: false, error: { code: "INVALID_REQUEST" } },
      frame: null,
    });
    expect(answerNodeRequest(req("chat.send", {}), deps()).response).toEqual({
      type: "res",
      id: "q1",
      ok: false,
      error: { code: "INVALID_REQUEST", message: "unknown method: chat.send" },
    });
    expect(answerNodeRequest(req("skills.bins", {}), deps()).response).toMatchObject({
      ok: true,
      payload: { bins: [] },
    });
  });
});

describe("protocol negotiation", () => {
  const params = (min: number, max: number, mode = "node") =>
    ConnectParams.parse({
      minProtocol: min,
      maxProtocol: max,
      client: { id: "x", mode },
      role: mode === "node" ? "node" : "operator",
    });
  it("speaks 4, and 3 to a node that asks for it, not to an operator", () => {
    expect(negotiateProtocol(params(3, 4))).toBe(4);
    expect(negotiateProtocol(params(3, 3))).toBe(3);
    expect(negotiateProtocol(params(3, 3, "ui"))).toBeNull();
    expect(negotiateProtocol(params(5, 6))).toBeNull();
  });
});
