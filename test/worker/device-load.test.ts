/**
 * The hub's `getLoad`, which fleet routing asks once per round (docs/fleet.md#routing): it must
 * agree with the whole view (`getDevice`) on what is online and in flight, while reading less.
 */
import { describe, expect, it } from "vitest";
import { connectDevice, deviceView, hub, pairedAgent, uid, waitFor } from "./support/front-door.js";

const dispatch = (agentId: string, request_id: string) =>
  hub(agentId).dispatch({
    request_id,
    conversation_id: uid("conv"),
    tool_call_id: request_id,
    tool: "bash",
    parameters: { command: "true" },
    timeout_ms: 60_000,
  });

describe("a hub's load", () => {
  it("counts every command not yet ended, and drops one when its result comes", async () => {
    const id = uid("load");
    const dev = await connectDevice(id, "s", { DEVICE_TOKENS: `${id}:s` });
    dev.hello();
    await dev.online();
    expect(await hub(id).getLoad(id)).toMatchObject({ online: true, in_flight: 0 });

    await dispatch(id, "c1");
    await dispatch(id, "c2");
    await dev.next((f) => f.type === "command" && f.request_id === "c2");
    const load = await hub(id).getLoad(id);
    expect(load).toMatchObject({ online: true, in_flight: 2 });
    expect(load.last_alive).toBeGreaterThan(0);
    const counts = (await deviceView(id)).commands;
    expect(load.in_flight).toBe((counts.queued ?? 0) + (counts.sent ?? 0) + (counts.accepted ?? 0));

    dev.ws.send(JSON.stringify({ type: "result", request_id: "c1", status: "success", tool: "bash", result: "" }));
    await waitFor(
      () => hub(id).getLoad(id),
      (l) => l.in_flight === 1,
    );
    dev.ws.close(1000, "bye");
  });

  it("counts commands queued for an offline device, which it shows offline and never seen", async () => {
    const id = await pairedAgent("idle");
    expect(await hub(id).getLoad(id)).toEqual({ online: false, in_flight: 0, last_alive: null });
    await dispatch(id, "q1");
    expect(await hub(id).getLoad(id)).toEqual({ online: false, in_flight: 1, last_alive: null });
  });
});
