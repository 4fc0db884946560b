import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { PING_FRAME, PONG_FRAME } from "@edgeloop/protocol";
import { describe, expect, it } from "vitest";
import { connectDevice, deviceView as device, hub, uid, waitFor } from "./support/front-door.js";

describe("DeviceHubDO", () => {
  it("lets a socket in only on a wire its route names, whatever else the request carries", async () => {
    const upgrade = (headers: Record<string, string>) =>
      hub("pi-wire").fetch(new Request("http://hub/", { headers: { upgrade: "websocket", ...headers } }));
    const vouched = { "x-edgeloop-agent-id": "pi-wire", "x-edgeloop-token-id": "env" };
    // No wire, or one the hub does not speak: refused, even with a token the worker vouched for.
    expect((await upgrade(vouched)).status).toBe(400);
    expect((await upgrade({ ...vouched, "x-edgeloop-wire": "mqtt" })).status).toBe(400);
    expect((await upgrade({ ...vouched, "x-edgeloop-openclaw": "node" })).status).toBe(400);
    const edgeloop = await upgrade({ ...vouched, "x-edgeloop-wire": "edgeloop" });
    expect(edgeloop.status).toBe(101);
    edgeloop.webSocket!.accept();
    edgeloop.webSocket!.close(1000, "done");
    // The OpenClaw wire greets with its challenge before any credential.
    const node = await upgrade({ "x-edgeloop-agent-id": "pi-wire", "x-edgeloop-wire": "openclaw" });
    expect(node.status).toBe(101);
    const ws = node.webSocket!;
    const first = new Promise<string>((resolve) => ws.addEventListener("message", (e) => resolve(String(e.data))));
    ws.accept();
    expect(JSON.parse(await first)).toMatchObject({ type: "event", event: "connect.challenge" });
    ws.close(1000, "done");
  });

  it("accepts a device socket, records its manifest and answers pings without a frame error", async () => {
    const dev = await connectDevice("pi-1", "device-secret-1");
    dev.hello();
    const view = await waitFor(
      () => device("pi-1"),
      (v) => v.online,
    );
    expect(view.version).toBe("9.9.9");
    expect(view.skills[0]!.tools.map((t) => t.name)).toEqual(["bash"]);
    dev.ws.send(PING_FRAME);
    await waitFor(
      async () => dev.raw,
      (r) => r.includes(PONG_FRAME),
    );
    expect((await device("pi-1")).counters.rejected_frames ?? 0).toBe(0);
    dev.ws.close(1000, "done");
  });

  it("sends a command in the EvoClaw shape and matches the result by request_id, once", async () => {
    const dev = await connectDevice("pi-1", "device-secret-1");
    dev.hello();
    await waitFor(
      () => device("pi-1"),
      (v) => v.online,
    );
    await hub("pi-1").dispatch({
      request_id: "req-match-1",
      conversation_id: "conv-hub-1",
      tool_call_id: "call_1",
      tool: "bash",
      parameters: { command: "ls" },
      timeout_ms: 30000,
    });
    const cmd = await dev.next((f) => f.type === "command");
    expect(cmd).toEqual({
      type: "command",
      command: "tool",
      request_id: "req-match-1",
      payload: { tool: "bash", parameters: { command: "ls" }, timeout_ms: 30000, request_id: "req-match-1" },
    });
    const result = {
      type: "result",
      request_id: "req-match-1",
      status: "success",
      tool: "bash",
      result: "a\nb\n",
      stderr: "",
      exit_code: 0,
      elapsed_ms: 7,
    };
    dev.ws.send(JSON.stringify(result));
    await dev.next((f) => f.type === "ack");
    dev.ws.send(JSON.stringify(result));
    const view = await waitFor(
      () => device("pi-1"),
      (v) => (v.counters.duplicate_results ?? 0) === 1,
    );
    expect(view.commands).toMatchObject({ done: 1, sent: 0, queued: 0 });
    dev.ws.close(1000, "done");
  });

  it("a newer connection replaces the old one (4000), and commands go to the new socket", async () => {
    const agent = uid("pi-re");
    const vars = { DEVICE_TOKENS: `${agent}:s` };
    const command = (request_id: string) => ({
      request_id,
      conversation_id: "conv-hub-re",
      tool_call_id: `call-${request_id}`,
      tool: "bash",
      parameters: { command: "ls" },
      timeout_ms: 30000,
    });
    const first = await connectDevice(agent, "s", vars);
    first.hello();
    await waitFor(
      () => device(agent),
      (v) => v.online,
    );
    const before = uid("req-re");
    expect(await hub(agent).dispatch(command(before))).toEqual({ accepted: true, state: "sent" });
    await first.next((f) => f.request_id === before);

    const second = await connectDevice(agent, "s", vars);
    expect(await first.closed).toMatchObject({ code: 4000 });
    second.hello(undefined, [before]);
    await waitFor(
      () => device(agent),
      (v) => v.online,
    );
    const after = uid("req-re");
    expect(await hub(agent).dispatch(command(after))).toEqual({ accepted: true, state: "sent" });
    await second.next((f) => f.request_id === after);
    expect(first.received.filter((f) => f.request_id === after)).toEqual([]);
    for (const id of [before, after]) await hub(agent).cancel(id);
    second.ws.close(1000, "done");
  });

  it("sends a batch of commands back to back, each once: a repeated batch sends nothing and says so", async () => {
    const dev = await connectDevice("pi-1", "device-secret-1");
    dev.hello();
    await waitFor(
      () => device("pi-1"),
      (v) => v.online,
    );
    const ids = ["req-batch-1", "req-batch-2", "req-batch-3"];
    const cmds = ids.map((request_id, i) => ({
      request_id,
      conversation_id: "conv-hub-batch",
      tool_call_id: `call_${i}`,
      tool: "bash",
      parameters: { command: `echo ${i}` },
      timeout_ms: 30000,
    }));
    expect(await hub("pi-1").dispatchBatch(cmds)).toEqual(ids.map(() => ({ accepted: true, state: "sent" })));
    for (const id of ids) await dev.next((f) => f.type === "command" && f.request_id === id);
    expect(await hub("pi-1").dispatchBatch(cmds)).toEqual(ids.map(() => ({ accepted: false, state: "sent" })));
    await new Promise((r) => setTimeout(r, 200));
    const sent = dev.received.filter((f) => f.type === "command" && ids.includes(String(f.request_id)));
    expect(sent.map((f) => f.request_id)).toEqual(ids);
    expect((await device("pi-1")).commands.sent).toBeGreaterThanOrEqual(3);
    // Leave the hub as found: later tests count this device's open commands.
    for (const id of ids) await hub("pi-1").cancel(id);
    dev.ws.close(1000, "done");
  });

  it("rejects a result for a request it never sent, and closes after repeated bad frames", async () => {
    const dev = await connectDevice("pi-2", "device-secret-2");
    dev.hello();
    await waitFor(
      () => device("pi-2"),
      (v) => v.online,
    );
    dev.ws.send(
      JSON.stringify({ type: "result", request_id: "not-mine", status: "success", tool: "bash", result: "x" }),
    );
    const rejected = await dev.next((f) => f.type === "rejected");
    expect(rejected.reason).toContain("unknown request_id");
    const closed = new Promise<number>((r) => dev.ws.addEventListener("close", (e) => r(e.code)));
    for (let i = 0; i < 5; i++) dev.ws.send("{bad");
    expect(await closed).toBe(4008);
  });

  it("times out a silent device at the call's deadline", async () => {
    const dev = await connectDevice("pi-1", "device-secret-1");
    dev.hello();
    await waitFor(
      () => device("pi-1"),
      (v) => v.online,
    );
    await hub("pi-1").dispatch({
      request_id: "req-silent-1",
      conversation_id: "conv-hub-2",
      tool_call_id: "call_1",
      tool: "bash",
      parameters: { command: "sleep 99" },
      timeout_ms: 50,
    });
    await dev.next((f) => f.type === "command");
    // The deadline is timeout + DEVICE_RESULT_GRACE_MS; wait past it, then let the alarm run.
    await new Promise((r) => setTimeout(r, 50 + Number(env.DEVICE_RESULT_GRACE_MS ?? 3000) + 200));
    await runDurableObjectAlarm(hub("pi-1"));
    const cancel = await dev.next((f) => f.command === "cancel");
    expect(cancel.request_id).toBe("req-silent-1");
    const view = await device("pi-1");
    expect(view.commands.done).toBeGreaterThanOrEqual(1);
    expect(view.commands.sent).toBe(0);
    dev.ws.close(1000, "done");
  });

  it("brings its alarm forward to a new command's deadline", async () => {
    const agent = uid("pi-alarm");
    const dev = await connectDevice(agent, "s", { DEVICE_TOKENS: `${agent}:s` });
    dev.hello();
    await waitFor(
      () => device(agent),
      (v) => v.online,
    );
    const alarmAt = () => runInDurableObject(hub(agent), (_o, state) => state.storage.getAlarm());
    const grace = Number(env.DEVICE_RESULT_GRACE_MS ?? 3000);
    // Only the heartbeat check is due so far, well after the deadline the command brings.
    expect(await alarmAt()).toBeGreaterThan(Date.now() + 50 + grace + 1000);
    const requestId = uid("req-alarm");
    await hub(agent).dispatch({
      request_id: requestId,
      conversation_id: "conv-hub-alarm",
      tool_call_id: "call_1",
      tool: "bash",
      parameters: { command: "sleep 99" },
      timeout_ms: 50,
    });
    expect(await alarmAt()).toBeLessThanOrEqual(Date.now() + 50 + grace);
    await hub(agent).cancel(requestId);
    dev.ws.close(1000, "done");
  });

  it("holds a command for an offline device and sends it on hello", async () => {
    await hub("pi-2").dispatch({
      request_id: "req-offline-1",
      conversation_id: "conv-hub-3",
      tool_call_id: "call_1",
      tool: "bash",
      parameters: { command: "uptime" },
      timeout_ms: 30000,
    });
    expect((await device("pi-2")).commands.queued).toBe(1);
    const dev = await connectDevice("pi-2", "device-secret-2");
    dev.hello();
    const cmd = await dev.next((f) => f.type === "command");
    expect(cmd.request_id).toBe("req-offline-1");
    dev.ws.close(1000, "done");
  });
});
