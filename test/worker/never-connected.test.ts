import { describe, expect, it } from "vitest";
import { API, connectDevice, hub, postMessage, uid } from "./support/front-door.js";

/**
 * A device that was given a token (paired, or `tokens create`) but never connected has no known
 * tools: a message to it is refused saying so, never run into a "tool not found" that completes.
 */
describe("a paired device that never connected", () => {
  it("refuses a message with what to start on the device, and takes messages once it has connected", async () => {
    const agent = uid("pi");
    const { token } = await hub(agent).issueToken(agent);
    const refused = await postMessage({ agent_id: agent, text: "how full is the disk?" }, API);
    expect(refused.status).toBe(409);
    const problem = (await refused.json()) as { detail: string };
    expect(problem.detail).toContain(`${agent} was paired but has never connected; start it on the device`);
    expect(problem.detail).toContain("systemctl start edgeloop-agent");

    const device = await connectDevice(agent, token);
    device.hello();
    await device.online();
    expect((await postMessage({ agent_id: agent, text: "how full is the disk?" }, API)).status).toBe(202);
    device.ws.close(1000, "done");
  });
});
