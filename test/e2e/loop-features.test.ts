/**
 * End to end: parallel calls, the error limit, approvals, questions, sub-tasks and webhook
 * tools, through the real worker, a real agent and real binaries.
 */
import { createHmac } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ScriptedLlm } from "../../scripted-llm/server.js";
import { getConversation, sendMessage } from "../helpers/api.js";
import { type AgentProcess, startAgent } from "../helpers/device-agent.js";
import { API_TOKEN, type LocalWorker } from "../helpers/local-worker.js";
import { startScriptedStack } from "../helpers/scripted-stack.js";
import { tempDir } from "../helpers/temp-dir.js";
import { waitUntil } from "../helpers/wait.js";

const TOKEN = "loop-device-token";
const HOOK_SECRET = "webhook-tool-secret";
let llm: ScriptedLlm;
let worker: LocalWorker;
let agent: AgentProcess;
let workspace: string;
let hookServer: Server;
const hookRequests: { headers: Record<string, string | string[] | undefined>; body: string }[] = [];

function sleeper(i: number) {
  // A barrier: each call marks its start, then waits (up to 15 s) until all five have started, and records how
  // many it saw. Calls run one after another would see only themselves; a loaded machine only makes the wait longer.
  const started = "$(ls par | grep -c '^start-')";
  return {
    name: "bash",
    arguments: {
      command: [
        `mkdir -p par; : > par/start-${i}; n=0`,
        `while [ ${started} -lt 5 ] && [ $n -lt 150 ]; do sleep 0.1; n=$((n+1)); done`,
        `echo ${started} > par/end-${i}; echo call-${i}`,
      ].join("; "),
    },
  };
}

async function post(path: string, body: unknown) {
  const res = await fetch(`${worker.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${API_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function pending(conversationId: string, state: string) {
  return waitUntil(
    () =>
      fetch(`${worker.url}/v1/conversations/${conversationId}`, {
        headers: { authorization: `Bearer ${API_TOKEN}` },
      }).then((r) => r.json() as Promise<{ pending_tool_calls: { id: string; state: string }[] }>),
    (v) => v.pending_tool_calls.some((c) => c.state === state),
    { what: `a call in state ${state}` },
  ).then((v) => v.pending_tool_calls.find((c) => c.state === state)!);
}

beforeAll(async () => {
  workspace = tempDir("edgeloop-loop-ws-");
  hookServer = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      hookRequests.push({ headers: req.headers, body });
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          forecast: "sunny",
          city: (JSON.parse(body) as { arguments: { city: string } }).arguments.city,
        }),
      );
    });
  });
  await new Promise<void>((r) => hookServer.listen(0, "127.0.0.1", r));
  const hookPort = (hookServer.address() as { port: number }).port;

  ({ llm, worker } = await startScriptedStack({
    rules: [
      {
        match: "five at once",
        turns: [{ tool_calls: [0, 1, 2, 3, 4].map(sleeper) }, { content: "All done:\n{{tool_results}}" }],
      },
      {
        match: "keep failing",
        turns: [
          { tool_calls: [{ name: "bash", arguments: { command: "echo nope >&2; exit 3" } }] },
          { tool_calls: [{ name: "bash", arguments: { command: "exit 4" } }] },
          { tool_calls: [{ name: "bash", arguments: { command: "exit 5" } }] },
          { content: "I could not get it to work." },
        ],
      },
      {
        match: "needs approval",
        turns: [
          { tool_calls: [{ name: "git_commit", arguments: { message: "x", all: true } }] },
          { content: "Result: {{last_tool_result}}" },
        ],
      },
      {
        match: "ask me",
        turns: [
          { tool_calls: [{ name: "question", arguments: { question: "Which colour?" } }] },
          { content: "You chose {{last_tool_result}}." },
        ],
      },
      {
        match: "delegate",
        turns: [
          { tool_calls: [{ name: "task", arguments: { prompt: "subtask: echo from child" } }] },
          { content: "Child said: {{last_tool_result}}" },
        ],
      },
      {
        match: "subtask: echo",
        turns: [
          { tool_calls: [{ name: "echo", arguments: { text: "child-echo-42" } }] },
          { content: "child finished with {{last_tool_result}}" },
        ],
      },
      {
        match: "weather",
        turns: [
          { tool_calls: [{ name: "weather", arguments: { city: "Oslo" } }] },
          { content: "Weather: {{last_tool_result}}" },
        ],
      },
    ],
    devices: { "pi-l": TOKEN },
    vars: {
      TOOL_POLICIES: "git_commit:requires_approval",
      // The webhook server is on loopback: the local-testing flag, by its older name (still honoured).
      ALLOW_HTTP_WEBHOOK_TOOLS: "true",
      WEBHOOK_TOOLS: JSON.stringify([
        {
          name: "weather",
          description: "Weather for a city",
          parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
          url: `http://127.0.0.1:${hookPort}/weather`,
          secret: HOOK_SECRET,
          max_retries: 1,
        },
      ]),
    },
  }));
  agent = await startAgent({ url: worker.url, agentId: "pi-l", token: TOKEN, workspace });
});

