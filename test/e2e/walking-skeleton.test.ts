/**
 * End to end with real processes: wrangler dev running the worker, a real `edgeloop-agent` child
 * process with the bundled skills, real tool binaries, and the scripted OpenAI-compatible model.
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { storedEvents } from "../../bench/lib/conversation-events.js";
import type { ScopedLlm } from "../../scripted-llm/scope-client.js";
import { getConversation, sendMessage } from "../helpers/api.js";
import { type AgentProcess, startAgent } from "../helpers/device-agent.js";
import { joinSharedStack, type SharedStack } from "../helpers/shared-stack.js";
import { tempDir } from "../helpers/temp-dir.js";
import { waitUntil } from "../helpers/wait.js";

const DEVICE_TOKEN = "e2e-device-token-skeleton-1";
/** A sleep no other process on the machine runs, so we can look for it by its command line. */
const SLEEP_SECONDS = 3000 + Math.floor(Math.random() * 6000);
let llm: ScopedLlm;
let worker: SharedStack["worker"];
let agent: AgentProcess;
let workspace: string;

function git(args: string[], cwd: string, date?: string): string {
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: "Bowen",
    GIT_AUTHOR_EMAIL: "bowen@example.com",
    GIT_COMMITTER_NAME: "Bowen",
    GIT_COMMITTER_EMAIL: "bowen@example.com",
    ...(date ? { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date } : {}),
  };
  return execFileSync("git", args, { cwd, env }).toString();
}

beforeAll(async () => {
  workspace = tempDir("edgeloop-e2e-ws-");
  // A repository of three commits, the last one adding fix().
  git(["init", "-q", "-b", "main"], workspace);
  writeFileSync(join(workspace, "main.go"), "package main\n");
  git(["add", "."], workspace);
  git(["commit", "-q", "-m", "Initial commit"], workspace, "2025-02-13T10:00:00Z");
  writeFileSync(join(workspace, "feature.go"), "package main\nfunc feature() {}\n");
  git(["add", "."], workspace);
  git(["commit", "-q", "-m", "Add feature"], workspace, "2025-02-14T10:00:00Z");
  writeFileSync(join(workspace, "main.go"), "package main\nfunc fix() {}\n");
  git(["add", "."], workspace);
  git(["commit", "-q", "-m", "Fix bug"], workspace, "2025-02-15T10:00:00Z");

  // The suite's shared worker, whose DEVICE_RESULT_GRACE_MS is 1000 (shared-stack-config.ts).
  ({ llm, worker } = await joinSharedStack({
    scope: "walking-skeleton",
    rules: [
      {
        match: "marker file",
        turns: [
          {
            content:
              "I will read the marker file with bash now, and then tell you exactly what it says and where it ran.",
            tool_calls: [{ name: "bash", arguments: { command: "cat marker.txt && echo ran-on=$(hostname)" } }],
          },
          { content: "The device says: {{last_tool_result}}" },
        ],
      },
      {
        match: "last 3 commits",
        turns: [
          { tool_calls: [{ name: "git_log", arguments: { max_count: 3 } }] },
          { tool_calls: [{ name: "git_diff", arguments: { commit: "HEAD" } }] },
          { content: "Here are the commits and the latest diff:\n{{tool_results}}" },
        ],
      },
      {
        match: "sleep forever",
        turns: [
          { tool_calls: [{ name: "bash", arguments: { command: `exec sleep ${SLEEP_SECONDS}`, timeout_ms: 1500 } }] },
          { content: "The command did not finish: {{last_tool_result}}" },
        ],
      },
      {
        match: "offline check",
        turns: [
          { tool_calls: [{ name: "bash", arguments: { command: "uptime", timeout_ms: 1000 } }] },
          { content: "Result: {{last_tool_result}}" },
        ],
      },
      {
        match: "unknown tool",
        turns: [
          { tool_calls: [{ name: "teleport", arguments: { where: "mars" } }] },
          { content: "Could not: {{last_tool_result}}" },
        ],
      },
    ],
    devices: { "skeleton-1": DEVICE_TOKEN, "skeleton-2": "e2e-device-token-skeleton-2" },
  }));
  agent = await startAgent({ url: worker.url, agentId: "skeleton-1", token: DEVICE_TOKEN, workspace });
});

afterAll(async () => {
  await agent?.stop();
  await llm?.close();
});

