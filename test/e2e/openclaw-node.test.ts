/**
 * A real `openclaw node run` (the npm package, unmodified, on Node 24) onboarded by the line
 * `edgeloop openclaw setup` prints, running commands for a conversation through plain `wrangler
 * dev` with the scripted model; then the runtime killed mid-command: the call ends
 * `outcome_unknown` (the node killed the command and will never report it) and is not run again.
 * Then `openclaw connect` with the join URL the dashboard shows, and a node with only its device
 * key, let in by `edgeloop devices approve <code>` (docs/openclaw-nodes.md).
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlm } from "../../scripted-llm/server.js";
import { getConversation, sendMessage } from "../helpers/api.js";
import { asAdmin, runCli } from "../helpers/cli.js";
import { dashboardPage, launchChromium, logIn } from "../helpers/dashboard-browser.js";
import { type AgentProcess, startAgent } from "../helpers/device-agent.js";
import { ADMIN_TOKEN, type LocalWorker, startLocalWorker } from "../helpers/local-worker.js";
import { type OpenClawNode, openclawArgs, provisionOpenClaw, startOpenClaw } from "../helpers/openclaw-process.js";
import { scriptedVars } from "../helpers/scripted-stack.js";
import { tempDir } from "../helpers/temp-dir.js";
import { waitUntil } from "../helpers/wait.js";

const AGENT = "oc-pi";
let llm: Awaited<ReturnType<typeof startScriptedLlm>>;
let worker: LocalWorker;
let node: OpenClawNode | undefined;
let agent: AgentProcess | undefined;
const scratch = tempDir("openclaw-e2e-");
const marker = join(scratch, "runs.txt");

const vars = () => scriptedVars(llm);

beforeAll(async () => {
  provisionOpenClaw();
  llm = await startScriptedLlm({
    port: 0,
    rules: [
      {
        match: "which kernel",
        turns: [
          { tool_calls: [{ name: "system_run", arguments: { command: ["uname", "-s"], cwd: scratch } }] },
          { content: "Node says: {{last_tool_result}}" },
        ],
      },
      {
        match: "which folders",
        turns: [
          { tool_calls: [{ name: "fs_listDir", arguments: { path: scratch } }] },
          { content: "Folders: {{last_tool_result}}" },
        ],
      },
      {
        match: "both devices",
        turns: [
          {
            tool_calls: [
              { name: "oc-key__system_run", arguments: { command: ["echo", "from-the-node"] } },
              { name: "pi-fleet__bash", arguments: { command: "echo from-the-agent" } },
            ],
          },
          { content: "done" },
        ],
      },
      {
        match: "long job",
        turns: [
          {
            tool_calls: [
              {
                name: "system_run",
                arguments: {
                  command: ["sh", "-c", `echo started >> ${marker}; sleep 6; echo finished >> ${marker}`],
                  timeout_ms: 120_000,
                },
              },
            ],
          },
          { content: "Job: {{last_tool_result}}" },
        ],
      },
    ],
  });
  worker = await startLocalWorker({ vars: vars() });
}, 900_000);

afterAll(async () => {
  await agent?.stop();
  await node?.stop();
  await worker?.stop();
  await llm?.close();
});

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

/** `edgeloop …` as an operator runs it; its stdout. */
async function edgeloop(...args: string[]): Promise<string> {
  const run = await runCli(args, { HOME: scratch, ...asAdmin(worker.url) });
  if (run.code !== 0) throw new Error(`edgeloop ${args.join(" ")}: ${run.code}\n${run.stderr}`);
  return run.stdout;
}

/** The printed line that starts with `openclaw <verb>`. */
const printed = (out: string, verb: string) =>
  out
    .split("\n")
    .map((l) => l.trim())
    .find((l) => l.startsWith(`openclaw ${verb} `))!;

type DeviceView = { online: boolean; skills: { tools: { name: string }[] }[] };
type Listed = { agent_id: string; online: boolean; tools: string[] };
/**
 * Online as `edgeloop devices` lists it: the registry, never a read by id (that read taught the
 * hub its agent id and hid a node missing from the list).
 */
const online = (agent: string, n: OpenClawNode) =>
  waitUntil(
    async () => {
      const list = JSON.parse(await edgeloop("devices", "--json")) as { devices: Listed[] };
      return list.devices.find((d) => d.agent_id === agent);
    },
    (d) => d?.online === true,
    { timeoutMs: 120_000, what: `${agent} to connect; the node's output:\n${n.child.output().slice(-3000)}` },
  ).then((d) => d!);

