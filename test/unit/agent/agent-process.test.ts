import { type ChildProcess, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AGENT_BIN, BASIC, FakeHub, OTHER, readLines, tempDir, toolCommand, waitFor } from "./helpers.js";

/** The real bin, as systemd would run it: plain node, flags, JSON logs on stdout. */
type Proc = { child: ChildProcess; stdout: string[]; exited: Promise<number | null> };
const procs: Proc[] = [];
let hub: FakeHub | undefined;

function spawnAgent(args: string[]): Proc {
  const child = spawn(process.execPath, [AGENT_BIN, ...args], {
    env: { PATH: process.env.PATH },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const stdout: string[] = [];
  let partial = "";
  child.stdout!.on("data", (d: Buffer) => {
    const text = partial + d.toString();
    const lines = text.split("\n");
    partial = lines.pop()!;
    stdout.push(...lines);
  });
  child.stderr!.on("data", () => {});
  const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
  const proc = { child, stdout, exited };
  procs.push(proc);
  return proc;
}

afterEach(async () => {
  for (const p of procs.splice(0)) {
    if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill("SIGKILL");
    await p.exited;
  }
  await hub?.close();
  hub = undefined;
});

function agentArgs(hubUrl: string, ws: string, skills = `${BASIC},${OTHER}`): string[] {
  return [
    "--url",
    hubUrl,
    "--agent-id",
    "pi-proc",
    "--token",
    "device-secret",
    "--skills",
    skills,
    "--workspace",
    ws,
    "--reconnect-min-ms",
    "50",
    "--reconnect-max-ms",
    "500",
  ];
}

describe("the edgeloop-agent process", { timeout: 60_000 }, () => {
  it("keeps its result store across a restart: re-sends the unacked result and does not run the tool again", async () => {
    hub = await FakeHub.start();
    const ws = tempDir();
    const first = spawnAgent(agentArgs(hub.url, ws));
    await hub.connection(1);
    const cmd = toolCommand("r-restart", "echo", { text: "persist me" });
    hub.send(cmd);
    await waitFor(() => hub!.results("r-restart").length === 1, "the first result", 30_000);
    first.child.kill("SIGKILL");
    await first.exited;

    spawnAgent(agentArgs(hub.url, ws));
    const second = await hub.connection(2);
    const hello = await waitFor(() => second.frames.find((f) => f.type === "hello"), "hello after restart", 30_000);
    expect(hello.held).toContain("r-restart");
    await waitFor(
      () => second.frames.find((f) => f.type === "result" && f.request_id === "r-restart"),
      "re-sent unacked result",
      30_000,
    );
    hub.send(cmd, second);
    await waitFor(
      () => second.frames.filter((f) => f.type === "result" && f.request_id === "r-restart").length === 2,
      "stored result for the repeat",
      30_000,
    );
    expect(readLines(join(ws, "runs.log"))).toEqual(["r-restart"]);
    const bodies = new Set(hub.results("r-restart").map((r) => JSON.stringify(r)));
    expect(bodies.size).toBe(1);
  });

  it("SIGTERM: lets the running command finish, sends its result, closes with 1000, exits 0", async () => {
    hub = await FakeHub.start();
    const ws = tempDir();
    const agent = spawnAgent(agentArgs(hub.url, ws));
    const conn = await hub.connection(1);
    const closed = new Promise<number>((r) => conn.socket.on("close", (code) => r(code)));
    hub.send(toolCommand("r-term", "block", { id: "t" }));
    await waitFor(() => readLines(join(ws, "events.log")).includes("start t"), "the tool to start", 30_000);
    agent.child.kill("SIGTERM");
    await waitFor(
      () => agent.stdout.some((l) => l.includes('"signal received"')),
      "the agent to see the signal",
      30_000,
    );
    writeFileSync(join(ws, "release-t"), "");
    expect(await agent.exited).toBe(0);
    expect(await closed).toBe(1000);
    expect(hub.results("r-term")).toMatchObject([{ status: "success", result: "released t\n" }]);
    const line = agent.stdout.map((l) => JSON.parse(l)).find((l) => l.msg === "command");
    expect(line).toMatchObject({
      level: "info",
      msg: "command",
      agent_id: "pi-proc",
      request_id: "r-term",
      tool: "block",
      status: "success",
      error_type: null,
    });
    expect(Object.keys(line)).toEqual([
      "ts",
      "level",
      "msg",
      "agent_id",
      "request_id",
      "tool",
      "status",
      "error_type",
      "elapsed_ms",
    ]);
  });

  it("doctor: exit 0 when skills load and the server accepts the token", async () => {
    hub = await FakeHub.start();
    const doctor = spawnAgent(["doctor", ...agentArgs(hub.url, tempDir(), OTHER)]);
    expect(await doctor.exited).toBe(0);
    expect(doctor.stdout.join("\n")).toContain("all good");
    expect(doctor.stdout.join("\n")).toMatch(/ok {3}fixture-other 0\.0\.0: hello/);
  });

  it("doctor: non-zero, naming each problem, when tools are filtered for missing parts and the token is refused", async () => {
    hub = await FakeHub.start({ verify: () => 401 });
    const doctor = spawnAgent(["doctor", ...agentArgs(hub.url, tempDir())]);
    expect(await doctor.exited).toBe(1);
    const out = doctor.stdout.join("\n");
    expect(out).toMatch(/FAIL .*token refused \(HTTP 401\)/);
    expect(out).toMatch(/FAIL fixture-basic\/needs_missing: requires/);
    expect(out).toMatch(/FAIL .*tool bad name/);
    expect(out).toContain("problems found");
  });
});
