/**
 * End to end: a remote MCP server asks the person a question during a tool call
 * (`elicitation/create`). A server built with the official SDK runs on loopback; the
 * conversation's Durable Object in `wrangler dev` calls its tool; the question shows as the
 * call's pending answer in the conversation's view (what the dashboard and `edgeloop status`
 * read); a person answers through the API (as the dashboard does), the CLI or the dashboard in
 * Chromium; the server gets
 * the checked answer with the schema's defaults, and the tool's result reaches the model. A
 * decline and a question nobody answers are told to the server as the spec says; after a restart
 * of the runtime while a question waits, the call runs again and the server's new question is
 * answered.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ScriptedLlm } from "../../scripted-llm/server.js";
import { getConversation, sendMessage } from "../helpers/api.js";
import { asClient, runCli } from "../helpers/cli.js";
import { dashboardPage, launchChromium, logIn, openQuestionCard } from "../helpers/dashboard-browser.js";
import { freePort } from "../helpers/free-port.js";
import { type LocalWorker, startLocalWorker } from "../helpers/local-worker.js";
import { pendingQuestions } from "../helpers/pending-questions.js";
import { type Child, REPO_ROOT, startChild } from "../helpers/processes.js";
import { scriptedVars, startScriptedStack } from "../helpers/scripted-stack.js";
import { waitUntil } from "../helpers/wait.js";

const AGENT = "pi-asked";
const TOKEN = "asked-device-token";
let llm: ScriptedLlm;
let worker: LocalWorker;
let server: Child;
let vars: Record<string, string>;

const { pendingQuestion, answer, startRun } = pendingQuestions(() => worker.url, AGENT, "conv-asked");

/** One server, twice: the second gives a person one second to answer. */
function mcpVars(url: string): Record<string, string> {
  return {
    ALLOW_PRIVATE_OUTBOUND: "true",
    MCP_SERVERS: JSON.stringify([
      { name: "asker", url, timeout_secs: 10, max_retries: 0, elicitation_timeout_secs: 120 },
      { name: "hasty", url, timeout_secs: 10, max_retries: 0, elicitation_timeout_secs: 1 },
    ]),
  };
}

beforeAll(async () => {
  const port = await freePort();
  server = startChild(process.execPath, [join(REPO_ROOT, "test/fixtures/mcp/asking-http-server.mjs")], {
    name: "asking-server",
    env: { PORT: String(port) },
  });
  await waitUntil(
    () => fetch(`http://127.0.0.1:${port}/mcp`, { method: "POST", body: "{}" }).then((r) => r.status),
    (s) => s > 0,
    { what: "the asking server" },
  );
  const url = `http://127.0.0.1:${port}/mcp`;
  ({ llm, worker } = await startScriptedStack({
    rules: [
      {
        match: "book a table",
        turns: [
          { tool_calls: [{ name: "asker__book_table", arguments: {} }] },
          { content: "Booked: {{last_tool_result}}" },
        ],
      },
      {
        match: "book across a restart",
        turns: [
          { tool_calls: [{ name: "asker__book_table", arguments: { ref: "restart" } }] },
          { content: "Booked: {{last_tool_result}}" },
        ],
      },
      {
        match: "book in a hurry",
        turns: [
          { tool_calls: [{ name: "hasty__book_table", arguments: {} }] },
          { content: "Booked: {{last_tool_result}}" },
        ],
      },
    ],
    devices: { [AGENT]: TOKEN },
    vars: mcpVars(url),
  }));
  vars = scriptedVars(llm, { [AGENT]: TOKEN }, mcpVars(url));
});

afterAll(async () => {
  await worker?.stop();
  await server?.stop();
  await llm?.close();
});

