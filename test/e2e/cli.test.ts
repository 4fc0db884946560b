/**
 * Issue 6: the operator CLI, spawned as a real process against a real worker (wrangler dev), a
 * real device agent and the scripted model.
 */
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ScriptedLlm } from "../../scripted-llm/server.js";
import { asAdmin, CLI_BIN, type CliRun, runCli } from "../helpers/cli.js";
import { type AgentProcess, startAgent } from "../helpers/device-agent.js";
import { ADMIN_TOKEN, API_TOKEN, type LocalWorker } from "../helpers/local-worker.js";
import { REPO_ROOT } from "../helpers/processes.js";
import { startScriptedStack } from "../helpers/scripted-stack.js";
import { tempDir } from "../helpers/temp-dir.js";
import { waitUntil } from "../helpers/wait.js";

const AGENT = "pi-cli";
const DEVICE_TOKEN = "cli-device-token";
let llm: ScriptedLlm;
let worker: LocalWorker;
let agent: AgentProcess;
let home: string;

/** The CLI as a user runs it; env carries the URL and token, and HOME is empty so no config leaks in. */
function cli(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return runCli(args, { HOME: home, XDG_CONFIG_HOME: join(home, ".config"), ...asAdmin(worker.url), ...env });
}

beforeAll(async () => {
  home = tempDir("edgeloop-cli-home-");
  ({ llm, worker } = await startScriptedStack({
    rules: [
      {
        match: "uptime",
        turns: [
          { tool_calls: [{ name: "bash", arguments: { command: "echo up-42-days" } }] },
          { content: "The device says {{last_tool_result}}" },
        ],
      },
      {
        match: "needs approval",
        turns: [
          { tool_calls: [{ name: "git_commit", arguments: { message: "cli test", all: true } }] },
          { content: "Commit result: {{last_tool_result}}" },
        ],
      },
    ],
    devices: { [AGENT]: DEVICE_TOKEN },
    vars: {
      TOOL_POLICIES: "git_commit:requires_approval",
    },
  }));
  agent = await startAgent({ url: worker.url, agentId: AGENT, token: DEVICE_TOKEN });
});

afterAll(async () => {
  await agent?.stop();
  await worker?.stop();
  await llm?.close();
});

