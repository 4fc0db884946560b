/**
 * End to end: an MCP server that runs on the device (a skill's `[mcp]` server, the official SDK
 * over stdio) asks the person a question during a tool call (`elicitation/create`). A real
 * `edgeloop-agent` runs it; the agent's client asks the hub with an `elicitation` frame; the
 * question shows as the call's pending answer in the conversation's view (what the dashboard and
 * `edgeloop status` read); a person answers through the API, the CLI or the call's card in the
 * dashboard (Chromium); the answer goes back to
 * the device in an `elicitation_answer` frame, and the server gets the checked answer with the
 * schema's defaults, which the tool's result shows. A key without the device's grant is refused;
 * a decline and a call that times out are told to the server as the spec says; a restart of the
 * runtime while the question waits loses nothing (the device still holds the server's request).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ScriptedLlm } from "../../scripted-llm/server.js";
import { getConversation, sendMessage } from "../helpers/api.js";
import { asClient, runCli } from "../helpers/cli.js";
import { dashboardPage, launchChromium, logIn, openQuestionCard } from "../helpers/dashboard-browser.js";
import { type AgentProcess, startAgent } from "../helpers/device-agent.js";
import { ADMIN_TOKEN, type LocalWorker, startLocalWorker } from "../helpers/local-worker.js";
import { mcpSkill } from "../helpers/mcp.js";
import { pendingQuestions } from "../helpers/pending-questions.js";
import { REPO_ROOT } from "../helpers/processes.js";
import { scriptedVars, startScriptedStack } from "../helpers/scripted-stack.js";
import { tempDir } from "../helpers/temp-dir.js";
import { waitUntil } from "../helpers/wait.js";

const AGENT = "pi-asks";
const TOKEN = "asks-device-token";
const ASKING_SERVER = join(REPO_ROOT, "test/fixtures/mcp/asking-stdio-server.mjs");
let llm: ScriptedLlm;
let worker: LocalWorker;
let agent: AgentProcess;
let vars: Record<string, string>;
let answersFile: string;

const { pendingQuestion, answer, startRun } = pendingQuestions(() => worker.url, AGENT, "conv-asks");

/** The server's skill: `book_table` with time for a person; `pick_region` with four seconds. */
function askingSkill(name: string, tool: string, timeoutMs: number): string {
  const lines = [
    `command = ["node", "${ASKING_SERVER}"]`,
    `tools = ["${tool}"]`,
    `timeout_ms = ${timeoutMs}`,
    `max_timeout_ms = ${timeoutMs}`,
    `env = { ANSWERS_FILE = "${answersFile}" }`,
  ];
  return mcpSkill(name, lines.join("\n"));
}

beforeAll(async () => {
  answersFile = join(tempDir("edgeloop-asks-"), "answers.txt");
  const devices = { [AGENT]: TOKEN };
  const reply = { content: "Server said: {{last_tool_result}}" };
  ({ llm, worker } = await startScriptedStack({
    rules: [
      { match: "book a table", turns: [{ tool_calls: [{ name: "book_table", arguments: {} }] }, reply] },
      { match: "pick in a hurry", turns: [{ tool_calls: [{ name: "pick_region", arguments: {} }] }, reply] },
    ],
    devices,
  }));
  vars = scriptedVars(llm, devices);
  agent = await startAgent({
    url: worker.url,
    agentId: AGENT,
    token: TOKEN,
    skills: [askingSkill("ask", "book_table", 120_000), askingSkill("hasty", "pick_region", 4_000)],
    env: { EDGELOOP_RECONNECT_MAX_MS: "1000" },
  });
});

afterAll(async () => {
  await agent?.stop();
  await worker?.stop();
  await llm?.close();
});

