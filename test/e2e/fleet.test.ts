/**
 * A conversation over several devices (docs/fleet.md), the way users run it: plain `wrangler dev`,
 * two real device agents, the scripted model. Each device's tools reach the model under
 * `{agent_id}__{tool}` plus a device-less name edgeloop routes; a pool in fleet mode and a `task`
 * handed to a pool use both devices; a device killed mid-conversation gives the model an honest
 * `not_sent` and the next routed call goes to the other device (docs/architecture.md#call-endings);
 * approvals ask, and remember, by the device and its own tool name. The dashboard's form and a
 * schedule start fleet conversations too.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ScriptedLlm } from "../../scripted-llm/server.js";
import { getConversation, sendMessage } from "../helpers/api.js";
import { asClient, runCli } from "../helpers/cli.js";
import { dashboardPage, launchChromium, logIn } from "../helpers/dashboard-browser.js";
import { type AgentProcess, startAgent } from "../helpers/device-agent.js";
import { ADMIN_TOKEN, API_TOKEN, type LocalWorker } from "../helpers/local-worker.js";
import { startScriptedStack } from "../helpers/scripted-stack.js";
import { tempDir } from "../helpers/temp-dir.js";
import { waitUntil } from "../helpers/wait.js";

const [A, B] = ["fleet-a", "fleet-b"];
const TOKENS: Record<string, string> = { [A]: "fleet-a-device-token", [B]: "fleet-b-device-token" };
let llm: ScriptedLlm;
let worker: LocalWorker;
const agents: Record<string, AgentProcess> = {};

const bash = (name: string, command: string) => ({ name, arguments: { command } });

beforeAll(async () => {
  ({ llm, worker } = await startScriptedStack({
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
    devices: TOKENS,
    vars: {
      POOLS: `lab:${A}|${B}`,
      TOOL_POLICIES: "git_status:requires_approval",
    },
  }));
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

/** The commands a conversation ran on the fleet's devices, as `device:command`, from their audit logs. */
async function ranIn(conversationId: string): Promise<string[]> {
  const rows = await Promise.all(
    [A, B].map(async (id) =>
      (await audit(id)).filter((r) => r.conversation_id === conversationId).map((r) => `${id}:${r.parameters.command}`),
    ),
  );
  return rows.flat();
}

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
    const run = await runCli(["send", "both devices again", "--agent", `${A},${B}`, "--wait", "--json"], {
      HOME: tempDir("edgeloop-fleet-home-"),
      ...asClient(worker.url),
    });
    expect(run.code, run.stderr).toBe(0);
    const ended = run.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; toolName?: string })
      .filter((e) => e.type === "tool_execution_end")
      .map((e) => e.toolName);
    // Parallel calls: they may end in either order.
    expect(ended.sort()).toEqual([`${A}__bash`, `${B}__bash`].sort());
  });

  it("is what the dashboard's forms send for several devices: a message, a schedule", async () => {
    const browser = await launchChromium();
    try {
      const errors: string[] = [];
      const page = await dashboardPage(browser, errors);
      await logIn(page, worker.url);
      await page.locator('#chat-target option[value="fleet:"]').waitFor({ state: "attached", timeout: 15_000 });
      await page.selectOption("#chat-target", "fleet:");
      await page.getByRole("checkbox", { name: A }).check();
      await page.getByRole("checkbox", { name: B }).check();
      await page.getByLabel("Message", { exact: true }).fill("dashboard: both devices");
      await page.getByRole("button", { name: "Send", exact: true }).click();
      // The timeline may show an earlier fleet conversation with the same reply: wait for the send first.
      await expect
        .poll(() => page.locator("#chat-status").textContent(), { timeout: 15_000 })
        .toContain(`Sent to ${A}, ${B}`);
      await page.locator("#timeline li.user", { hasText: "dashboard: both devices" }).waitFor({ timeout: 15_000 });
      await page.locator("#timeline li.reply", { hasText: "Both answered." }).waitFor({ timeout: 30_000 });
      const id = (await page.locator("#chat-target").inputValue()).slice("conv:".length);
      expect(await ranIn(id)).toEqual([`${A}:echo ran-on-a`, `${B}:echo ran-on-b`]);

      // The schedules panel takes several comma-separated devices as a fleet schedule.
      await page.getByLabel(/^Device id, or several/).fill(`${A}, ${B}`);
      await page.getByLabel("Message text").fill("nightly: both devices");
      await page.getByLabel("Cron expression or interval in seconds").fill("0 3 * * *");
      await page.getByRole("button", { name: "Schedule", exact: true }).click();
      await page.locator("#schedules td", { hasText: `${A}, ${B}` }).waitFor({ timeout: 10_000 });
      const listed = (await (
        await fetch(`${worker.url}/v1/schedules`, { headers: { authorization: `Bearer ${API_TOKEN}` } })
      ).json()) as { schedules: { schedule_id: string; agent_ids: string[] | null; text: string }[] };
      const nightly = listed.schedules.find((s) => s.text === "nightly: both devices")!;
      expect(nightly.agent_ids).toEqual([A, B]);
      await fetch(`${worker.url}/v1/schedules/${nightly.schedule_id}`, {
        method: "DELETE",
        headers: { authorization: `Bearer ${API_TOKEN}` },
      });
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
  });

  it("runs a schedule over the fleet on both devices", async () => {
    const created = await fetch(`${worker.url}/v1/schedules`, {
      method: "POST",
      headers: { authorization: `Bearer ${API_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ agent_ids: [A, B], text: "scheduled: both devices", at: Date.now() + 1500 }),
    });
    expect(created.status).toBe(201);
    const { schedule_id } = (await created.json()) as { schedule_id: string };
    const s = await waitUntil(
      () =>
        fetch(`${worker.url}/v1/schedules/${schedule_id}`, { headers: { authorization: `Bearer ${API_TOKEN}` } }).then(
          (r) => r.json() as Promise<{ state: string; last_run: { outcome: string; conversation_id: string } | null }>,
        ),
      (v) => v.state === "done",
      { timeoutMs: 20_000, what: "the schedule to run" },
    );
    expect(s.last_run?.outcome).toBe("posted");
    const id = s.last_run!.conversation_id;
    await waitUntil(
      () => getConversation(worker.url, id),
      (v) => v.status === "completed",
      { timeoutMs: 30_000, what: "the scheduled run to complete" },
    );
    expect(await ranIn(id)).toEqual([`${A}:echo ran-on-a`, `${B}:echo ran-on-b`]);
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
