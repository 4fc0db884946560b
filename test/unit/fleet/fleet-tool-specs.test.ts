import type { SkillManifest } from "@edgeloop/protocol";
import { describe, expect, it } from "vitest";
import { fleetToolSpecs, modelToolName } from "../../../durable-objects/conversation/fleet/fleet-tool-specs.js";

type Tool = SkillManifest["tools"][number];

function tool(name: string, over: Partial<Tool> = {}): Tool {
  return {
    name,
    description: `${name} tool`,
    binary: `bin/${name}`,
    category: "exec",
    timeout_ms: 30_000,
    max_timeout_ms: 300_000,
    permissions: [],
    sandboxing: "none",
    requires: [],
    parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] },
    ...over,
  };
}

const device = (agent_id: string, ...tools: Tool[]) => ({
  agent_id,
  skills: [{ name: "s", version: "1.0.0", tools }],
});

describe("a fleet's tool names", () => {
  it("names every device's tool {agent_id}__{tool}, routed to that device only", () => {
    const specs = fleetToolSpecs([device("pi-1", tool("bash"), tool("gpio_read")), device("desk-2", tool("bash"))]);
    const byName = new Map(specs.map((s) => [s.name, s]));
    expect(byName.get("pi-1__bash")?.fleet).toEqual({ tool: "bash", agents: ["pi-1"] });
    expect(byName.get("pi-1__gpio_read")?.fleet).toEqual({ tool: "gpio_read", agents: ["pi-1"] });
    expect(byName.get("desk-2__bash")?.fleet).toEqual({ tool: "bash", agents: ["desk-2"] });
    expect(byName.get("pi-1__bash")?.description).toContain("runs on device pi-1");
    // No two specs share a name, whatever the devices call their tools.
    expect(new Set(specs.map((s) => s.name)).size).toBe(specs.length);
  });

  it("offers a tool two devices share with the same parameters under its own name, routed among them", () => {
    const specs = fleetToolSpecs([
      device("pi-1", tool("bash", { max_timeout_ms: 60_000 }), tool("gpio_read")),
      device("desk-2", tool("bash", { timeout_ms: 90_000 })),
    ]);
    const bash = specs.find((s) => s.name === "bash");
    expect(bash?.fleet).toEqual({ tool: "bash", agents: ["pi-1", "desk-2"] });
    // Within what every one of the devices accepts.
    expect(bash).toMatchObject({ max_timeout_ms: 60_000, timeout_ms: 30_000 });
    expect(bash?.description).toContain("whichever of pi-1, desk-2 is online and least busy");
    // A tool only one device has keeps only its device's name.
    expect(specs.some((s) => s.name === "gpio_read")).toBe(false);
  });

  it("offers no device-less name where the devices' parameters differ: the model has to choose", () => {
    const other = { type: "object" as const, properties: { cmd: { type: "string" as const } }, required: ["cmd"] };
    const specs = fleetToolSpecs([device("pi-1", tool("bash")), device("pi-2", tool("bash", { parameters: other }))]);
    expect(specs.map((s) => s.name).sort()).toEqual(["pi-1__bash", "pi-2__bash"]);
  });

  it("leaves out the device name an id cannot make a model tool name of, but keeps it in device-less routes", () => {
    expect(modelToolName("pi-1", "bash")).toBe("pi-1__bash");
    expect(modelToolName("lab.pi:3", "bash")).toBeNull();
    expect(modelToolName("x__y", "bash")).toBeNull();
    expect(modelToolName("a".repeat(60), "bash")).toBeNull();
    const specs = fleetToolSpecs([device("lab.pi", tool("bash")), device("pi-2", tool("bash"))]);
    expect(specs.map((s) => s.name).sort()).toEqual(["bash", "pi-2__bash"]);
    expect(specs.find((s) => s.name === "bash")?.fleet?.agents).toEqual(["lab.pi", "pi-2"]);
  });
});
