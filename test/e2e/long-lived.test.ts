/**
 * End to end: conversations that live for months. A long conversation whose model requests stay
 * under the window (compaction), schedules that fire on time across a runtime kill and stop after
 * delete, and an "always" approval that stops asking. One wrangler, one real agent, the scripted model.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ScriptRuleInput } from "../../scripted-llm/script.js";
import { type ScriptedLlm, startScriptedLlm } from "../../scripted-llm/server.js";
import { getConversation, sendMessage } from "../helpers/api.js";
import { type AgentProcess, startAgent } from "../helpers/device-agent.js";
import { API_TOKEN, type LocalWorker, startLocalWorker } from "../helpers/local-worker.js";
import { REPO_ROOT } from "../helpers/processes.js";
import { scriptedVars } from "../helpers/scripted-stack.js";
import { waitUntil } from "../helpers/wait.js";

const AGENT = "pi-ll";
const TOKEN = "long-lived-device-token";
const WINDOW = 8000;
const FILLER = "0123456789".repeat(250); // 2500 characters, echoed back as the tool result

let llm: ScriptedLlm;
let worker: LocalWorker;
let agent: AgentProcess;
const vars = (url: string) =>
  scriptedVars(
    { url },
    { [AGENT]: TOKEN },
    {
      LLM_CONTEXT_TOKENS: String(WINDOW),
      KEEP_RECENT_TURNS: "2",
      MIN_SCHEDULE_SECONDS: "2",
      TOOL_POLICIES: "hello:requires_approval",
    },
  );

async function api<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(`${worker.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${API_TOKEN}`, "content-type": "application/json" },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as T };
}

type Schedule = {
  schedule_id: string;
  runs: number;
  missed: number;
  skipped_overlap: number;
  next_run_at: string | null;
  last_run: { tick: string; at: string; outcome: string } | null;
};
const schedule = async (id: string) => (await api<Schedule>("GET", `/v1/schedules/${id}`)).body;
const userTexts = async (conversationId: string, text: string) =>
  (await getConversation(worker.url, conversationId).catch(() => ({ messages: [] }))).messages.filter(
    (m) => m.role === "user" && m.content === text,
  ).length;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const RULES: ScriptRuleInput[] = [
  {
    match: "^\\[edgeloop\\] Summarise",
    turns: [{ content: "Summary: the user ran numbered turns; each echoed a long text." }],
  },
  {
    match: "^turn (\\d+)",
    turns: [
      { tool_calls: [{ name: "echo", arguments: { text: `{{match_1}} ${FILLER}` } }] },
      { content: "done {{match_1}}" },
    ],
  },
  { match: "^scheduled ping", turns: [{ content: "pong" }] },
  { match: "^slow ping", turns: [{ content: "slow pong", delay_ms: 5000 }] },
  {
    match: "^say hello",
    turns: [{ tool_calls: [{ name: "hello", arguments: {} }] }, { content: "it said {{last_tool_result}}" }],
  },
];

beforeAll(async () => {
  llm = await startScriptedLlm({
    port: 0,
    rules: RULES,
  });
  worker = await startLocalWorker({ vars: vars(llm.url) });
  agent = await startAgent({
    url: worker.url,
    agentId: AGENT,
    token: TOKEN,
    skills: [join(REPO_ROOT, "test/fixtures/agent-skills/other")],
  });
});

afterAll(async () => {
  await agent?.stop();
  await worker?.stop();
  await llm?.close();
});

describe("compaction", () => {
  it("keeps every model request under the window through a long conversation; the history stays whole", async () => {
    llm.reset();
    const conversation_id = `long-${Date.now()}`;
    const turns = 24;
    for (let n = 1; n <= turns; n++) {
      const { body } = await sendMessage(worker.url, { agent_id: AGENT, conversation_id, text: `turn ${n}` }, 30);
      expect(body.status, JSON.stringify(body)).toBe("completed");
      expect(body.reply).toBe(`done ${n}`);
    }
    const requests = llm.requests().map((r) => r.body as { messages: unknown[]; tools?: unknown[] });
    const sizes = requests.map((b) => Math.ceil(JSON.stringify([b.messages, b.tools ?? []]).length / 4));
    // Without compaction the last requests would carry all 24 turns: about 24 × 1300 tokens.
    expect(Math.max(...sizes)).toBeLessThan(WINDOW);
    const summaries = requests.filter((b) => JSON.stringify(b.messages).includes("[edgeloop] Summarise"));
    expect(summaries.length).toBeGreaterThan(1);
    const view = await api<{
      messages: unknown[];
      compactions: { upto: number; tokens_before: number; tokens_after: number }[];
    }>("GET", `/v1/conversations/${conversation_id}`);
    expect(view.body.messages).toHaveLength(turns * 4);
    expect(view.body.compactions.length).toBe(summaries.length);
    for (const c of view.body.compactions) expect(c.tokens_after).toBeLessThan(c.tokens_before);
    // The last request: the summary, then the latest turns whole, each call with its result.
    type Sent = { role: string; content: string | null; tool_call_id?: string; tool_calls?: { id: string }[] };
    const last = requests.at(-1)!.messages as Sent[];
    expect(last[0]!.content).toContain("Summary: the user ran numbered turns");
    expect(
      last
        .filter((m) => m.role === "user")
        .map((m) => m.content)
        .slice(-2),
    ).toEqual([`turn ${turns - 1}`, `turn ${turns}`]);
    // Never a tool result without its call before it.
    const calls = new Set<string>();
    for (const m of last) {
      for (const c of m.tool_calls ?? []) calls.add(c.id);
      if (m.role === "tool") expect(calls.has(m.tool_call_id!)).toBe(true);
    }
  });
});

describe("compaction across a restart", () => {
  it("a kill during the summary call makes the summary call again, once, and the turn completes", async () => {
    // Slow summaries for this test only (the first matching rule wins).
    llm.setRules([
      { match: "^\\[edgeloop\\] Summarise", turns: [{ content: "Summary: kturns so far.", delay_ms: 3000 }] },
      {
        match: "^kturn (\\d+)",
        turns: [
          { tool_calls: [{ name: "echo", arguments: { text: `{{match_1}} ${FILLER}` } }] },
          { content: "kdone {{match_1}}" },
        ],
      },
      ...RULES,
    ]);
    const summaries = () =>
      llm.requests().filter((r) => {
        const text = JSON.stringify((r.body as { messages: unknown }).messages);
        return text.includes("[edgeloop] Summarise") && text.includes("USER: kturn");
      }).length;
    const conversation_id = `kill-${Date.now()}`;
    let n = 0;
    let accepted: { conversation_id: string; message_id: string } | null = null;
    while (summaries() === 0 && n < 20) {
      n += 1;
      accepted = (await sendMessage(worker.url, { agent_id: AGENT, conversation_id, text: `kturn ${n}` })).body;
      await waitUntil(
        async () => ({ s: summaries(), c: await getConversation(worker.url, conversation_id) }),
        (v) => v.s > 0 || v.c.messages.at(-1)?.content === `kdone ${n}`,
        { what: `turn ${n} or its summary call` },
      );
    }
    expect(summaries()).toBe(1);
    await worker.kill(); // the summary call is still being answered (3 s)
    worker = await startLocalWorker({ vars: vars(llm.url), persistDir: worker.persistDir, port: worker.port });
    const done = await waitUntil(
      () => getConversation(worker.url, conversation_id),
      (c) => c.messages.at(-1)?.content === `kdone ${n}`,
      { timeoutMs: 60_000, what: "the turn after the restart" },
    );
    expect(accepted).not.toBeNull();
    expect(summaries()).toBe(2);
    const view = await api<{ compactions: unknown[] }>("GET", `/v1/conversations/${conversation_id}`);
    expect(view.body.compactions).toHaveLength(1);
    expect(done.messages.filter((m) => m.role === "user")).toHaveLength(n);
    await sleep(3500); // nothing else is asked for afterwards
    expect(summaries()).toBe(2);
    llm.setRules(RULES);
  });
});

describe("approval rules", () => {
  it("an 'always' approval stops asking; revoked, the next call asks again", async () => {
    const first = await sendMessage(worker.url, { agent_id: AGENT, text: "say hello 1" });
    const id = first.body.conversation_id;
    const call = await waitUntil(
      () => api<{ pending_tool_calls: { id: string; state: string }[] }>("GET", `/v1/conversations/${id}`),
      (r) => r.body.pending_tool_calls.some((c) => c.state === "awaiting_approval"),
      { what: "a call awaiting approval" },
    ).then((r) => r.body.pending_tool_calls[0]!);
    const decided = await api<{ rule: { rule_id: string; tool: string; agent_id: string } }>(
      "POST",
      `/v1/conversations/${id}/approvals/${call.id}`,
      { approve: true, scope: "always" },
    );
    expect(decided.status).toBe(200);
    expect(decided.body.rule).toMatchObject({ tool: "hello", agent_id: AGENT });
    const done = await waitUntil(
      () => getConversation(worker.url, id),
      (c) => c.status === "completed",
      { what: "first run" },
    );
    expect(done.messages.at(-1)!.content).toContain("hello");

    // Another conversation: the rule answers at once, and the audit log names it.
    const second = await sendMessage(worker.url, { agent_id: AGENT, text: "say hello 2" }, 30);
    expect(second.body.status).toBe("completed");
    expect(second.body.tool_calls).toMatchObject([{ name: "hello", status: "success" }]);
    const audit = await fetch(`${worker.url}/v1/audit?agent_id=${AGENT}&tool=hello`, {
      headers: { authorization: "Bearer e2e-admin-token" },
    }).then((r) => r.json() as Promise<{ entries: { approval: string | null; conversation_id: string }[] }>);
    const rows = audit.entries;
    expect(rows.find((e) => e.conversation_id === id)?.approval).toBe(`rule:${decided.body.rule.rule_id}`);
    expect(rows.find((e) => e.conversation_id === second.body.conversation_id)?.approval).toBe(
      `rule:${decided.body.rule.rule_id}`,
    );

    expect((await api("DELETE", `/v1/approval-rules/${decided.body.rule.rule_id}`)).status).toBe(200);
    const third = await sendMessage(worker.url, { agent_id: AGENT, text: "say hello 3" });
    await waitUntil(
      () => api<{ pending_tool_calls: { state: string }[] }>("GET", `/v1/conversations/${third.body.conversation_id}`),
      (r) => r.body.pending_tool_calls.some((c) => c.state === "awaiting_approval"),
      { what: "asking again after the rule was revoked" },
    );
    await api("POST", `/v1/conversations/${third.body.conversation_id}/cancel`);
  });
});

describe("schedules", () => {
  it("fires on time, survives a runtime kill with one run for the missed ticks, and stops after delete", async () => {
    const conversation_id = `sched-${Date.now()}`;
    const created = await api<{ schedule_id: string; next_run_at: string }>("POST", "/v1/schedules", {
      agent_id: AGENT,
      text: "scheduled ping",
      every_seconds: 3,
      conversation_id,
    });
    expect(created.status).toBe(201);
    const id = created.body.schedule_id;
    const firstTick = Date.parse(created.body.next_run_at);
    const s2 = await waitUntil(
      () => schedule(id),
      (s) => s.runs >= 2,
      { timeoutMs: 20_000, what: "two runs" },
    );
    // On time: each run posted within a second or so of its tick.
    expect(Date.parse(s2.last_run!.at) - Date.parse(s2.last_run!.tick)).toBeLessThan(1500);
    expect(Date.parse(s2.last_run!.tick) - firstTick).toBe((s2.runs - 1) * 3000);
    await waitUntil(
      () => userTexts(conversation_id, "scheduled ping"),
      (n) => n >= 2,
      { what: "two messages" },
    );

    await worker.kill();
    const before = await waitUntilStable(() => llmRequestsFor("scheduled ping"));
    await sleep(7000); // two ticks or more pass while the runtime is down
    worker = await startLocalWorker({ vars: vars(llm.url), persistDir: worker.persistDir, port: worker.port });
    // Nothing asks the scheduler anything: its own alarm must bring it back.
    const recovered = await waitUntil(
      () => llmRequestsFor("scheduled ping"),
      (n) => n > before,
      {
        timeoutMs: 30_000,
        what: "the run on recovery",
      },
    );
    const after = await schedule(id);
    expect(after.missed).toBeGreaterThanOrEqual(2);
    // One run for all the missed ticks (at most one regular tick may have followed it by now).
    expect(recovered - before).toBe(1);
    expect(after.runs).toBeLessThanOrEqual(
      s2.runs + 2 + Math.ceil((Date.now() - Date.parse(after.last_run!.at)) / 3000),
    );
    await waitUntil(
      () => schedule(id),
      (s) => s.runs >= after.runs + 1,
      { timeoutMs: 15_000, what: "running again on its grid" },
    );

    expect((await api("DELETE", `/v1/schedules/${id}`)).status).toBe(200);
    const atDelete = await waitUntilStable(() => userTexts(conversation_id, "scheduled ping"));
    await sleep(6500);
    expect(await userTexts(conversation_id, "scheduled ping")).toBe(atDelete);
    expect((await api("GET", `/v1/schedules/${id}`)).status).toBe(404);
  });

  it("skips and counts ticks while the previous run is still going", async () => {
    const created = await api<{ schedule_id: string }>("POST", "/v1/schedules", {
      agent_id: AGENT,
      text: "slow ping",
      every_seconds: 2,
    });
    expect(created.status).toBe(201);
    const id = created.body.schedule_id;
    const s = await waitUntil(
      () => schedule(id),
      (v) => v.skipped_overlap >= 1 && v.runs >= 1,
      {
        timeoutMs: 20_000,
        what: "a skipped tick",
      },
    );
    expect(s.skipped_overlap).toBeGreaterThanOrEqual(1);
    await api("DELETE", `/v1/schedules/${id}`);
  });
});

/** How many chat requests the model got for messages starting with `text`. */
function llmRequestsFor(text: string): Promise<number> {
  return Promise.resolve(
    llm.requests().filter((r) => {
      const messages = (r.body as { messages: { role: string; content: string }[] }).messages;
      return messages
        .filter((m) => m.role === "user")
        .at(-1)
        ?.content.startsWith(text);
    }).length,
  );
}

/** A value once it has stopped changing for half a second. */
async function waitUntilStable(read: () => Promise<number>): Promise<number> {
  let last = await read();
  for (;;) {
    await sleep(500);
    const now = await read();
    if (now === last) return now;
    last = now;
  }
}
