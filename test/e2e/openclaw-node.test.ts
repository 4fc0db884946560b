/**
 * A real `openclaw node run` (the npm package, unmodified, on Node 24) onboarded by the line
 * edgeloop prints, running commands for a conversation through plain `wrangler dev` with the
 * scripted model; then the runtime killed mid-command: the call ends `outcome_unknown` (the node
 * killed the command and will never report it) and is not run again (docs/openclaw-nodes.md).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlm } from "../../scripted-llm/server.js";
import { getConversation, sendMessage } from "../helpers/api.js";
import { ADMIN_TOKEN, type LocalWorker, startLocalWorker } from "../helpers/local-worker.js";
import { type OpenClawNode, openclawArgs, startOpenClaw } from "../helpers/openclaw-process.js";
import { tempDir } from "../helpers/temp-dir.js";
import { waitUntil } from "../helpers/wait.js";

const AGENT = "oc-pi";
let llm: Awaited<ReturnType<typeof startScriptedLlm>>;
let worker: LocalWorker;
let node: OpenClawNode | undefined;
const scratch = tempDir("openclaw-e2e-");
const marker = join(scratch, "runs.txt");

const vars = () => ({ OPENAI_BASE_URL: llm.url, OPENAI_API_KEY: "x", LLM_MODEL: "scripted" });

beforeAll(async () => {
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
}, 180_000);

afterAll(async () => {
  await node?.stop();
  await worker?.stop();
  await llm?.close();
});

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

describe("a real OpenClaw node", () => {
  it("pairs with the printed `openclaw node run --pair …` line and runs a conversation's command", async () => {
    const res = await fetch(`${worker.url}/v1/openclaw/${AGENT}/setup`, { method: "POST", headers: admin });
    expect(res.status).toBe(201);
    const setup = (await res.json()) as { run: string };
    node = startOpenClaw(openclawArgs(setup.run));
    await waitUntil(
      () =>
        fetch(`${worker.url}/v1/devices/${AGENT}`, { headers: admin }).then(
          (r) => r.json() as Promise<{ online: boolean; skills: { tools: { name: string }[] }[] }>,
        ),
      (d) => d.online,
      { timeoutMs: 120_000, what: `the node to connect; its output:\n${node.child.output().slice(-3000)}` },
    );
    const reply = await sendMessage(worker.url, { agent_id: AGENT, text: "which kernel?" }, 60);
    expect(reply.body).toMatchObject({ status: "completed" });
    expect(reply.body.reply).toBe("Node says: Linux\n");
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
});
