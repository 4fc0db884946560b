import { env, runInDurableObject } from "cloudflare:test";
import { PING_FRAME, PONG_FRAME } from "@edgeloop/protocol";
import { describe, expect, it } from "vitest";
import { registryOf } from "../../durable-objects/addresses.js";
import type { DeviceHubDO } from "../../durable-objects/device-hub/device-hub-do.js";
import { ADMIN, API, call, connectDevice, deviceView, hub, uid, waitFor } from "./support/front-door.js";

const tokensVars = (agent: string, secret: string) => ({ DEVICE_TOKENS: `${agent}:${secret}` });

async function issue(agent: string): Promise<{ token_id: string; token: string }> {
  const res = await call(`/v1/devices/${agent}/tokens`, { method: "POST", headers: ADMIN });
  expect(res.status).toBe(201);
  return (await res.json()) as { token_id: string; token: string };
}

async function registryDevice(agent: string) {
  const res = await call("/v1/devices", { headers: ADMIN });
  expect(res.status).toBe(200);
  return (
    (await res.json()) as {
      devices: { agent_id: string; online: boolean; version: string; tools: string[]; last_change: string }[];
    }
  ).devices.find((d) => d.agent_id === agent);
}

describe("per-device tokens", () => {
  it("issues a token once (admin only), stores only its hash, and the token connects its own device", async () => {
    const agent = uid("tok");
    expect((await call(`/v1/devices/${agent}/tokens`, { method: "POST", headers: API })).status).toBe(403);
    const issued = await issue(agent);
    expect(issued.token).toMatch(/^edl_/);
    const listed = await call(`/v1/devices/${agent}/tokens`, { headers: ADMIN });
    const listText = await listed.text();
    expect(listText).toContain(issued.token_id);
    expect(listText).not.toContain(issued.token);
    // Only the SHA-256 is in the hub's storage.
    const stored = await runInDurableObject(hub(agent), async (_o: DeviceHubDO, state) =>
      state.storage.sql.exec<{ hash: string }>("SELECT hash FROM token").toArray(),
    );
    expect(stored).toHaveLength(1);
    expect(stored[0]!.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(stored)).not.toContain(issued.token);

    const dev = await connectDevice(agent, issued.token);
    dev.hello();
    await dev.online();
    dev.ws.close(1000, "done");
  });

  it("refuses a token used for another agent id", async () => {
    const a = uid("tok-a");
    const b = uid("tok-b");
    const issued = await issue(a);
    const res = await call(`/v1/devices/${b}/connect`, {
      headers: { upgrade: "websocket", authorization: `Bearer ${issued.token}` },
    });
    expect(res.status).toBe(401);
    expect(res.headers.get("content-type")).toContain("application/problem+json");
    // An env token of one device does not open another either.
    const envTok = await call(
      `/v1/devices/${b}/connect`,
      { headers: { upgrade: "websocket", authorization: "Bearer env-secret-a" } },
      tokensVars(a, "env-secret-a"),
    );
    expect(envTok.status).toBe(401);
  });

  it("revoking a token closes the socket that used it at once (4001), and the token stops working", async () => {
    const agent = uid("tok-r");
    const keep = await issue(agent);
    const gone = await issue(agent);
    const dev = await connectDevice(agent, gone.token);
    dev.hello();
    await dev.online();
    const res = await call(`/v1/devices/${agent}/tokens/${gone.token_id}`, { method: "DELETE", headers: ADMIN });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ revoked: true, sockets_closed: 1 });
    const closed = await Promise.race([dev.closed, new Promise<null>((r) => setTimeout(() => r(null), 2000))]);
    expect(closed?.code).toBe(4001);
    expect((await deviceView(agent)).online).toBe(false);
    const again = await call(`/v1/devices/${agent}/connect`, {
      headers: { upgrade: "websocket", authorization: `Bearer ${gone.token}` },
    });
    expect(again.status).toBe(401);
    // The other token (rotation) and DEVICE_TOKENS still work.
    const other = await connectDevice(agent, keep.token);
    other.ws.close(1000, "done");
    const viaEnv = await connectDevice(agent, "env-secret", tokensVars(agent, "env-secret"));
    viaEnv.ws.close(1000, "done");
    expect(
      (await call(`/v1/devices/${agent}/tokens/${gone.token_id}`, { method: "DELETE", headers: ADMIN })).status,
    ).toBe(404);
  });
});