describe("a real OpenClaw node", () => {
  it("pairs with the printed `openclaw node run --pair …` line and runs a conversation's command", async () => {
    const line = printed(await edgeloop("openclaw", "setup", AGENT), "node");
    expect(line).toMatch(/^openclaw node run --pair oc-pair:\/\/[A-Za-z0-9_-]+$/);
    node = startOpenClaw(openclawArgs(line));
    const device = await online(AGENT, node);
    expect(device.tools).toContain("system_run");
    // The node advertises its own exec approvals (system.execApprovals.*): never a tool.
    expect(device.tools.filter((t) => /execApprovals|^worker/.test(t))).toEqual([]);
    expect(device.tools).toEqual(expect.arrayContaining(["fs_listDir", "system_run", "system_which"]));
    const reply = await sendMessage(worker.url, { agent_id: AGENT, text: "which kernel?" }, 60);
    expect(reply.body).toMatchObject({ status: "completed" });
    expect(reply.body.reply).toBe("Node says: Linux\n");
    // Its file command: the directories under a path, as the node lists them.
    mkdirSync(join(scratch, "photos"), { recursive: true });
    const dirs = await sendMessage(worker.url, { agent_id: AGENT, text: "which folders are there?" }, 60);
    expect(dirs.body).toMatchObject({ status: "completed" });
    expect(dirs.body.reply).toContain(`"path":"${join(scratch, "photos")}"`);
  }, 240_000);

  it("restarted as plain `openclaw node run`, the node signs in with the token it kept", async () => {
    const stateDir = node!.stateDir;
    await node!.stop();
    await waitUntil(
      () => fetch(`${worker.url}/v1/devices/${AGENT}`, { headers: admin }).then((r) => r.json() as Promise<DeviceView>),
      (d) => !d.online,
      { timeoutMs: 30_000, what: "the node to go offline" },
    );
    node = startOpenClaw(["node", "run"], { stateDir });
    await online(AGENT, node);
    const tokens = (await fetch(`${worker.url}/v1/devices/${AGENT}/tokens`, { headers: admin }).then((r) =>
      r.json(),
    )) as {
      tokens: { last_used_at: number | null }[];
    };
    // One token, issued at pairing, used again now: no second pairing.
    expect(tokens.tokens).toHaveLength(1);
    expect(tokens.tokens[0]!.last_used_at).not.toBeNull();
  }, 240_000);

  it("a runtime kill mid-command ends the call outcome_unknown, and the command is not run again", async () => {
    writeFileSync(marker, "");
    const accepted = await sendMessage(worker.url, { agent_id: AGENT, text: "long job" });
    const id = accepted.body.conversation_id;
    await waitUntil(
      async () => readFileSync(marker, "utf8"),
      (t) => t.includes("started"),
      { timeoutMs: 30_000, what: "the command to start on the node" },
    );
    await worker.kill();
    worker = await startLocalWorker({ vars: vars(), persistDir: worker.persistDir, port: worker.port });
    const ended = await waitUntil(
      () => getConversation(worker.url, id),
      (c) => c.status === "idle" || c.status === "completed",
      { timeoutMs: 120_000, what: "the conversation to end after the restart" },
    );
    const told = ended.messages.find((m) => m.role === "tool")!.content!;
    expect(told).toMatch(/outcome of 'system_run' is unknown/);
    expect(told).toContain("connection was cut");
    // The node killed it when its connection dropped, and nobody sent it again.
    await new Promise((r) => setTimeout(r, 8000));
    expect(readFileSync(marker, "utf8").trim().split("\n")).toEqual(["started"]);
  }, 300_000);

  it("`openclaw connect <join URL>`, the line the dashboard shows, pairs a node too", async () => {
    await node?.stop();
    const errors: string[] = [];
    const browser = await launchChromium();
    let line: string;
    try {
      const page = await dashboardPage(browser, errors);
      await logIn(page, worker.url);
      // The page's script has run (it says the worker is reachable): the form is its, not the browser's.
      await page.locator("#health", { hasText: "Worker reachable" }).waitFor({ timeout: 30_000 });
      await page.getByLabel("Device id for an OpenClaw node").fill("oc-join");
      await page.getByRole("button", { name: "Get the OpenClaw line" }).click();
      line = (await page.locator("#openclaw-connect").textContent({ timeout: 20_000 }))!;
      expect(await page.locator("#openclaw-run").textContent()).toMatch(/^openclaw node run --pair oc-pair:\/\//);
    } finally {
      await browser.close();
    }
    expect(errors).toEqual([]);
    expect(line).toMatch(/^openclaw connect http:\/\/127\.0\.0\.1:\d+\/v1\/openclaw\/oc-join\/j\/[A-Za-z0-9_-]{22}$/);
    node = startOpenClaw(openclawArgs(line));
    await online("oc-join", node);
    const reply = await sendMessage(worker.url, { agent_id: "oc-join", text: "which kernel?" }, 60);
    expect(reply.body.reply).toBe("Node says: Linux\n");
  }, 240_000);

  it("a node with only its device key waits until `edgeloop devices approve <code>`", async () => {
    await node?.stop();
    const { port } = new URL(worker.url);
    node = startOpenClaw([
      "node",
      "run",
      "--host",
      "127.0.0.1",
      "--port",
      port,
      "--context-path",
      "/v1/openclaw/oc-key",
    ]);
    const pending = await waitUntil(
      async () => edgeloop("devices", "pending", "--json"),
      (out) => (JSON.parse(out) as { pending: { agent_id: string }[] }).pending.some((p) => p.agent_id === "oc-key"),
      { timeoutMs: 120_000, what: `a pairing request; the node's output:\n${node.child.output().slice(-3000)}` },
    );
    const request = (
      JSON.parse(pending) as { pending: { agent_id: string; code: string; kind: string }[] }
    ).pending.find((p) => p.agent_id === "oc-key")!;
    expect(request.kind).toBe("openclaw");
    const listed = JSON.parse(await edgeloop("devices", "--json")) as { devices: Listed[] };
    expect(listed.devices.find((d) => d.agent_id === "oc-key")?.online ?? false).toBe(false);
    await edgeloop("devices", "approve", request.code);
    await online("oc-key", node);
    const reply = await sendMessage(worker.url, { agent_id: "oc-key", text: "which kernel?" }, 60);
    expect(reply.body.reply).toBe("Node says: Linux\n");
  }, 240_000);

  it("a fleet conversation uses the node and an edgeloop agent side by side", async () => {
    const issued = (await fetch(`${worker.url}/v1/devices/pi-fleet/tokens`, { method: "POST", headers: admin }).then(
      (r) => r.json(),
    )) as { token: string };
    agent = await startAgent({ url: worker.url, agentId: "pi-fleet", token: issued.token });
    const reply = await sendMessage(worker.url, { agent_ids: ["oc-key", "pi-fleet"], text: "ask both devices" }, 60);
    expect(reply.body).toMatchObject({ status: "completed", reply: "done" });
    const conv = await getConversation(worker.url, reply.body.conversation_id);
    const results = conv.messages.filter((m) => m.role === "tool").map((m) => m.content);
    expect(results).toEqual([expect.stringContaining("from-the-node"), expect.stringContaining("from-the-agent")]);
  }, 240_000);

  it("revoked with `edgeloop tokens revoke`, the node retries and stays out until `devices clear`", async () => {
    const tokens = JSON.parse(await edgeloop("tokens", "list", "oc-key", "--json")) as {
      tokens: { token_id: string }[];
    };
    await edgeloop("tokens", "revoke", "oc-key", tokens.tokens[0]!.token_id);
    // The real node retries on its own backoff (1, 2, 4, 8, 16 s): five refusals, no pairing request.
    type Counters = { counters: Record<string, number> };
    const before =
      ((await fetch(`${worker.url}/v1/devices/oc-key`, { headers: admin }).then((r) => r.json())) as Counters).counters
        .openclaw_refused ?? 0;
    await waitUntil(
      () => fetch(`${worker.url}/v1/devices/oc-key`, { headers: admin }).then((r) => r.json() as Promise<Counters>),
      (d) => (d.counters.openclaw_refused ?? 0) >= before + 5,
      { timeoutMs: 90_000, what: `five refused retries; the node's output:\n${node!.child.output().slice(-3000)}` },
    );
    const pendingFor = async () =>
      (
        JSON.parse(await edgeloop("devices", "pending", "--json")) as { pending: { agent_id: string }[] }
      ).pending.filter((p) => p.agent_id === "oc-key");
    expect(await pendingFor()).toEqual([]);
    expect(await edgeloop("devices")).toMatch(/oc-key\s+revoked/);
    expect(await edgeloop("devices", "clear", "oc-key")).toContain("Cleared 1 revoked key(s) of oc-key");
    // Cleared, it asks again at its next retry (at most 30 s later), for an admin to decide.
    await waitUntil(pendingFor, (p) => p.length === 1, { timeoutMs: 60_000, what: "the node to ask again" });
  }, 240_000);
});