afterAll(async () => {
  await agent?.stop();
  await worker?.stop();
  await llm?.close();
  hookServer?.close();
});

describe("the tool loop, end to end", () => {
  it("runs 5 calls of one response at once and appends the results in call order", async () => {
    const started = Date.now();
    const { body } = await sendMessage(worker.url, { agent_id: "pi-l", text: "five at once" }, 60);
    const wall = Date.now() - started;
    expect(body.status).toBe("completed");
    // Every call saw all five started before it ended: they overlapped, not one after another.
    const seen = [0, 1, 2, 3, 4].map((i) => readFileSync(join(workspace, "par", `end-${i}`), "utf8").trim());
    expect(seen).toEqual(["5", "5", "5", "5", "5"]);
    const conv = await getConversation(worker.url, body.conversation_id);
    const tools = conv.messages.filter((m) => m.role === "tool").map((m) => (m.content ?? "").trim());
    expect(tools).toEqual(["call-0", "call-1", "call-2", "call-3", "call-4"]);
    expect(readdirSync(join(workspace, "par"))).toHaveLength(10);
    console.log(`5 overlapping calls: wall ${wall} ms for the whole conversation`);
  });

  it("ends the loop after 3 consecutive failing rounds, with a summary", async () => {
    const { body } = await sendMessage(worker.url, { agent_id: "pi-l", text: "keep failing" }, 60);
    expect(body.status).toBe("completed");
    expect(body.stop_reason).toBe("tool_errors");
    expect(body.tool_calls.map((c) => c.status)).toEqual(["error", "error", "error"]);
    expect(body.reply).toContain("3 consecutive rounds");
    const last = llm.requests().at(-1)!.body as { tools?: unknown[] };
    expect(last.tools ?? []).toHaveLength(0);
  });

  it("waits for approval, and runs the call once it is granted", async () => {
    const accepted = await sendMessage(worker.url, { agent_id: "pi-l", text: "needs approval" });
    const id = accepted.body.conversation_id;
    const call = await pending(id, "awaiting_approval");
    const res = await post(`/v1/conversations/${id}/approvals/${call.id}`, { approve: true });
    expect(res.status).toBe(200);
    const done = await waitUntil(
      () => getConversation(worker.url, id),
      (c) => c.status === "completed",
      { what: "completion" },
    );
    const tool = done.messages.find((m) => m.role === "tool")!;
    // git_commit really ran on the device (the workspace is not a repo, so git says so).
    expect(tool.content).not.toContain("blocked");
  });

  it("turns a denial into a blocked result", async () => {
    const accepted = await sendMessage(worker.url, { agent_id: "pi-l", text: "needs approval again" });
    const id = accepted.body.conversation_id;
    const call = await pending(id, "awaiting_approval");
    await post(`/v1/conversations/${id}/approvals/${call.id}`, { approve: false, reason: "not today" });
    const done = await waitUntil(
      () => getConversation(worker.url, id),
      (c) => c.status === "completed",
      { what: "completion" },
    );
    const tool = done.messages.find((m) => m.role === "tool")!;
    expect(JSON.parse(tool.content!)).toEqual({
      status: "blocked",
      tool: "git_commit",
      reason: "Denied by a person: not today",
    });
  });

  it("asks the user a question and continues with the answer", async () => {
    const accepted = await sendMessage(worker.url, { agent_id: "pi-l", text: "ask me something" });
    const id = accepted.body.conversation_id;
    const call = await pending(id, "awaiting_answer");
    const res = await post(`/v1/conversations/${id}/answers/${call.id}`, { answer: "green" });
    expect(res.status).toBe(200);
    const done = await waitUntil(
      () => getConversation(worker.url, id),
      (c) => c.status === "completed",
      { what: "completion" },
    );
    expect(done.messages.at(-1)!.content).toBe("You chose green.");
  });

  it("runs a sub-task with its own loop and returns its answer", async () => {
    const { body } = await sendMessage(worker.url, { agent_id: "pi-l", text: "delegate this" }, 60);
    expect(body.status).toBe("completed");
    expect(body.reply).toBe("Child said: child finished with child-echo-42");
  });

  it("calls a webhook tool with a verifiable HMAC signature", async () => {
    const { body } = await sendMessage(worker.url, { agent_id: "pi-l", text: "weather in Oslo" }, 60);
    expect(body.status).toBe("completed");
    expect(body.reply).toContain("sunny");
    const req = hookRequests.at(-1)!;
    const ts = String(req.headers["x-webhook-timestamp"]);
    const expected = `sha256=${createHmac("sha256", HOOK_SECRET).update(`${ts}.${req.body}`).digest("hex")}`;
    expect(req.headers["x-webhook-signature"]).toBe(expected);
    expect(JSON.parse(req.body)).toMatchObject({ tool: "weather", arguments: { city: "Oslo" } });
  });
});
