import { env, runDurableObjectAlarm, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { DeviceView } from "../../durable-objects/device-hub/device-hub-do.js";
import { PING_FRAME, PONG_FRAME } from "../../protocol/index.js";
import { bashToolManifest } from "../fixtures/bash-tool-manifest.js";

type Frame = Record<string, unknown>;

/** A device: a real WebSocket through the worker's connect route, collecting what the hub sends. */
async function connectDevice(agentId: string, token: string) {
  const res = await SELF.fetch(`http://edgeloop.test/v1/devices/${agentId}/connect`, {
    headers: { upgrade: "websocket", authorization: `Bearer ${token}` },
  });
  expect(res.status).toBe(101);
  const ws = res.webSocket!;
  ws.accept();
  const received: Frame[] = [];
  const raw: string[] = [];
  const waiters: (() => void)[] = [];
  ws.addEventListener("message", (e) => {
    const text = typeof e.data === "string" ? e.data : "";
    raw.push(text);
    try {
      received.push(JSON.parse(text) as Frame);
    } catch {
      /* not JSON */
    }
    waiters.splice(0).forEach((w) => w());
  });
  const next = async (pred: (f: Frame) => boolean, ms = 5000): Promise<Frame> => {
    const deadline = Date.now() + ms;
    for (;;) {
      const hit = received.find(pred);
      if (hit) return hit;
      if (Date.now() > deadline) throw new Error(`no matching frame; got ${JSON.stringify(received)}`);
      await new Promise<void>((r) => {
        waiters.push(r);
        setTimeout(r, 50);
      });
    }
  };
  const hello = (held: string[] = []) =>
    ws.send(
      JSON.stringify({
        type: "hello",
        protocol: 1,
        agent_id: agentId,
        version: "test",
        capabilities: ["shell"],
        held,
        skills: [
          {
            name: "desktop-tools",
            version: "1.0.0",
            tools: [bashToolManifest],
          },
        ],
      }),
    );
  return { ws, received, raw, next, hello };
}

function hub(agentId: string) {
  return env.DEVICE_HUB.get(env.DEVICE_HUB.idFromName(agentId));
}

async function device(agentId: string): Promise<DeviceView> {
  return (await hub(agentId).getDevice(agentId)) as DeviceView;
}

async function waitFor<T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms = 5000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`condition not met: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("DeviceHubDO", () => {
  it("accepts a device socket, records its manifest and answers pings without a frame error", async () => {
    const dev = await connectDevice("pi-1", "device-secret-1");
    dev.hello();
    const view = await waitFor(() => device("pi-1"), (v) => v.online);
    expect(view.version).toBe("test");
    expect(view.skills[0]!.tools.map((t) => t.name)).toEqual(["bash"]);
    dev.ws.send(PING_FRAME);
    await waitFor(async () => dev.raw, (r) => r.includes(PONG_FRAME));
    expect((await device("pi-1")).counters["rejected_frames"] ?? 0).toBe(0);
    dev.ws.close(1000, "done");
  });

  it("sends a command in seed 000's shape and matches the result by request_id, once", async () => {
    const dev = await connectDevice("pi-1", "device-secret-1");
    dev.hello();
    await waitFor(() => device("pi-1"), (v) => v.online);
    await hub("pi-1").dispatch({ request_id: "req-match-1", conversation_id: "conv-hub-1", tool_call_id: "call_1", tool: "bash", parameters: { command: "ls" }, timeout_ms: 30000 });
    const cmd = await dev.next((f) => f["type"] === "command");
    expect(cmd).toEqual({
      type: "command",
      command: "tool",
      request_id: "req-match-1",
      payload: { tool: "bash", parameters: { command: "ls" }, timeout_ms: 30000, request_id: "req-match-1" },
    });
    const result = { type: "result", request_id: "req-match-1", status: "success", tool: "bash", result: "a\nb\n", stderr: "", exit_code: 0, elapsed_ms: 7 };
    dev.ws.send(JSON.stringify(result));
    await dev.next((f) => f["type"] === "ack");
    dev.ws.send(JSON.stringify(result));
    const view = await waitFor(() => device("pi-1"), (v) => (v.counters["duplicate_results"] ?? 0) === 1);
    expect(view.commands).toMatchObject({ done: 1, sent: 0, queued: 0 });
    dev.ws.close(1000, "done");
  });

  it("rejects a result for a request it never sent, and closes after repeated bad frames", async () => {
    const dev = await connectDevice("pi-2", "device-secret-2");
    dev.hello();
    await waitFor(() => device("pi-2"), (v) => v.online);
    dev.ws.send(JSON.stringify({ type: "result", request_id: "not-mine", status: "success", tool: "bash", result: "x" }));
    const rejected = await dev.next((f) => f["type"] === "rejected");
    expect(rejected["reason"]).toContain("unknown request_id");
    const closed = new Promise<number>((r) => dev.ws.addEventListener("close", (e) => r(e.code)));
    for (let i = 0; i < 5; i++) dev.ws.send("{bad");
    expect(await closed).toBe(4008);
  });

  it("times out a silent device at the call's deadline", async () => {
    const dev = await connectDevice("pi-1", "device-secret-1");
    dev.hello();
    await waitFor(() => device("pi-1"), (v) => v.online);
    await hub("pi-1").dispatch({ request_id: "req-silent-1", conversation_id: "conv-hub-2", tool_call_id: "call_1", tool: "bash", parameters: { command: "sleep 99" }, timeout_ms: 50 });
    await dev.next((f) => f["type"] === "command");
    // The deadline is timeout + DEVICE_RESULT_GRACE_MS; wait past it, then let the alarm run.
    await new Promise((r) => setTimeout(r, 50 + Number(env.DEVICE_RESULT_GRACE_MS ?? 3000) + 200));
    await runDurableObjectAlarm(hub("pi-1"));
    const cancel = await dev.next((f) => f["command"] === "cancel");
    expect(cancel["request_id"]).toBe("req-silent-1");
    const view = await device("pi-1");
    expect(view.commands.done).toBeGreaterThanOrEqual(1);
    expect(view.commands.sent).toBe(0);
    dev.ws.close(1000, "done");
  });

  it("holds a command for an offline device and sends it on hello", async () => {
    await hub("pi-2").dispatch({ request_id: "req-offline-1", conversation_id: "conv-hub-3", tool_call_id: "call_1", tool: "bash", parameters: { command: "uptime" }, timeout_ms: 30000 });
    expect((await device("pi-2")).commands.queued).toBe(1);
    const dev = await connectDevice("pi-2", "device-secret-2");
    dev.hello();
    const cmd = await dev.next((f) => f["type"] === "command");
    expect(cmd["request_id"]).toBe("req-offline-1");
    dev.ws.close(1000, "done");
  });
});
