/**
 * A conversation over several devices (docs/fleet.md), the way users run it: plain `wrangler dev`,
 * two real device agents, the scripted model. Each device's tools reach the model under
 * `{agent_id}__{tool}` plus a device-less name edgeloop routes; a pool in fleet mode and a `task`
 * handed to a pool use both devices; a device killed mid-conversation gives the model an honest
 * `not_sent` and the next routed call goes to the other device (docs/architecture.md#call-endings);
 * approvals ask, and remember, by the device and its own tool name.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlm } from "../../scripted-llm/server.js";
import { getConversation, sendMessage } from "../helpers/api.js";
import { type AgentProcess, startAgent } from "../helpers/device-agent.js";
import { ADMIN_TOKEN, API_TOKEN, type LocalWorker, startLocalWorker } from "../helpers/local-worker.js";
import { REPO_ROOT } from "../helpers/processes.js";
import { tempDir } from "../helpers/temp-dir.js";
import { waitUntil } from "../helpers/wait.js";

const [A, B] = ["fleet-a", "fleet-b"];
const TOKENS: Record<string, string> = { [A]: "fleet-a-device-token", [B]: "fleet-b-device-token" };
let llm: Awaited<ReturnType<typeof startScriptedLlm>>;
let worker: LocalWorker;
const agents: Record<string, AgentProcess> = {};

const bash = (name: string, command: string) => ({ name, arguments: { command } });

beforeAll(async () => {
  llm = await startScriptedLlm({
    port: 0,
    rules: [
      {
        match: "both devices",
        turns: [
          { tool_calls: [bash(`${A}__bash`, "echo ran-on-a"), bash(`${B}__bash`, "echo ran-on-b")] },
          { content: "Both answered." },
        ],
      },
      {
        match: "child job",
        turns: [{ tool_calls: [bash("bash", "echo child-ran")] }, { content: "child: {{last_tool_result}}" }],
      },
      {
        match: "delegate",
        turns: [
          { tool_calls: [{ name: "task", arguments: { prompt: "child job for the lab", pool: "lab" } }] },
          { content: "delegated -> {{last_tool_result}}" },
        ],
      },
      {
        match: "after the kill",
        turns: [
          { tool_calls: [bash(`${A}__bash`, "echo named-a"), bash("bash", "echo routed-after-kill")] },
          { content: "{{tool_results}}" },
        ],
      },
      {
        match: "status of b",
        turns: [{ tool_calls: [{ name: `${B}__git_status`, arguments: {} }] }, { content: "status seen" }],
      },
      {
        match: "pool fleet",
        turns: [{ tool_calls: [bash("bash", "echo pool-routed")] }, { content: "pool: {{last_tool_result}}" }],
      },
    ],
  });
  worker = await startLocalWorker({
    vars: {
      OPENAI_BASE_URL: llm.url,
      OPENAI_API_KEY: "x",
      LLM_MODEL: "scripted",
      DEVICE_TOKENS: `${A}:${TOKENS[A]},${B}:${TOKENS[B]}`,
      POOLS: `lab:${A}|${B}`,
      TOOL_POLICIES: "git_status:requires_approval",
    },
  });
  for (const id of [A, B]) agents[id] = await startAgent({ url: worker.url, agentId: id, token: TOKENS[id]! });
});

afterAll(async () => {
  for (const agent of Object.values(agents)) await agent.stop();
  await worker?.stop();
  await llm?.close();
});

type AuditRow = { tool: string; parameters: { command?: string }; conversation_id: string; result: string };

async function audit(agentId: string): Promise<AuditRow[]> {
  const res = await fetch(`${worker.url}/v1/audit?agent_id=${agentId}`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  return ((await res.json()) as { entries: AuditRow[] }).entries;
}

const commandsRun = async (agentId: string) => (await audit(agentId)).map((r) => `${r.tool}:${r.parameters.command}`);

type ChatRequest = { messages: { role: string; content: string | null }[]; tools?: { function: { name: string } }[] };

describe("a fleet conversation", () => {
  let conversation: string;

  it("shows the model both devices' tools under names that never collide, and runs each on its device", async () => {
    const res = await sendMessage(worker.url, { agent_ids: [A, B], text: "check both devices" }, 60);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: "completed", reply: "Both answered." });
    expect(res.body.tool_calls.map((c) => [c.name, c.status])).toEqual([
      [`${A}__bash`, "success"],
      [`${B}__bash`, "success"],
    ]);
    conversation = res.body.conversation_id;
    const first = llm.requests()[0]!.body as ChatRequest;
    const names = first.tools!.map((t) => t.function.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual(expect.arrayContaining(["bash", `${A}__bash`, `${B}__bash`, `${A}__gpio_read`, "task"]));
    // Each call went through its own device's hub: its ledger and its audit log.
    expect(await commandsRun(A)).toEqual(["bash:echo ran-on-a"]);
    expect(await commandsRun(B)).toEqual(["bash:echo ran-on-b"]);
  });

  it("hands a sub-task to a pool: the child runs over the pool's devices", async () => {
    const res = await sendMessage(worker.url, { agent_id: A, text: "delegate this" }, 60);
    expect(res.body).toMatchObject({ status: "completed" });
    expect(res.body.reply).toContain("child: child-ran");
    const child = llm
      .requests()
      .map((r) => r.body as ChatRequest)
      .find((b) => b.messages.some((m) => m.role === "user" && m.content === "child job for the lab"));
    expect(child?.tools?.map((t) => t.function.name)).toEqual(expect.arrayContaining([`${A}__bash`, `${B}__bash`]));
    const ran = [...(await commandsRun(A)), ...(await commandsRun(B))];
    expect(ran.filter((c) => c === "bash:echo child-ran")).toHaveLength(1);
  });

  it("is what the CLI sends for --agent a,b", async () => {
    const run = await new Promise<{ code: number | null; stdout: string }>((resolve, reject) => {
      const child = spawn(
        process.execPath,
        [
          join(REPO_ROOT, "cli/bin/edgeloop.js"),
          "send",
          "both devices again",
          "--agent",
          `${A},${B}`,
          "--wait",
          "--json",
        ],
        {
          cwd: REPO_ROOT,
          env: {
            PATH: process.env.PATH!,
            HOME: tempDir("edgeloop-fleet-home-"),
            EDGELOOP_URL: worker.url,
            EDGELOOP_TOKEN: API_TOKEN,
          },
          stdio: ["ignore", "pipe", "inherit"],
        },
      );
      let stdout = "";
      child.stdout.on("data", (c) => (stdout += c));
      child.on("error", reject);
      child.on("close", (code) => resolve({ code, stdout }));
    });
    expect(run.code).toBe(0);
    const ended = run.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; toolName?: string })
      .filter((e) => e.type === "tool_execution_end")
      .map((e) => e.toolName);
    // Parallel calls: they may end in either order.
    expect(ended.sort()).toEqual([`${A}__bash`, `${B}__bash`].sort());
  });

  it("tells the model a killed device is offline, and routes the next call to the other device", async () => {
    await agents[A]!.kill();
    delete agents[A];
    await waitUntil(
      () =>
        fetch(`${worker.url}/v1/devices/${A}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }).then(
          (r) => r.json() as Promise<{ online: boolean }>,
        ),
      (d) => d.online === false,
      { timeoutMs: 20_000, what: `${A} offline` },
    );
    const res = await sendMessage(
      worker.url,
      { conversation_id: conversation, agent_ids: [A, B], text: "after the kill" },
      60,
    );
    expect(res.body).toMatchObject({ status: "completed" });
    expect(res.body.tool_calls.map((c) => [c.name, c.status, c.error_type])).toEqual([
      [`${A}__bash`, "error", "not_sent"],
      ["bash", "success", undefined],
    ]);
    const view = await getConversation(worker.url, conversation);
    const told = view.messages.filter((m) => m.role === "tool").map((m) => m.content ?? "");
    const offline = told.find((t) => t.includes(`device '${A}' is offline`));
    expect(offline).toMatch(/did not run/);
    expect(offline).toContain(`${B}__bash`);
    expect(await commandsRun(B)).toContain("bash:echo routed-after-kill");
    expect(await commandsRun(A)).not.toContain("bash:echo named-a");
  });

  it("runs a pool in fleet mode on whichever device is online", async () => {
    const res = await sendMessage(worker.url, { pool: "lab", mode: "fleet", text: "pool fleet" }, 60);
    expect(res.body.status).toBe("completed");
    expect(res.body.reply?.trim()).toBe("pool: pool-routed");
    expect(await commandsRun(B)).toContain("bash:echo pool-routed");
  });

  it("asks approval under the device's own tool name, and remembers an `always` for that device", async () => {
    const first = await sendMessage(worker.url, { agent_ids: [A, B], text: "status of b" });
    const id = first.body.conversation_id;
    type Pending = { id: string; state: string; rule_target?: { agent_id: string | null; tool: string } };
    const view = await waitUntil(
      () =>
        fetch(`${worker.url}/v1/conversations/${id}`, { headers: { authorization: `Bearer ${API_TOKEN}` } }).then(
          (r) => r.json() as Promise<{ pending_tool_calls: Pending[] }>,
        ),
      (v) => v.pending_tool_calls.some((p) => p.state === "awaiting_approval"),
      { timeoutMs: 20_000, what: "the call to wait for approval" },
    );
    const call = view.pending_tool_calls[0]!;
    expect(call.rule_target).toEqual({ agent_id: B, tool: "git_status" });
    const decided = await fetch(`${worker.url}/v1/conversations/${id}/approvals/${call.id}`, {
      method: "POST",
      headers: { authorization: `Bearer ${API_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ approve: true, scope: "always" }),
    });
    expect(decided.status).toBe(200);
    expect(((await decided.json()) as { rule: object }).rule).toMatchObject({ agent_id: B, tool: "git_status" });
    // The next conversation's call to that device's tool is answered by the rule, without asking.
    const again = await sendMessage(worker.url, { agent_ids: [A, B], text: "status of b, again" }, 60);
    expect(again.body.status).toBe("completed");
    const summary = again.body.tool_calls[0] as { name: string; decided_by?: string };
    expect(summary.name).toBe(`${B}__git_status`);
    expect(summary.decided_by).toMatch(/^rule:/);
  });
});
