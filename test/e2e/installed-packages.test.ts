/**
 * The packages as people install them: `npm pack` of edgeloop-agent, edgeloop-bridge and edgeloop
 * (each prepack builds the package's bundle), `npm install -g` of the tarballs into an empty
 * prefix, and the installed commands run from outside the repository against a real `wrangler
 * dev` worker with the scripted model: the agent over WebSocket and over MQTT (through the
 * installed bridge and a real mosquitto), running the skills that ship inside its package, and
 * the CLI reading the worker's status. Packed and installed once for the file. Then
 * docs/raspberry-pi.md's "By hand" as written: its commands and its settings file, read from the
 * doc's code blocks, followed in a fresh prefix (all but apt, sudo/useradd and systemd), the agent
 * installed from the tarball the worker serves, pairing included (install-script.test.ts runs the
 * doc's one line); and
 * an installed agent that pairs, is approved from the installed CLI and runs tools.
 * The installed commands run on Node 20 (the device side's oldest supported Node, what Raspberry
 * Pi OS trixie packages); the agent's WebSocket conversation runs on Node 24 as well.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ScopedLlm } from "../../scripted-llm/scope-client.js";
import { getConversation, sendMessage } from "../helpers/api.js";
import { type AgentProcess, startAgent } from "../helpers/device-agent.js";
import { ADMIN_TOKEN } from "../helpers/local-worker.js";
import { blockWith, codeBlocks, envLines, lineWith } from "../helpers/markdown-blocks.js";
import { type Mosquitto, startMosquitto } from "../helpers/mosquitto.js";
import { exitCode, shownCode } from "../helpers/pairing.js";
import { NODE20, NODE24, nodeWithPackages } from "../helpers/pinned-node.js";
import { type Child, REPO_ROOT, startChild } from "../helpers/processes.js";
import { joinSharedStack, type SharedStack } from "../helpers/shared-stack.js";
import { tempDir } from "../helpers/temp-dir.js";
import { waitUntil } from "../helpers/wait.js";

const PACKAGES = { agent: "device-agent", bridge: "bridge", cli: "cli" } as const;
const WS_TOKEN = "e2e-installed-ws-1";
const WS24_TOKEN = "e2e-installed-ws-24";
const MQ_TOKEN = "e2e-installed-mq-1";

let dir: string;
/** the Node the installed commands run on */
let deviceNode: string;
let prefix: string;
let llm: ScopedLlm;
let worker: SharedStack["worker"];
let broker: Mosquitto;
const stops: (() => Promise<void>)[] = [];

