import { readFileSync } from "node:fs";
import { join } from "node:path";
import { backoffDelay } from "@edgeloop/edge-client/backoff";
import { connectUrl } from "@edgeloop/edge-client/hub-connection";
import { createLogger } from "@edgeloop/edge-client/log";
import { HelloFrame, PING_FRAME } from "@edgeloop/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { type RunningAgent, startAgent } from "../../../device-agent/src/agent.js";
import { loadConfig } from "../../../device-agent/src/config.js";
import { BASIC, FakeHub, OTHER, REPO, readLines, tempDir, toolCommand, waitFor } from "./helpers.js";

let hub: FakeHub | undefined;
let agent: RunningAgent | undefined;
afterEach(async () => {
  await agent?.stop();
  await hub?.close();
  agent = hub = undefined;
});

async function start(extra: string[] = [], hubOpts: Parameters<typeof FakeHub.start>[0] = {}) {
  hub = await FakeHub.start(hubOpts);
  const ws = tempDir();
  const loaded = loadConfig(
    [
      "--url",
      hub.url,
      "--agent-id",
      "pi-test",
      "--token",
      "device-secret",
      "--skills",
      `${BASIC},${OTHER}`,
      "--workspace",
      ws,
      "--reconnect-min-ms",
      "20",
      "--reconnect-max-ms",
      "200",
      "--kill-grace-ms",
      "300",
      ...extra,
    ],
    {},
    ws,
  );
  if (!loaded.ok || !("config" in loaded.value)) throw new Error(loaded.ok ? "help" : loaded.error);
  const logs: any[] = [];
  agent = await startAgent(
    loaded.value.config,
    createLogger("debug", { agent_id: "pi-test" }, (l) => logs.push(JSON.parse(l))),
  );
  const conn = await hub.connection(1);
  await waitFor(() => conn.frames.find((f) => f.type === "hello"), "hello");
  return { hub, ws, conn, logs, agent };
}

