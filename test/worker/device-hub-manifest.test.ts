/** The manifest_update frame: a connected device's tools change without a new hello. */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { registryOf } from "../../durable-objects/addresses.js";
import { bashTool, connectDevice, deviceView as device, hub, toolNamed, uid, waitFor } from "./support/front-door.js";

describe("DeviceHubDO manifest updates", () => {
  it("replaces the advertised skills and reports the new tools to the registry", async () => {
    const agent = uid("pi-mu");
    const dev = await connectDevice(agent, "s", { DEVICE_TOKENS: `${agent}:s` });
    dev.hello();
    await dev.online();
    dev.ws.send(
      JSON.stringify({
        type: "manifest_update",
        capabilities: ["shell"],
        skills: [{ name: "test-tools", version: "1.0.0", tools: [bashTool, toolNamed("late_tool")] }],
        filtered: [{ skill: "mcp", tool: "task_tool", reason: "needs MCP tasks" }],
      }),
    );
    const view = await waitFor(
      () => device(agent),
      (v) => v.skills[0]!.tools.length === 2,
    );
    expect(view.filtered).toEqual([{ skill: "mcp", tool: "task_tool", reason: "needs MCP tasks" }]);
    expect((await hub(agent).getSkills(agent))[0]!.tools.map((t) => t.name)).toEqual(["bash", "late_tool"]);
    const listed = await waitFor(
      () => registryOf(env).get(agent),
      (d) => d?.tools.includes("late_tool") ?? false,
    );
    expect(listed!.online).toBe(true);
    expect(view.counters.rejected_frames ?? 0).toBe(0);
    dev.ws.close(1000, "done");
  });

  it("is refused before hello, like a result", async () => {
    const agent = uid("pi-mu0");
    const dev = await connectDevice(agent, "s", { DEVICE_TOKENS: `${agent}:s` });
    dev.ws.send(JSON.stringify({ type: "manifest_update", skills: [] }));
    const rejected = await dev.next((f) => f.type === "rejected");
    expect(rejected.reason).toBe("'manifest_update' before hello");
    dev.ws.close(1000, "done");
  });
});