/** npm as a user runs it: none of the npm_* settings of an `npm test` that started this file. */
function npm(args: string[], cwd: string): string {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith("npm_")));
  return execFileSync("npm", args, { cwd, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

/** An installed command's path: the link npm made in the prefix's bin/. */
const installed = (name: string) => join(prefix, "bin", name);

function run(name: string, args: string[]): { status: number | null; out: string } {
  const r = spawnSync(deviceNode, [installed(name), ...args], { cwd: dir, encoding: "utf8", timeout: 60_000 });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

const versionOf = (pkgDir: string) =>
  (JSON.parse(readFileSync(join(REPO_ROOT, pkgDir, "package.json"), "utf8")) as { version: string }).version;

beforeAll(async () => {
  deviceNode = nodeWithPackages([], NODE20).node;
  expect(execFileSync(deviceNode, ["--version"], { encoding: "utf8" })).toMatch(/^v20\./);
  dir = tempDir("edgeloop-installed-");
  prefix = join(dir, "prefix");
  npm(["pack", "--silent", ...Object.values(PACKAGES).flatMap((w) => ["-w", w]), "--pack-destination", dir], REPO_ROOT);
  const tarballs = readdirSync(dir).filter((f) => f.endsWith(".tgz"));
  expect(tarballs.sort()).toEqual(["edgeloop-0.1.0.tgz", "edgeloop-agent-0.1.0.tgz", "edgeloop-bridge-0.1.0.tgz"]);
  npm(["install", "-g", "--prefix", prefix, "--prefer-offline", "--no-audit", "--no-fund", ...tarballs], dir);

  ({ llm, worker } = await joinSharedStack({
    scope: "installed-packages",
    rules: [
      {
        match: "look at the note and the picture",
        turns: [
          {
            tool_calls: [
              { name: "read", arguments: { path: "note.txt" } },
              { name: "image", arguments: { path: "picture.png" } },
            ],
          },
          { content: "Read: {{tool_results}}" },
        ],
      },
      {
        match: "the pi guide's marker",
        turns: [
          { tool_calls: [{ name: "read", arguments: { path: "marker.txt" } }] },
          { content: "On the Pi: {{last_tool_result}}" },
        ],
      },
      {
        match: "the paired agent's marker",
        turns: [
          { tool_calls: [{ name: "read", arguments: { path: "marker.txt" } }] },
          { content: "Paired: {{last_tool_result}}" },
        ],
      },
      {
        match: "the marker over mqtt",
        turns: [
          { tool_calls: [{ name: "read", arguments: { path: "marker.txt" } }] },
          { content: "Over MQTT: {{last_tool_result}}" },
        ],
      },
    ],
    devices: { "ws-1": WS_TOKEN, "ws-24": WS24_TOKEN, "mq-1": MQ_TOKEN },
  }));
  broker = await startMosquitto();
});

afterAll(async () => {
  for (const stop of stops.reverse()) await stop().catch(() => undefined);
  await broker?.stop();
  await llm?.close();
});

describe("installed from their tarballs into an empty prefix", () => {
  it("ship the bundles and nothing that points back into this repository", () => {
    const root = join(prefix, "lib/node_modules");
    expect(readdirSync(root).sort()).toEqual(["edgeloop", "edgeloop-agent", "edgeloop-bridge"]);
    for (const [pkg, bundle] of [
      ["edgeloop-agent", "dist/edgeloop-agent.mjs"],
      ["edgeloop-bridge", "dist/edgeloop-bridge.mjs"],
      ["edgeloop", "dist/edgeloop.mjs"],
    ]) {
      const code = readFileSync(join(root, pkg!, bundle!), "utf8");
      expect(code, pkg).not.toContain(REPO_ROOT.replace(/\/$/, ""));
      expect(existsSync(join(root, pkg!, "src")), pkg).toBe(false);
    }
    // The agent's skills come with it; their libraries are its dependencies.
    expect(readdirSync(join(root, "edgeloop-agent/skills")).sort()).toEqual(["desktop-tools", "pi-tools"]);
    expect(existsSync(join(root, "edgeloop-agent/node_modules/sharp"))).toBe(true);
    expect(existsSync(join(root, "edgeloop-agent/node_modules/tsx"))).toBe(false);
  });

  it("answer --version with their package's version", () => {
    for (const [name, pkgDir] of [
      ["edgeloop-agent", PACKAGES.agent],
      ["edgeloop-bridge", PACKAGES.bridge],
      ["edgeloop", PACKAGES.cli],
    ] as const) {
      const r = run(name, ["--version"]);
      expect(r, name).toEqual({ status: 0, out: `${versionOf(pkgDir)}\n` });
    }
  });

  it("edgeloop-agent doctor finds its bundled skills and reaches the worker", () => {
    const r = run("edgeloop-agent", [
      "doctor",
      ...["--url", worker.url, "--agent-id", "ws-1", "--token", WS_TOKEN, "--workspace", tempDir("edgeloop-ws-")],
    ]);
    expect(r.status, r.out).toBe(0);
    expect(r.out).toMatch(/ok +desktop-tools .*\bread\b.*\bimage\b/);
    expect(r.out).toMatch(/ok +pi-tools /);
  });

  it.each([
    { on: "Node 20", agentId: "ws-1", token: WS_TOKEN, node: () => deviceNode },
    { on: "Node 24", agentId: "ws-24", token: WS24_TOKEN, node: () => nodeWithPackages([], NODE24).node },
  ])("the agent over WebSocket on $on runs its bundled skills' tools for a conversation", async (c) => {
    const agent = await installedAgent(c.agentId, c.token, [], c.node());
    writeFileSync(join(agent.workspace, "note.txt"), "the installed agent read this\n");
    await sharp({ create: { width: 64, height: 48, channels: 3, background: "#336699" } })
      .png()
      .toFile(join(agent.workspace, "picture.png"));
    const { status, body } = await sendMessage(
      worker.url,
      { agent_id: c.agentId, text: "look at the note and the picture" },
      60,
    );
    expect(status).toBe(200);
    expect(body.status, agent.child.output()).toBe("completed");
    expect(body.tool_calls).toMatchObject([
      { name: "read", status: "success" },
      { name: "image", status: "success" },
    ]);
    expect(body.reply).toContain("the installed agent read this");
    const conv = await getConversation(worker.url, body.conversation_id);
    expect(JSON.stringify(conv.messages)).toMatch(/64\D+48|image\/png/);
  });

  it("edgeloop status (the CLI) shows the worker and the device online", () => {
    const r = run("edgeloop", ["status", "--url", worker.url, "--admin-token", ADMIN_TOKEN]);
    expect(r.status, r.out).toBe(0);
    expect(r.out).toContain("ws-1");
  });

  it("edgeloop-agent pair: approved with the CLI, its own token saved owner-only, then it runs tools", async () => {
    const home = tempDir("edgeloop-pair-home-");
    const workspace = tempDir("edgeloop-pair-ws-");
    const admin = ["--url", worker.url, "--admin-token", ADMIN_TOKEN];
    const agent = startChild(
      deviceNode,
      [installed("edgeloop-agent"), "pair", worker.url, "--agent-id", "paired-1", "--workspace", workspace],
      { name: "paired agent", cwd: dir, env: { XDG_CONFIG_HOME: home } },
    );
    stops.push(() => agent.stop());
    const code = await shownCode(agent);
    // The approve line is the agent's next write after the code: it may reach the pipe a moment later.
    await waitUntil(
      async () => agent.output(),
      (out) => out.includes(`edgeloop devices approve ${code}`),
      { timeoutMs: 10_000, what: "the approve line after the pairing code" },
    );
    const pending = run("edgeloop", ["devices", "pending", "--json", ...admin]);
    expect(JSON.parse(pending.out).pending).toContainEqual(expect.objectContaining({ code, agent_id: "paired-1" }));
    const approved = run("edgeloop", ["devices", "approve", code.toLowerCase(), ...admin]);
    expect(approved.status, approved.out).toBe(0);
    await waitForDevice("paired-1");

    const file = join(home, "edgeloop", "agent.toml");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(file)).mode & 0o777).toBe(0o700);
    expect(readFileSync(file, "utf8")).toMatch(/token = "edl_/);
    writeFileSync(join(workspace, "marker.txt"), "read by the paired agent\n");
    const { body } = await sendMessage(worker.url, { agent_id: "paired-1", text: "the paired agent's marker" }, 60);
    expect(body.reply, agent.output()).toContain("read by the paired agent");
    // A code works once.
    expect(run("edgeloop", ["devices", "approve", code, ...admin]).status).not.toBe(0);
  });

  it("the bridge and the agent over MQTT complete a conversation", async () => {
    const bridge: Child = startChild(
      deviceNode,
      [
        installed("edgeloop-bridge"),
        ...["--url", worker.url, "--broker", broker.url, "--device", `mq-1:${MQ_TOKEN}`],
        ...["--state-dir", tempDir("edgeloop-bridge-state-")],
      ],
      { name: "installed bridge", cwd: dir },
    );
    stops.push(() => bridge.stop());
    const agent = await installedAgent("mq-1", "unused-over-mqtt", [
      "--transport",
      "mqtt",
      "--broker",
      broker.url,
    ]).catch((e: Error) => {
      throw new Error(`${e.message}\n--- bridge ---\n${bridge.output()}`);
    });
    const marker = `marker-${Math.random().toString(36).slice(2)}`;
    writeFileSync(join(agent.workspace, "marker.txt"), `${marker}\n`);
    const { body } = await sendMessage(worker.url, { agent_id: "mq-1", text: "read the marker over mqtt" }, 60);
    expect(body.status, bridge.output()).toBe("completed");
    expect(body.tool_calls).toMatchObject([{ name: "read", status: "success" }]);
    expect(body.reply).toContain(marker);
  });
});

describe("docs/raspberry-pi.md, followed on a fresh prefix", () => {
  const blocks = codeBlocks("docs/raspberry-pi.md");

  it("install, settings file, pairing approved from the CLI, doctor, then the agent as the service runs it", async () => {
    // 2. The package from the tarball the worker serves, as the doc's line says, into a prefix of its own.
    const piPrefix = join(dir, "pi-prefix");
    const install = lineWith(blockWith(blocks, "/agent/edgeloop-agent.tgz"), "npm install -g")
      .replace("https://edge.example.com", worker.url)
      .replace(/^(sudo )?npm /, "")
      .split(" ");
    expect(install).toEqual(["install", "-g", `${worker.url}/agent/edgeloop-agent.tgz`]);
    npm([...install, "--prefix", piPrefix, "--prefer-offline", "--no-audit", "--no-fund"], dir);
    const agentBin = join(piPrefix, "bin/edgeloop-agent");
    expect(lineWith(blockWith(blocks, "useradd"), "edgeloop-agent --version")).toBe("edgeloop-agent --version");
    expect(execFileSync(deviceNode, [agentBin, "--version"], { encoding: "utf8" })).toBe(
      `${versionOf(PACKAGES.agent)}\n`,
    );

    // 3. The settings file, naming the file pairing writes (here in a temporary folder).
    const envBlock = blockWith(blocks, "<<'ENV'");
    const settings = envLines(envBlock.slice(envBlock.indexOf("<<'ENV'"), envBlock.lastIndexOf("ENV")));
    expect(settings.EDGELOOP_CONFIG).toBe("/etc/edgeloop/agent.toml");
    expect(settings.EDGELOOP_CAPABILITIES!.split(",")).toContain("gpio");
    const settingsFile = join(tempDir("edgeloop-pi-etc-"), "edgeloop", "agent.toml");
    const env = { ...settings, EDGELOOP_CONFIG: settingsFile };

    // 4. Pairing: the Pi's line, with this worker's URL; the code approved with the doc's CLI line.
    const pairLine = lineWith(blockWith(blocks, "edgeloop-agent pair"), "edgeloop-agent pair").split(" ");
    expect(pairLine.slice(0, 3)).toEqual(["edgeloop-agent", "pair", "https://edge.example.com"]);
    const agentId = pairLine[pairLine.indexOf("--agent-id") + 1]!;
    const approveLine = lineWith(blockWith(blocks, "devices approve"), "devices approve");
    const pairing = startChild(deviceNode, [agentBin, "pair", worker.url, ...pairLine.slice(3)], {
      name: "pi pairing",
      cwd: dir,
      env,
    });
    stops.push(() => pairing.stop());
    const code = await shownCode(pairing);
    const approved = run("edgeloop", [
      ...approveLine
        .replace(/^npx edgeloop /, "")
        .replace("ABCD-2345", code)
        .split(" "),
      ...["--url", worker.url, "--admin-token", ADMIN_TOKEN],
    ]);
    expect(approved.status, approved.out).toBe(0);
    expect(await exitCode(pairing), pairing.output()).toBe(0);
    expect(statSync(settingsFile).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(settingsFile)).mode & 0o777).toBe(0o700);

    // 5. doctor with the doc's workspace and state settings (the unit sets the same two).
    const doctorLine = lineWith(blockWith(blocks, "edgeloop-agent doctor"), "EDGELOOP_WORKSPACE");
    const unit = readFileSync(join(piPrefix, "lib/node_modules/edgeloop-agent/systemd/edgeloop-agent.service"), "utf8");
    expect(unit).toContain("EnvironmentFile=/etc/edgeloop/agent.env");
    const dirs = envLines(doctorLine);
    for (const name of ["EDGELOOP_WORKSPACE", "EDGELOOP_STATE_DIR"]) expect(unit).toContain(`${name}=${dirs[name]}`);
    const workspace = tempDir("edgeloop-pi-ws-");
    const local = { ...env, EDGELOOP_WORKSPACE: workspace, EDGELOOP_STATE_DIR: tempDir("edgeloop-pi-state-") };
    const doctor = spawnSync(deviceNode, [agentBin, "doctor"], {
      cwd: dir,
      encoding: "utf8",
      env: { ...process.env, ...local },
    });
    expect(doctor.status, `${doctor.stdout}${doctor.stderr}`).toBe(0);
    expect(doctor.stdout).toMatch(/ok +pi-tools .*\bgpio_read\b.*\bgpio_write\b/);

    // The service: ExecStart=edgeloop-agent with the settings file's environment.
    const agent = startChild(deviceNode, [agentBin], {
      name: "pi agent",
      cwd: workspace,
      env: local,
    });
    stops.push(() => agent.stop());
    writeFileSync(join(workspace, "marker.txt"), "read on the pi\n");
    const device = await waitForDevice(agentId);
    expect(device.tools).toEqual(expect.arrayContaining(["gpio_read", "gpio_write", "cpu_temp", "read"]));
    const { body } = await sendMessage(worker.url, { agent_id: agentId, text: "read the pi guide's marker" }, 60);
    expect(body.reply, agent.output()).toContain("read on the pi");

    // Installing and updating: the worker's own tarball and script, never a registry's name, never `npm ci`.
    expect(blocks.filter((b) => b.includes("| sudo sh"))).toEqual([
      expect.stringContaining("curl -fsSL https://edge.example.com/install | sudo sh -s -- --agent-id pi-1"),
      expect.stringContaining("curl -fsSL https://edge.example.com/install | sudo sh"),
    ]);
    expect(blocks.join("\n")).not.toMatch(/npm ci|npm install -g edgeloop-agent/);
  });
});

/** The device's tools once it is online (a fetch that fails on a stale kept-alive socket is retried). */
async function waitForDevice(agentId: string): Promise<{ tools: string[] }> {
  type View = { online?: boolean; skills?: { tools: { name: string }[] }[] };
  const view = await waitUntil(
    async () =>
      (await (
        await fetch(`${worker.url}/v1/devices/${agentId}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
      ).json()) as View,
    (v) => v.online === true,
    { timeoutMs: 30_000, what: `${agentId} to come online` },
  );
  return { tools: (view.skills ?? []).flatMap((s) => s.tools.map((t) => t.name)) };
}

/** The installed edgeloop-agent with the skills it ships (no --skills), run from outside the repository. */
async function installedAgent(
  agentId: string,
  token: string,
  extraArgs: string[],
  node: string = deviceNode,
): Promise<AgentProcess> {
  const agent = await startAgent({
    node,
    url: worker.url,
    agentId,
    token,
    bin: installed("edgeloop-agent"),
    cwd: dir,
    skills: [],
    extraArgs,
  });
  stops.push(() => agent.stop());
  return agent;
}