describe("walking skeleton: webhook → conversation DO → device agent → skill binary → reply", () => {
  it("a bash call whose real output reaches the final reply", async () => {
    const marker = `marker-${Math.random().toString(36).slice(2)}`;
    writeFileSync(join(workspace, "marker.txt"), `${marker}\n`);
    const { status, body } = await sendMessage(
      worker.url,
      { agent_id: "skeleton-1", text: "What is in the marker file?" },
      60,
    );
    expect(status).toBe(200);
    expect(body.status).toBe("completed");
    expect(body.reply).toContain(marker);
    expect(body.reply).toContain(`ran-on=${execFileSync("hostname").toString().trim()}`);
    expect(body.tool_calls).toMatchObject([{ name: "bash", status: "success" }]);
    expect(body.iterations).toBe(2);

    // The model was offered the device's tools, generated from the skill manifests.
    const first = (await llm.requests())[0]!.body as { tools: { function: { name: string } }[] };
    const names = first.tools.map((t) => t.function.name);
    expect(names).toEqual(expect.arrayContaining(["bash", "read", "git_log", "git_diff"]));

    // The model's streamed text is in the event stream: each turn's deltas, before its
    // message_end, add up to its text, gathered into fewer events than the chunks it came in (the
    // scripted model sends two words per chunk, a millisecond apart).
    const events = (await storedEvents(worker.url, body.conversation_id)) as unknown as {
      type: string;
      delta?: string;
      content?: string | null;
    }[];
    const turns: { text: string; deltas: number }[] = [];
    let text = "";
    let deltas = 0;
    for (const e of events) {
      if (e.type === "message_delta") {
        text += e.delta;
        deltas++;
      } else if (e.type === "message_end") {
        expect(e.content).toBe(text);
        turns.push({ text, deltas });
        text = "";
        deltas = 0;
      }
    }
    expect(turns.map((t) => t.text)).toEqual([
      "I will read the marker file with bash now, and then tell you exactly what it says and where it ran.",
      body.reply,
    ]);
    const chunks =
      "I will read the marker file with bash now, and then tell you exactly what it says and where it ran.".split(" ")
        .length / 2;
    expect(turns[0]!.deltas).toBeGreaterThanOrEqual(1);
    expect(turns[0]!.deltas).toBeLessThan(chunks);
  });

  it("git_log then git_diff on a real repo, both results in the history in order", async () => {
    const { body } = await sendMessage(
      worker.url,
      { agent_id: "skeleton-1", text: "List the last 3 commits and show the diff for the most recent one" },
      60,
    );
    expect(body.status).toBe("completed");
    expect(body.tool_calls.map((c) => c.name)).toEqual(["git_log", "git_diff"]);
    const conv = await getConversation(worker.url, body.conversation_id);
    const toolMessages = conv.messages.filter((m) => m.role === "tool");
    expect(toolMessages).toHaveLength(2);
    const [log, diff] = toolMessages.map((m) => m.content ?? "");
    expect(log).toMatch(/Fix bug[\s\S]*Add feature[\s\S]*Initial commit/);
    expect(diff).toContain("+func fix() {}");
    // The assistant messages that asked for them come before each result.
    const order = conv.messages.map((m) => m.role);
    expect(order).toEqual(["user", "assistant", "tool", "assistant", "tool", "assistant"]);
    expect(body.reply).toContain("Fix bug");
  });

  it("a tool that exceeds its timeout is killed, the model sees a timeout error, and the conversation still ends", async () => {
    const alive = () =>
      execFileSync("ps", ["-eo", "args"])
        .toString()
        .split("\n")
        .some((l) => l.trim() === `sleep ${SLEEP_SECONDS}`);
    const pending = sendMessage(worker.url, { agent_id: "skeleton-1", text: "sleep forever please" }, 60);
    // It really ran on the device...
    await waitUntil(
      async () => alive(),
      (a) => a,
      { timeoutMs: 10_000, intervalMs: 20, what: `sleep ${SLEEP_SECONDS} to start` },
    );
    const { body } = await pending;
    expect(body.status).toBe("completed");
    expect(body.tool_calls).toMatchObject([{ name: "bash", status: "error", error_type: "timeout" }]);
    expect(body.reply).toContain("timed out");
    // The model's second request carried the timeout error as the tool message.
    const requests = (await llm.requests()).map((r) => r.body as { messages: { role: string; content: string }[] });
    const last = requests[requests.length - 1]!;
    expect(last.messages.at(-1)).toMatchObject({ role: "tool" });
    expect(last.messages.at(-1)!.content).toMatch(/timed out after 1500ms/);
    // ...and is gone now (bash may run in a PID namespace, so it is found by its command line).
    await waitUntil(
      async () => alive(),
      (a) => !a,
      { timeoutMs: 10_000, what: `sleep ${SLEEP_SECONDS} to be killed` },
    );
  });

  it("an unknown tool gets an error naming the available tools and the loop continues", async () => {
    const { body } = await sendMessage(worker.url, { agent_id: "skeleton-1", text: "use an unknown tool" }, 60);
    expect(body.status).toBe("completed");
    expect(body.reply).toContain("Tool 'teleport' not found. Available tools:");
    expect(body.reply).toContain("bash");
    expect(body.tool_calls).toMatchObject([{ name: "teleport", status: "error", error_type: "not_found" }]);
  });

  it("a device that went offline before dispatch: the call ends not_sent at its deadline, and the model is told it did not run", async () => {
    const pi2 = await startAgent({ url: worker.url, agentId: "skeleton-2", token: "e2e-device-token-skeleton-2" });
    await pi2.stop();
    const { body } = await sendMessage(worker.url, { agent_id: "skeleton-2", text: "offline check" }, 60);
    expect(body.status).toBe("completed");
    expect(body.tool_calls).toMatchObject([{ name: "bash", status: "error", error_type: "not_sent" }]);
    expect(body.reply).toContain("Tool 'bash' did not run: the command was not sent");
  });
});
