import { describe, expect, it } from "vitest";
import { API, connectDevice, deviceView, hub, postMessage, uid, waitFor } from "./support/front-door.js";

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
    // Taken now, and waited for to its end (the scripted model is unreachable here, so it fails at
    // once), so nothing of the run outlives the test.
    const taken = await postMessage({ agent_id: agent, text: "how full is the disk?" }, API, {}, "?wait=10");
    expect(taken.status).toBe(200);
    expect(((await taken.json()) as { status: string }).status).not.toBe("running");
    device.ws.close(1000, "done");
    await waitFor(
      () => deviceView(agent),
      (v) => !v.online,
    );
  });
});