describe("a remote MCP server's question during a tool call", () => {
  it("reaches the person, refuses an answer that does not fit, and gives the server the answer with its defaults", async () => {
    const run = startRun("book a table");
    const call = await pendingQuestion(run.conversationId);
    expect(call.name).toBe("asker__book_table");
    expect(call.question).toContain("[asker] Who is the table for?");
    expect(call.question).toContain("- guests: integer, default 2");
    expect(call.options).toEqual(["✗ Decline"]);

    // Too many guests: refused with the reason, and the question stays open.
    const wrong = await answer(run.conversationId, call.id, { answer: "name: Ada\nguests: 40" });
    expect(wrong.status).toBe(422);
    expect(await wrong.text()).toMatch(/guests/);
    expect((await pendingQuestion(run.conversationId)).id).toBe(call.id);

    const ok = await answer(run.conversationId, call.id, { answer: "name: Ada\nseating: terrace" });
    expect(ok.status).toBe(200);
    const done = await run.done;
    expect(done.reply).toBe('Booked: accept {"name":"Ada","guests":2,"seating":"terrace"}');
    // The tool's result is what the model was given.
    const toolMessage = JSON.stringify(llm.requests().at(-1)?.body);
    expect(toolMessage).toContain('accept {\\"name\\":\\"Ada\\",\\"guests\\":2,\\"seating\\":\\"terrace\\"}');
    // Answered: nothing waits any more, and a second answer is refused.
    expect((await answer(run.conversationId, call.id, { answer: "name: Bo" })).status).toBe(404);
  });

  it("a person who declines with the CLI: the server is told `decline`", async () => {
    const run = startRun("book a table");
    const call = await pendingQuestion(run.conversationId);
    const cli = await runCli(["answer", run.conversationId, call.id, "--decline"], asClient(worker.url));
    expect(cli.stderr).toBe("");
    expect(cli.stdout).toContain(`Declined ${call.id}`);
    expect((await run.done).reply).toBe("Booked: decline");
  });

  it("a person who declines in the dashboard: the card offers it, and the server is told `decline`", async () => {
    const browser = await launchChromium();
    const errors: string[] = [];
    try {
      const page = await dashboardPage(browser, errors);
      await logIn(page, worker.url);
      const run = startRun("book a table");
      await pendingQuestion(run.conversationId);
      const card = await openQuestionCard(page, run.conversationId, "[asker] Who is the table for?");
      await card.getByRole("button", { name: /^Decline the question/ }).click({ timeout: 20_000 });
      expect((await run.done).reply).toBe("Booked: decline");
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
  });

  it("a question nobody answers in time: the server is told `cancel`, and the call ends with that", async () => {
    const done = await startRun("book in a hurry").done;
    expect(done.reply).toBe("Booked: cancel");
    expect(done.tool_calls[0]).toMatchObject({ name: "hasty__book_table", status: "success" });
  });

  it("a restart while the question waits: the call is made again, the server asks again, the answer reaches it", async () => {
    const conversationId = `conv-asked-${crypto.randomUUID()}`;
    const sent = await sendMessage(worker.url, {
      agent_id: AGENT,
      conversation_id: conversationId,
      text: "book across a restart",
    });
    expect(sent.status).toBe(202);
    const first = await pendingQuestion(conversationId);
    // Down as a crash or a deploy takes it: the server's request for the answer ends with it.
    await worker.kill();
    worker = await startLocalWorker({ vars, persistDir: worker.persistDir, port: worker.port });
    // The stored question is forgotten at start; the one shown now was asked again by the server.
    const again = await pendingQuestion(conversationId);
    expect(again.id).toBe(first.id);
    expect((await answer(conversationId, again.id, { answer: "name: Cy" })).status).toBe(200);
    const done = await waitUntil(
      () => getConversation(worker.url, conversationId),
      (c) => c.status === "completed",
      { what: "the run to complete", timeoutMs: 60_000 },
    );
    const final = done.messages.filter((m) => m.role === "assistant" && !m.tool_calls?.length);
    expect(final.map((m) => m.content)).toEqual([
      'Booked: accept {"name":"Cy","guests":2,"seating":"inside"} (call 2 for restart)',
    ]);
  });
});