describe("connection to the hub", { timeout: 30_000 }, () => {
  it("builds the connect URL from http(s) and ws(s) base URLs", () => {
    expect(connectUrl("http://127.0.0.1:8787", "pi-1")).toBe("ws://127.0.0.1:8787/v1/devices/pi-1/connect");
    expect(connectUrl("https://edge.example.com/", "pi-1")).toBe("wss://edge.example.com/v1/devices/pi-1/connect");
    expect(connectUrl("wss://edge.example.com/base", "pi-1")).toBe(
      "wss://edge.example.com/base/v1/devices/pi-1/connect",
    );
  });

  it("connects with the bearer token and sends a valid hello", async () => {
    const { conn } = await start();
    expect(conn.request.url).toBe("/v1/devices/pi-test/connect");
    expect(conn.request.headers.authorization).toBe("Bearer device-secret");
    const hello = conn.frames[0];
    expect(HelloFrame.safeParse(hello).success).toBe(true);
    const pkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8"));
    expect(hello).toMatchObject({ type: "hello", protocol: 1, agent_id: "pi-test", version: pkg.version, held: [] });
    expect(hello.capabilities).toEqual(["gpio", "network", "shell"]);
    expect(hello.skills.map((s: any) => s.name)).toEqual(["fixture-basic", "fixture-other"]);
    expect(hello.skills[0].tools.map((t: any) => t.name)).toContain("echo");
    expect(hello.filtered).toContainEqual({
      skill: "fixture-basic",
      tool: "needs_missing",
      reason: expect.stringContaining("not found on PATH"),
    });
  });

  it("command → accepted, progress frames, then the result frame", async () => {
    const { hub } = await start();
    hub.send(toolCommand("r-1", "progress", {}));
    await waitFor(() => hub.results("r-1").length === 1, "result");
    const frames = hub.allFrames().filter((f) => f.request_id === "r-1");
    expect(frames.map((f) => f.type)).toEqual(["accepted", "progress", "progress", "result"]);
    expect(frames[3]).toMatchObject({ status: "success", tool: "progress", result: "done\n", exit_code: 0 });
  });

  it("cancel stops a running tool: error_type cancelled", async () => {
    const { hub, ws } = await start();
    hub.send(toolCommand("r-c", "block", { id: "never" }));
    await waitFor(() => readLines(join(ws, "events.log")).includes("start never"), "tool to start");
    hub.send({ type: "command", command: "cancel", request_id: "r-c" });
    await waitFor(() => hub.results("r-c").length === 1, "cancelled result");
    expect(hub.results("r-c")[0]).toMatchObject({ status: "error", error_type: "cancelled" });
  });

  it("reconnects after the hub drops the socket; re-sends unacked results only; hello.held lists them", async () => {
    const { hub } = await start();
    hub.send(toolCommand("r-acked", "echo", { text: "a" }));
    hub.send(toolCommand("r-unacked", "echo", { text: "b" }));
    await waitFor(() => hub.results("r-acked").length === 1 && hub.results("r-unacked").length === 1, "both results");
    hub.send({ type: "ack", request_ids: ["r-acked"] });
    // The ack is processed before the next frame from the same socket; a round trip proves it.
    hub.send(toolCommand("r-probe", "echo", { text: "c" }));
    await waitFor(() => hub.results("r-probe").length === 1, "probe");
    hub.send({ type: "ack", request_ids: ["r-probe"] });
    hub.send(toolCommand("r-probe2", "echo", { text: "d" }));
    await waitFor(() => hub.results("r-probe2").length === 1, "probe 2");
    hub.last!.socket.terminate();
    const second = await hub.connection(2);
    await waitFor(
      () => second.frames.find((f) => f.type === "result" && f.request_id === "r-unacked"),
      "re-sent result",
    );
    expect(second.frames[0].type).toBe("hello");
    expect(second.frames[0].held).toEqual(expect.arrayContaining(["r-acked", "r-unacked", "r-probe"]));
    const resent = second.frames.filter((f) => f.type === "result").map((f) => f.request_id);
    expect(resent).toContain("r-unacked");
    expect(resent).not.toContain("r-acked");
    expect(resent).not.toContain("r-probe");
  });

  it("a command delivered many times runs once", async () => {
    const { hub, ws } = await start();
    const cmd = toolCommand("r-dup", "echo", { text: "once" });
    hub.send(cmd);
    hub.send(cmd);
    await waitFor(() => hub.results("r-dup").length >= 1, "first result");
    hub.send(cmd);
    await waitFor(() => hub.results("r-dup").length >= 2, "stored result");
    hub.last!.socket.terminate();
    await hub.connection(2);
    hub.send(cmd);
    await waitFor(() => hub.results("r-dup").length >= 4, "stored result after reconnect (re-send + answer)");
    expect(readLines(join(ws, "runs.log"))).toEqual(["r-dup"]);
    const bodies = new Set(hub.results("r-dup").map((r) => JSON.stringify(r)));
    expect(bodies.size).toBe(1);
  });

  it("bad frames are logged and counted, never fatal", async () => {
    const { hub, logs, agent } = await start();
    hub.send("not json");
    hub.send({ type: "command", command: "tool", request_id: "x" });
    hub.last!.socket.send(Buffer.from([1, 2, 3]), { binary: true });
    hub.send(toolCommand("r-after", "hello", {}));
    await waitFor(() => hub.results("r-after").length === 1, "a good command after bad frames");
    expect(agent.connection.stats.badFrames).toBe(3);
    expect(logs.filter((l) => l.msg === "bad frame from hub ignored")).toHaveLength(3);
  });

  it("sends the exact PING_FRAME, and reconnects when no pong comes for two intervals", async () => {
    const { hub, conn, logs } = await start(["--heartbeat-ms", "100"], { respondToPing: false });
    await waitFor(() => conn.raw.includes(PING_FRAME), "a ping");
    await hub.connection(2);
    expect(logs.some((l) => l.msg === "no pong from hub; reconnecting")).toBe(true);
  });

  it("close code 4001 from the hub: logs an auth failure and backs off longer", async () => {
    const { hub, logs } = await start();
    hub.last!.socket.close(4001, "bad token");
    const line = await waitFor(() => logs.find((l) => l.close_code === 4001), "auth failure log");
    expect(line).toMatchObject({
      level: "error",
      msg: "hub closed the connection: authentication failed",
      retry_in_ms: 1_000,
    });
  });

  it("an HTTP 401 at the upgrade is logged as refused credentials", async () => {
    let calls = 0;
    hub = await FakeHub.start({ verify: () => (++calls === 1 ? null : 401) });
    const ws = tempDir();
    const loaded = loadConfig(
      [
        "--url",
        hub.url,
        "--agent-id",
        "pi-test",
        "--token",
        "wrong",
        "--skills",
        OTHER,
        "--workspace",
        ws,
        "--reconnect-min-ms",
        "20",
        "--reconnect-max-ms",
        "100",
      ],
      {},
      ws,
    );
    if (!loaded.ok || !("config" in loaded.value)) throw new Error("config");
    const logs: any[] = [];
    agent = await startAgent(
      loaded.value.config,
      createLogger("debug", {}, (l) => logs.push(JSON.parse(l))),
    );
    (await hub.connection(1)).socket.terminate();
    const line = await waitFor(() => logs.find((l) => l.http_status === 401), "401 log");
    expect(line.msg).toBe("hub refused the agent's credentials");
  });
});

describe("backoff", () => {
  it("is capped exponential with full jitter", () => {
    expect(backoffDelay(0, 500, 30_000, () => 1)).toBe(500);
    expect(backoffDelay(3, 500, 30_000, () => 1)).toBe(4_000);
    expect(backoffDelay(20, 500, 30_000, () => 1)).toBe(30_000);
    expect(backoffDelay(20, 500, 30_000, () => 0)).toBe(0);
    expect(backoffDelay(2, 500, 30_000, () => 0.5)).toBe(1_000);
  });
});
