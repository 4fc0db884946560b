import { describe, expect, it } from "vitest";
import { ConnectParams, negotiateProtocol } from "../../../durable-objects/device-hub/wires/openclaw/gateway-frames.js";
import { answerNodeRequest } from "../../../durable-objects/device-hub/wires/openclaw/node-requests.js";

type Published = Parameters<typeof answerNodeRequest>[1] extends { published: () => infer P } ? P : never;

/** The node's state as the hub keeps it: what it published is kept between requests. */
const deps = (commands: string[] = ["system.run", "mcp.tools.call.v1"]) => {
  let published: Published = { tools: [], skills: [] };
  return {
    ledger: { get: () => null },
    commands: () => commands,
    published: () => published,
    savePublished: (p: Partial<Published>) => {
      published = { ...published, ...p };
    },
    output: { append: () => {}, take: () => "" },
    device: () => ({ skills: [], capabilities: ["system"] }),
    now: 0,
  };
};
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

  it("published skills (SKILL.md) become skills with a workflow, beside the tools; a long one is cut", () => {
    const d = deps();
    const tools = [{ pluginId: "mcp", name: "search", description: "Search", mcp: { server: "s", tool: "search" } }];
    answerNodeRequest(req("node.pluginTools.update", { tools }), d);
    const skills = [
      { name: "garden", description: "Water the garden", content: "---\nname: garden\n---\nRun `water 5`." },
      { name: "long-one", description: "Long", content: "x".repeat(65_536) },
    ];
    const a = answerNodeRequest(req("node.skills.update", { skills }), d);
    expect(a.response).toEqual({ type: "res", id: "q1", ok: true, payload: { ok: true } });
    const manifest = (a.frame as { value: { skills: { name: string; workflow?: string; tools: unknown[] }[] } }).value
      .skills;
    expect(manifest.map((s) => [s.name, s.tools.length])).toEqual([
      ["openclaw-node", 2],
      ["garden", 0],
      ["long-one", 0],
    ]);
    expect(manifest[1]).toMatchObject({ description: "Water the garden", workflow: skills[0]!.content });
    expect(manifest[2]!.workflow!.length).toBe(16_384);
    expect(manifest[2]!.workflow).toMatch(/\[cut: this SKILL.md is 65536 characters/);
    // Tools published later keep the skills.
    const b = answerNodeRequest(req("node.pluginTools.update", { tools: [] }), d);
    expect((b.frame as { value: { skills: { name: string }[] } }).value.skills.map((s) => s.name)).toEqual([
      "openclaw-node",
      "garden",
      "long-one",
    ]);
    // A name OpenClaw would not publish is refused, as its schema does.
    const bad = answerNodeRequest(req("node.skills.update", { skills: [{ ...skills[0], name: "Bad--name" }] }), d);
    expect(bad).toMatchObject({ response: { ok: false, error: { code: "INVALID_REQUEST" } }, frame: null });
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
