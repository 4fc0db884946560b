import { describe, expect, it } from "vitest";
import { rendezvousPick } from "../../durable-objects/registry/rendezvous.js";
import {
  ADMIN,
  API,
  call,
  connectDevice,
  type Device,
  postMessage,
  toolNamed,
  uid,
  waitFor,
} from "./support/front-door.js";

async function online(agent: string, tools = [toolNamed("bash")]): Promise<Device> {
  const dev = await connectDevice(agent, "s", { DEVICE_TOKENS: `${agent}:s` });
  dev.hello(tools);
  await dev.online();
  await waitFor(
    () =>
      call("/v1/devices", { headers: ADMIN }).then(
        (r) => r.json() as Promise<{ devices: { agent_id: string; online: boolean }[] }>,
      ),
    (v) => v.devices.some((d) => d.agent_id === agent && d.online),
  );
  return dev;
}

async function send(vars: Record<string, string>, body: Record<string, unknown>) {
  const res = await postMessage(body, API, vars);
  return {
    status: res.status,
    headers: res.headers,
    body: (await res.json()) as { agent_id?: string; title?: string },
  };
}

describe("pool routing", () => {
  it("picks an online device that has the tools, by rendezvous hashing, and sticks to it", async () => {
    const [p1, p2, p3] = [uid("p1"), uid("p2"), uid("p3")];
    const pool = uid("pool");
    const vars = { POOLS: `${pool}:${p1}|${p2}|${p3}` };
    const d1 = await online(p1, [toolNamed("bash")]);
    const d2 = await online(p2, [toolNamed("bash"), toolNamed("gpio_read")]);

    // Only p2 has gpio_read.
    const gpio = await send(vars, { pool, tools: ["gpio_read"], conversation_id: uid("c"), text: "pin 17?" });
    expect(gpio.status).toBe(202);
    expect(gpio.body.agent_id).toBe(p2);

    // Without a tool requirement: the rendezvous winner over the online members (p3 is offline).
    const convs = Array.from({ length: 6 }, () => uid("c"));
    for (const conv of convs) {
      const r = await send(vars, { pool, conversation_id: conv, text: "hi" });
      expect(r.status).toBe(202);
      expect(r.body.agent_id).toBe(rendezvousPick(conv, [p1, p2]));
    }

    // A conversation whose hash would now go to p3 stays where it is when p3 comes online.
    let moving = uid("c");
    while (rendezvousPick(moving, [p1, p2, p3]) !== p3) moving = uid("c");
    const first = await send(vars, { pool, conversation_id: moving, text: "one" });
    const home = first.body.agent_id;
    expect([p1, p2]).toContain(home);
    const d3 = await online(p3, [toolNamed("bash")]);
    const second = await send(vars, { pool, conversation_id: moving, text: "two" });
    expect(second.status).toBe(202);
    expect(second.body.agent_id).toBe(home);
    // A new conversation with the same preference goes to p3 now that it is online.
    let fresh = uid("c");
    while (rendezvousPick(fresh, [p1, p2, p3]) !== p3) fresh = uid("c");
    expect((await send(vars, { pool, conversation_id: fresh, text: "hi" })).body.agent_id).toBe(p3);

    // When no online member has the tools: 503 with Retry-After.
    d2.ws.close(1000, "bye");
    await waitFor(
      () =>
        call("/v1/devices", { headers: ADMIN }).then(
          (r) => r.json() as Promise<{ devices: { agent_id: string; online: boolean }[] }>,
        ),
      (v) => v.devices.some((d) => d.agent_id === p2 && !d.online),
    );
    const none = await send(vars, { pool, tools: ["gpio_read"], conversation_id: uid("c"), text: "pin?" });
    expect(none.status).toBe(503);
    expect(none.headers.get("retry-after")).toBe("5");
    expect(none.body.title).toBe("No device available");
    d1.ws.close(1000, "bye");
    d3.ws.close(1000, "bye");
  });

  it("moves a pooled conversation to another device when its device goes offline", async () => {
    const [a, b] = [uid("fa"), uid("fb")];
    const pool = uid("pool");
    const vars = { POOLS: `${pool}:${a}|${b}` };
    const da = await online(a);
    const db = await online(b);
    const conv = uid("c");
    const first = await send(vars, { pool, conversation_id: conv, text: "one" });
    expect(first.status).toBe(202);
    const home = first.body.agent_id!;
    const [homeDev, otherDev, other] = home === a ? [da, db, b] : [db, da, a];
    homeDev.ws.close(1000, "gone");
    await waitFor(
      () =>
        call("/v1/devices", { headers: ADMIN }).then(
          (r) => r.json() as Promise<{ devices: { agent_id: string; online: boolean }[] }>,
        ),
      (v) => v.devices.some((d) => d.agent_id === home && !d.online),
    );
    // The first message's run has ended (the test model is unreachable), so the conversation may move.
    await waitFor(
      () => call(`/v1/conversations/${conv}`, { headers: API }).then((r) => r.json() as Promise<{ status: string }>),
      (v) => v.status !== "running",
    );
    const second = await send(vars, { pool, conversation_id: conv, text: "two" });
    expect(second.status).toBe(202);
    expect(second.body.agent_id).toBe(other);
    const view = (await (await call(`/v1/conversations/${conv}`, { headers: API })).json()) as { agent_id: string };
    expect(view.agent_id).toBe(other);
    otherDev.ws.close(1000, "bye");
  });

  it("refuses an unknown pool and a message naming both or neither of agent_id and pool", async () => {
    expect((await send({ POOLS: "a:x" }, { pool: "nope", text: "hi" })).status).toBe(400);
    expect((await send({ POOLS: "a:x" }, { pool: "a", agent_id: "x", text: "hi" })).status).toBe(400);
    expect((await send({}, { text: "hi" })).status).toBe(400);
  });
});
