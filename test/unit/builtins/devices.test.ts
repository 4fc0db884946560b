import { describe, expect, it } from "vitest";
import { agentsList } from "../../../durable-objects/conversation/builtins/agents-list.js";
import { nodes } from "../../../durable-objects/conversation/builtins/nodes.js";
import { skill } from "../../../durable-objects/conversation/builtins/skill.js";
import { device, fakeWorld, NOW } from "./fake-context.js";
import { errorOf, successJson, successText } from "./run.js";

describe("agents_list", () => {
  it("lists every known device with online state and tools", async () => {
    const world = fakeWorld();
    world.devices.set(
      "desk-2",
      device("desk-2", { online: false, last_seen: null, version: null, tools: ["git_status"] }),
    );
    expect(await successJson(agentsList, {}, world.ctx)).toEqual([
      {
        agent_id: "pi-1",
        online: true,
        current: true,
        version: "1.2.3",
        last_seen: new Date(NOW - 1000).toISOString(),
        tools: ["bash", "read"],
      },
      { agent_id: "desk-2", online: false, current: false, version: null, last_seen: null, tools: ["git_status"] },
    ]);
  });
});

describe("nodes", () => {
  it("details this conversation's device by default", async () => {
    const { ctx } = fakeWorld();
    expect(await successJson(nodes, {}, ctx)).toEqual({
      agent_id: "pi-1",
      online: true,
      version: "1.2.3",
      last_seen: new Date(NOW - 1000).toISOString(),
      capabilities: ["shell", "file_read"],
      skills: [
        { name: "desktop-tools", has_workflow: true, tools: ["bash", "read"] },
        { name: "pi-tools", has_workflow: false, tools: ["gpio_read"] },
      ],
    });
  });

  it("details another known device", async () => {
    const world = fakeWorld();
    world.devices.set("desk-2", device("desk-2", { online: false, capabilities: ["git"] }));
    const details = await successJson<{ agent_id: string; online: boolean; capabilities: string[] }>(
      nodes,
      { agent_id: "desk-2" },
      world.ctx,
    );
    expect(details).toMatchObject({ agent_id: "desk-2", online: false, capabilities: ["git"] });
  });

  it("says not_found for a device the registry does not know, naming the known ones", async () => {
    const { ctx } = fakeWorld();
    const err = await errorOf(nodes, { agent_id: "ghost" }, ctx);
    expect(err.error_type).toBe("not_found");
    expect(err.error).toContain("pi-1");
  });
});

describe("skill", () => {
  it("returns the workflow of a skill on this device", async () => {
    const { ctx } = fakeWorld();
    const text = await successText(skill, { name: "desktop-tools" }, ctx);
    expect(text).toContain("# Skill: desktop-tools");
    expect(text).toContain("Read before you write.");
  });

  it("not_found for an unknown skill lists the skills", async () => {
    const { ctx } = fakeWorld();
    const err = await errorOf(skill, { name: "cooking" }, ctx);
    expect(err.error_type).toBe("not_found");
    expect(err.error).toContain("desktop-tools, pi-tools");
  });

  it("a skill without a workflow is a clear error naming its tools", async () => {
    const { ctx } = fakeWorld();
    const err = await errorOf(skill, { name: "pi-tools" }, ctx);
    expect(err.error).toContain("has no workflow");
    expect(err.error).toContain("gpio_read");
  });

  it("only looks at this conversation's device", async () => {
    const world = fakeWorld();
    world.devices.set("desk-2", device("desk-2", { skills: [{ name: "desk-only", workflow: "w", tools: [] }] }));
    expect((await errorOf(skill, { name: "desk-only" }, world.ctx)).error_type).toBe("not_found");
  });
});