describe("edgeloop CLI", () => {
  it("send --wait streams the tool call with its arguments, its result, and the reply", async () => {
    const r = await cli(["send", "what is the uptime", "--agent", AGENT, "--wait", "--timeout", "60"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const lines = r.stdout.split("\n");
    const call = lines.findIndex((l) => l.startsWith("→ bash") && l.includes('{"command":"echo up-42-days"}'));
    const result = lines.findIndex((l) => l.startsWith("✓ bash") && l.includes("up-42-days"));
    const reply = lines.findIndex((l) => l.includes("The device says up-42-days"));
    const end = lines.findIndex((l) => l.startsWith("── completed (answer)"));
    // In the order they happened.
    expect(call).toBeGreaterThan(-1);
    expect(result).toBeGreaterThan(call);
    expect(reply).toBeGreaterThan(result);
    expect(end).toBeGreaterThan(reply);
  });

  it("send --wait --json prints the events as JSON lines", async () => {
    const r = await cli(["send", "uptime again", "--agent", AGENT, "--wait", "--json"]);
    expect(r.code).toBe(0);
    const events = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; toolName?: string; reply?: string });
    expect(events[0]!.type).toBe("message_start");
    expect(events.some((e) => e.type === "tool_execution_end" && e.toolName === "bash")).toBe(true);
    expect(events.at(-1)).toMatchObject({ type: "conversation_end", reply: "The device says up-42-days\n" });
  });

  it("status shows the worker, the device online and its tools", async () => {
    const r = await cli(["status", "--tools"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`worker   ${worker.url}  reachable`);
    expect(r.stdout).toContain("devices  1 online, 0 offline");
    expect(r.stdout).toMatch(new RegExp(`${AGENT}\\s+online`));
    expect(r.stdout).toMatch(new RegExp(`${AGENT}: .*\\bbash\\b`));
  });

  it("devices lists the device, as a table and as JSON", async () => {
    const table = await cli(["devices"], { COLUMNS: "80" });
    expect(table.code).toBe(0);
    expect(table.stdout.split("\n")[0]).toMatch(/^DEVICE\s+STATE\s+VERSION/);
    // Last seen: an online device is seen now, not at the time it connected.
    expect(table.stdout).toMatch(new RegExp(`${AGENT}\\s+online\\s+\\S+\\s+now\\b`));
    // The tools column is cut to fit 80 columns.
    for (const line of table.stdout.trimEnd().split("\n")) expect([...line].length).toBeLessThanOrEqual(80);
    const json = await cli(["devices", "--json"]);
    const body = JSON.parse(json.stdout) as { devices: { agent_id: string; online: boolean; tools: string[] }[] };
    expect(body.devices.find((d) => d.agent_id === AGENT)).toMatchObject({ online: true });
  });

  it("metrics --json has the tool counts, and the text view summarises them", async () => {
    const r = await cli(["metrics", "--json"]);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as {
      tools: { overall: { tool: string; total_calls: number; success_count: number }[] };
      loop: { conversations: number };
    };
    const bash = report.tools.overall.find((t) => t.tool === "bash");
    expect(bash?.total_calls).toBeGreaterThanOrEqual(2);
    expect(bash?.success_count).toBeGreaterThanOrEqual(2);
    expect(report.loop.conversations).toBeGreaterThanOrEqual(2);
    const text = await cli(["metrics", "--tools"]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^bash\s+\d+\s+100%/m);
  });

  it("logs shows the audit rows, filtered by tool and agent", async () => {
    const r = await cli(["logs", "--filter", "bash", "--agent", AGENT, "--since", "1h"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^TIME\s+AGENT\s+TOOL\s+RESULT/);
    expect(r.stdout).toMatch(new RegExp(`${AGENT}\\s+bash\\s+ok`));
    expect(r.stdout).toContain("echo up-42-days");
    const json = JSON.parse((await cli(["logs", "--json", "--filter", "git_commit"])).stdout) as { entries: unknown[] };
    expect(json.entries).toEqual([]);
  });

  it("logs --follow prints new audit rows as calls finish", async () => {
    const child = spawn(
      process.execPath,
      [CLI_BIN, "logs", "--follow", "--json", "--interval", "0.5", "--filter", "bash"],
      {
        cwd: REPO_ROOT,
        env: { PATH: process.env.PATH!, HOME: home, EDGELOOP_URL: worker.url, EDGELOOP_ADMIN_TOKEN: ADMIN_TOKEN },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let out = "";
    child.stdout.on("data", (c) => (out += c));
    try {
      await new Promise((r) => setTimeout(r, 1500));
      expect((await cli(["send", "uptime for follow", "--agent", AGENT, "--wait"])).code).toBe(0);
      await waitUntil(
        async () => out,
        (o) => o.includes("up-42-days"),
        { timeoutMs: 20_000, what: "a followed audit row" },
      );
    } finally {
      child.kill("SIGINT");
    }
    const row = JSON.parse(out.trim().split("\n").at(-1)!) as { tool: string; result: string };
    expect(row).toMatchObject({ tool: "bash", result: "success" });
  });

  it("shows a call waiting for approval, approves it, and the conversation finishes", async () => {
    const sent = await cli(["send", "needs approval", "--agent", AGENT, "--json"]);
    expect(sent.code).toBe(0);
    const { conversation_id } = JSON.parse(sent.stdout) as { conversation_id: string };
    const status = await waitUntil(
      async () =>
        JSON.parse((await cli(["status", "--json"])).stdout) as {
          pending: { conversation_id: string; id: string; name: string; state: string }[];
        },
      (s) => s.pending.some((p) => p.conversation_id === conversation_id),
      { timeoutMs: 30_000, what: "the pending approval in status" },
    );
    const call = status.pending.find((p) => p.conversation_id === conversation_id)!;
    expect(call).toMatchObject({ name: "git_commit", state: "awaiting_approval" });
    const text = await cli(["status"]);
    expect(text.stdout).toContain("pending  1 approval(s)");
    const approved = await cli(["approve", conversation_id, call.id]);
    expect(approved.code).toBe(0);
    expect(approved.stdout).toContain(`Approved ${call.id}`);
    const done = await waitUntil(
      async () => JSON.parse((await cli(["conversations", conversation_id, "--json"])).stdout) as { status: string },
      (v) => v.status === "completed",
      { timeoutMs: 30_000, what: "the approved conversation to finish" },
    );
    expect(done.status).toBe("completed");
    // Approving again: the finished call is no longer pending in that conversation, so: not found.
    expect((await cli(["approve", conversation_id, call.id])).code).toBe(3);
  });

  it("creates, lists and revokes a device token", async () => {
    const created = await cli(["tokens", "create", AGENT, "--json"]);
    expect(created.code).toBe(0);
    const issued = JSON.parse(created.stdout) as { token_id: string; token: string };
    expect(issued.token).toMatch(/^edl_/);
    const listed = await cli(["tokens", "list", AGENT]);
    expect(listed.stdout).toContain(issued.token_id);
    const revoked = await cli(["tokens", "revoke", AGENT, issued.token_id]);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toContain(`Revoked ${issued.token_id}`);
    const again = await cli(["tokens", "revoke", AGENT, issued.token_id]);
    expect(again.code).toBe(3);
  });

  it("lists devices waiting to pair and denies one; a decided code is refused, a malformed one never sent", async () => {
    const res = await fetch(`${worker.url}/v1/pairing`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ agent_id: AGENT, label: "cli test" }),
    });
    const { code } = (await res.json()) as { code: string };
    expect((await cli(["status"])).stdout).toContain("pairing  1 device(s) waiting: edgeloop devices pending");
    const pending = await cli(["devices", "pending"]);
    expect(pending.code).toBe(0);
    expect(pending.stdout).toMatch(new RegExp(`${code}.*${AGENT} \\(already exists!\\).*cli test`));
    const denied = await cli(["devices", "deny", code]);
    expect(denied.code, denied.stderr).toBe(0);
    expect(denied.stdout).toContain(`Denied ${code}`);
    const again = await cli(["devices", "approve", code]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("409 Already decided");
    expect((await cli(["devices", "approve", "ABCD-0000"])).code).toBe(2);
    expect((await cli(["devices", "deny", code, "--as", "x"])).code).toBe(2);
    expect((await cli(["devices", "approve"])).code).toBe(2);
  });

  it("issues a scoped key, which then works as --token for its own device only, and revokes it", async () => {
    const created = await cli([
      "keys",
      "create",
      "cli tenant",
      "--agent",
      AGENT,
      "--scope",
      "messages,conversations:read",
    ]);
    expect(created.code).toBe(0);
    const key = created.stdout.trim().split("\n").at(-1)!;
    expect(key).toMatch(/^edk_/);
    const listed = await cli(["keys", "list"]);
    expect(listed.stdout).toContain("cli tenant");
    expect(listed.stdout).not.toContain(key);
    const asKey = { EDGELOOP_ADMIN_TOKEN: "", EDGELOOP_TOKEN: key };
    expect((await cli(["conversations"], asKey)).stdout).not.toContain("pi-cli");
    expect((await cli(["send", "uptime", "--agent", "pi-other"], asKey)).code).toBe(4);
    const keyId = (
      JSON.parse((await cli(["keys", "list", "--json"])).stdout) as { keys: { key_id: string; name: string }[] }
    ).keys.find((k) => k.name === "cli tenant")!.key_id;
    expect((await cli(["keys", "revoke", keyId])).stdout).toContain(`Revoked ${keyId}`);
    expect((await cli(["conversations"], asKey)).code).toBe(4);
    expect((await cli(["keys", "create", "no devices"])).code).toBe(2);
  });

  it("with only the API token, an admin command says the admin token is needed and where to set it", async () => {
    const r = await cli(["keys", "list"], { EDGELOOP_ADMIN_TOKEN: "", EDGELOOP_TOKEN: API_TOKEN });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain("403 Admin token required: this endpoint needs the admin token (ADMIN_TOKEN)");
    expect(r.stderr).toContain("set EDGELOOP_ADMIN_TOKEN");
  });

  it("reads url, token and agent from a config file", async () => {
    const path = join(home, "custom.toml");
    writeFileSync(path, `url = "${worker.url}"\nadmin_token = "${ADMIN_TOKEN}"\nagent = "${AGENT}"\n`);
    const r = await cli(["devices", "--config", path], { EDGELOOP_URL: "", EDGELOOP_ADMIN_TOKEN: "" });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(AGENT);
    writeFileSync(path, `url = "${worker.url}"\nadmn_token = "typo"\n`);
    const bad = await cli(["devices", "--config", path], { EDGELOOP_URL: "", EDGELOOP_ADMIN_TOKEN: "" });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("admn_token");
  });

  it("exits 3 for not found, 4 for a bad token, 2 for bad usage, 1 when the worker is down", async () => {
    expect((await cli(["approve", "conv_missing", "call_missing"])).code).toBe(3);
    expect((await cli(["conversations", "conv_missing"])).code).toBe(3);
    // A device with no token that never connected: refused by name, nothing sent, not exit 0.
    const unknown = await cli(["send", "hi", "--agent", "pi-9", "--wait"]);
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toContain("404 Unknown device: no device 'pi-9'");
    const auth = await cli(["devices"], { EDGELOOP_ADMIN_TOKEN: "wrong-token" });
    expect(auth.code).toBe(4);
    expect(auth.stderr).toContain("401");
    expect((await cli(["metrics"], { EDGELOOP_ADMIN_TOKEN: "", EDGELOOP_TOKEN: "wrong" })).code).toBe(4);
    expect((await cli(["frobnicate"])).code).toBe(2);
    expect((await cli(["send"])).code).toBe(2);
    expect((await cli(["send", "hi", "--agent", AGENT, "--bogus-flag"])).code).toBe(2);
    expect((await cli(["tokens", "revoke", AGENT, "not-a-token-id"])).code).toBe(2);
    expect((await cli(["devices"], { EDGELOOP_URL: "not a url" })).code).toBe(2);
    expect((await cli(["status"], { EDGELOOP_URL: "http://127.0.0.1:9" })).code).toBe(1);
  });
});