describe("frames a device may not send", () => {
  it("refuses a result for another device's request, a second result, and a result before hello", async () => {
    const a = uid("fr-a");
    const b = uid("fr-b");
    const devA = await connectDevice(a, "sa", tokensVars(a, "sa"));
    devA.hello();
    await devA.online();
    const devB = await connectDevice(b, "sb", tokensVars(b, "sb"));
    const early = { type: "result", request_id: "r-early", status: "success", tool: "bash", result: "x" };
    devB.ws.send(JSON.stringify(early));
    expect((await devB.next((f) => f.type === "rejected")).reason).toContain("before hello");
    devB.hello();
    await devB.online();

    const rid = uid("req");
    await hub(a).dispatch({
      request_id: rid,
      conversation_id: uid("conv"),
      tool_call_id: "call_1",
      tool: "bash",
      parameters: { command: "ls" },
      timeout_ms: 30000,
    });
    await devA.next((f) => f.type === "command");
    const result = {
      type: "result",
      request_id: rid,
      status: "success",
      tool: "bash",
      result: "ok",
      stderr: "",
      exit_code: 0,
      elapsed_ms: 3,
    };
    devB.ws.send(JSON.stringify(result));
    expect((await devB.next((f) => f.type === "rejected" && f.request_id === rid)).reason).toContain(
      "unknown request_id",
    );
    expect((await deviceView(a)).commands).toMatchObject({ sent: 1, done: 0 });

    devA.ws.send(JSON.stringify(result));
    await devA.next((f) => f.type === "ack");
    devA.ws.send(JSON.stringify(result));
    expect((await devA.next((f) => f.type === "rejected")).reason).toContain("duplicate");
    const view = await deviceView(a);
    expect(view.counters.duplicate_results).toBe(1);
    expect(view.commands).toMatchObject({ sent: 0, done: 1 });
    expect((await deviceView(b)).counters.rejected_frames).toBe(2);
    devA.ws.close(1000, "done");
    devB.ws.close(1000, "done");
  });

  it("refuses an oversized frame and closes the socket with 4008 after repeated bad frames", async () => {
    const agent = uid("fr-big");
    const dev = await connectDevice(agent, "s", tokensVars(agent, "s"));
    dev.hello();
    await dev.online();
    dev.ws.send(
      JSON.stringify({
        type: "progress",
        request_id: "r",
        content: [{ type: "text", text: "x".repeat(4 * 1024 * 1024 + 10) }],
      }),
    );
    expect((await dev.next((f) => f.type === "rejected")).reason).toContain("frame over");
    expect((await deviceView(agent)).counters.oversized_frames).toBe(1);
    for (let i = 0; i < 4; i++) dev.ws.send('{"type":"nonsense"}');
    const closed = await dev.closed;
    expect(closed.code).toBe(4008);
    expect(closed.reason).toBe("too many invalid frames");
  });
});

describe("heartbeat and registry", () => {
  it("sees auto-answered pings, lists the device, and marks it offline after missed heartbeats", async () => {
    const agent = uid("hb");
    const dev = await connectDevice(agent, "s", tokensVars(agent, "s"));
    dev.hello();
    await dev.online();
    const listed = await waitFor(
      () => registryDevice(agent),
      (d) => d?.online === true,
    );
    expect(listed).toMatchObject({ online: true, version: "9.9.9", tools: ["bash"], last_change: "hello" });
    expect((await call(`/v1/devices/${agent}`, { headers: ADMIN })).status).toBe(200);

    await new Promise((r) => setTimeout(r, 300));
    const pingedAt = Date.now();
    dev.ws.send(PING_FRAME);
    await waitFor(
      async () => dev.raw,
      (r) => r.includes(PONG_FRAME),
    );
    // The ping never reached the object, yet the hub knows it was answered.
    const view = await deviceView(agent);
    expect(view.last_alive).toBeGreaterThanOrEqual(pingedAt - 5);

    // Within 3 × 20 s of the ping nothing happens; past it the device is offline.
    await runInDurableObject(hub(agent), (o: DeviceHubDO) => o.runChecks(pingedAt + 50_000));
    expect((await deviceView(agent)).online).toBe(true);
    await runInDurableObject(hub(agent), (o: DeviceHubDO) => o.runChecks(pingedAt + 61_000));
    const closed = await dev.closed;
    expect(closed.code).toBe(4010);
    expect((await deviceView(agent)).online).toBe(false);
    expect(await registryDevice(agent)).toMatchObject({
      online: false,
      last_change: "heartbeat_missed",
      tools: ["bash"],
    });
  });

  it("the registry follows a plain disconnect", async () => {
    const agent = uid("reg");
    const dev = await connectDevice(agent, "s", tokensVars(agent, "s"));
    dev.hello();
    await waitFor(
      () => registryDevice(agent),
      (d) => d?.online === true,
    );
    dev.ws.close(1000, "bye");
    await waitFor(
      () => registryDevice(agent),
      (d) => d?.online === false,
    );
    expect((await registryOf(env).get(agent))?.last_change).toBe("close");
  });
});
