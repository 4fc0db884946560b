/**
 * The command's trace context on the device: the real edgeloop-agent process, driven by a fake
 * hub, logs the call's `traceparent` and passes it to an MCP server as `params._meta.traceparent`
 * (docs/tracing.md).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AGENT_BIN, FakeHub, REPO, tempDir, toolCommand, waitFor } from "./helpers.js";

const TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
let hub: FakeHub;
let agent: ChildProcess;
let exited: Promise<unknown>;
const logs: Record<string, unknown>[] = [];

beforeAll(async () => {
  hub = await FakeHub.start();
  const skill = join(tempDir(), "meta");
  mkdirSync(skill, { recursive: true });
  const server = join(REPO, "test/fixtures/mcp/meta-echo-server.mjs");
  writeFileSync(join(skill, "skill.toml"), `[skill]\nname = "meta"\n\n[mcp]\ncommand = ["node", "${server}"]\n`);
  agent = spawn(
    process.execPath,
    [
      AGENT_BIN,
      "--url",
      hub.url,
      "--agent-id",
      "pi-trace",
      "--token",
      "t",
      "--workspace",
      tempDir(),
      "--skills",
      skill,
    ],
    { env: { PATH: process.env.PATH, HOME: process.env.HOME }, stdio: ["ignore", "pipe", "pipe"] },
  );
  let partial = "";
  agent.stdout!.on("data", (d: Buffer) => {
    const lines = (partial + d.toString()).split("\n");
    partial = lines.pop()!;
    for (const line of lines) logs.push(JSON.parse(line));
  });
  agent.stderr!.on("data", () => {});
  exited = new Promise((r) => agent.on("exit", r));
  await waitFor(() => hub.allFrames().find((f) => f.type === "hello"), "hello", 40_000);
  // As long as the wait above: the agent and its MCP servers start slowly on a loaded machine.
}, 45_000);

afterAll(async () => {
  agent.kill("SIGTERM");
  await exited;
  await hub.close();
});

describe("a command's traceparent on the device", { timeout: 60_000 }, () => {
  it("reaches the MCP server as params._meta.traceparent and is on the call's log line", async () => {
    const cmd = toolCommand("trace-1", "meta_echo", {});
    hub.send({ ...cmd, payload: { ...cmd.payload, traceparent: TRACEPARENT } });
    const result = await waitFor(() => hub.results("trace-1")[0], "the result", 30_000);
    expect(result).toMatchObject({ status: "success" });
    expect(JSON.parse(result.result)).toMatchObject({ traceparent: TRACEPARENT });
    const line = await waitFor(
      () => logs.find((l) => l.msg === "command" && l.request_id === "trace-1"),
      "the command's log line",
    );
    expect(line).toMatchObject({ tool: "meta_echo", status: "success", traceparent: TRACEPARENT });
  });

  it("a command without one sends no traceparent", async () => {
    hub.send(toolCommand("trace-2", "meta_echo", {}));
    const result = await waitFor(() => hub.results("trace-2")[0], "the result", 30_000);
    expect(JSON.parse(result.result).traceparent).toBeUndefined();
  });
});