describe("a device MCP server's question during a tool call", () => {
  it("reaches the person, refuses a key without the device and an answer that does not fit, and gives the server the answer with its defaults", async () => {
    const run = startRun("book a table");
    const call = await pendingQuestion(run.conversationId);
    expect(call.name).toBe("book_table");
    expect(call.question).toContain("[ask] Who is the table for?");
    expect(call.question).toContain("- guests: integer, default 2");
    expect(call.options).toEqual(["✗ Decline"]);

    // A key granted another device does not see the conversation, so cannot answer its question.
    const issued = await fetch(`${worker.url}/v1/keys`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "other device", agents: ["pi-elsewhere"] }),
    });
    expect(issued.status).toBe(201);
    const { key } = (await issued.json()) as { key: string };
    expect((await answer(run.conversationId, call.id, { answer: "name: Eve" }, key)).status).toBe(404);

    // Too many guests: refused with the reason, and the question stays open.
    const wrong = await answer(run.conversationId, call.id, { answer: "name: Ada\nguests: 40" });
    expect(wrong.status).toBe(422);
    expect(await wrong.text()).toMatch(/guests/);
    expect((await pendingQuestion(run.conversationId)).id).toBe(call.id);

    const ok = await answer(run.conversationId, call.id, { answer: "name: Ada\nseating: terrace" });
    expect(ok.status).toBe(200);
    const done = await run.done;
    expect(done.reply).toBe('Server said: accept {"name":"Ada","guests":2,"seating":"terrace"}');
    expect(done.tool_calls[0]).toMatchObject({ name: "book_table", status: "success" });
    // Answered: nothing waits any more, and a second answer is refused.
    expect((await answer(run.conversationId, call.id, { answer: "name: Bo" })).status).toBe(404);
  });

  it("a person who declines with the CLI: the server is told `decline`", async () => {
    const run = startRun("book a table");
    const call = await pendingQuestion(run.conversationId);
    const cli = await runCli(["answer", run.conversationId, call.id, "--decline"], asClient(worker.url));
    expect(cli.stderr).toBe("");
    expect(cli.stdout).toContain(`Declined ${call.id}`);
    expect((await run.done).reply).toBe("Server said: decline");
  });

  it("a person who answers on the call's card in the dashboard: the server on the device gets it", async () => {
    const browser = await launchChromium();
    const errors: string[] = [];
    try {
      const page = await dashboardPage(browser, errors);
      await logIn(page, worker.url);
      const run = startRun("book a table");
      await pendingQuestion(run.conversationId);
      const card = await openQuestionCard(page, run.conversationId, "[ask] Who is the table for?");
      await card.getByRole("textbox", { name: "Answer for question" }).fill("name: Dee", { timeout: 20_000 });
      await card.getByRole("button", { name: "Answer", exact: true }).click();
      // Not "Answered." on the card: the call may end first, and its card then drops its controls.
      expect((await run.done).reply).toBe('Server said: accept {"name":"Dee","guests":2,"seating":"inside"}');
      await card.locator(".meta", { hasText: /^answered · / }).waitFor({ timeout: 20_000 });
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
  });

  it("a question nobody answers before the call times out: the server is told `cancel`, and the call ends `timeout`", async () => {
    const run = startRun("pick in a hurry");
    const call = await pendingQuestion(run.conversationId);
    expect(call.options).toEqual(["Europe", "America", "✗ Decline"]);
    const done = await run.done;
    expect(done.tool_calls[0]).toMatchObject({ name: "pick_region", status: "error", error_type: "timeout" });
    const told = await waitUntil(
      async () => readFileSync(answersFile, "utf8"),
      (text) => text.includes("pick_region:"),
      { what: "the server's answer" },
    );
    expect(told).toContain("pick_region: cancel\n");
    // The call has ended: its question with it.
    expect((await answer(run.conversationId, call.id, { answer: "Europe" })).status).not.toBe(200);
  });

  it("a restart of the runtime while the question waits: the device asks again, and the answer reaches the server", async () => {
    const conversationId = `conv-asks-${crypto.randomUUID()}`;
    const sent = await sendMessage(worker.url, {
      agent_id: AGENT,
      conversation_id: conversationId,
      text: "book a table",
    });
    expect(sent.status).toBe(202);
    const first = await pendingQuestion(conversationId);
    // Down as a crash or a deploy takes it: the device's socket ends, the server's request is held on the device.
    await worker.kill();
    worker = await startLocalWorker({ vars, persistDir: worker.persistDir, port: worker.port });
    const again = await pendingQuestion(conversationId);
    expect(again.id).toBe(first.id);
    // Answered once the device is back (503 while it is not yet: the question stays open).
    const answered = await waitUntil(
      () => answer(conversationId, again.id, { answer: "name: Cy" }).then(async (r) => `${r.status} ${await r.text()}`),
      (status) => !status.startsWith("503 "),
      { what: "the device to be back", timeoutMs: 60_000 },
    );
    expect(answered).toMatch(/^200 /);
    const done = await waitUntil(
      () => getConversation(worker.url, conversationId),
      (c) => c.status === "completed",
      { what: "the run to complete", timeoutMs: 60_000 },
    );
    const final = done.messages.filter((m) => m.role === "assistant" && !m.tool_calls?.length);
    expect(final.map((m) => m.content)).toEqual(['Server said: accept {"name":"Cy","guests":2,"seating":"inside"}']);
  });
});
