/**
 * End to end: the run's trace context on a remote MCP call. A conversation on plain `wrangler dev`
 * calls a remote MCP server (a small SDK server on loopback that answers with the request's
 * `_meta`); the `traceparent` it received names the conversation's trace, whose id the view shows.
 */
import { join } from "node:path";
import { parseTraceparent } from "@edgeloop/protocol/trace-context";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ScriptedLlm } from "../../scripted-llm/server.js";
import { sendMessage } from "../helpers/api.js";
import { type AgentProcess, startAgent } from "../helpers/device-agent.js";
import { freePort } from "../helpers/free-port.js";
import { API_TOKEN, type LocalWorker } from "../helpers/local-worker.js";
import { type Child, REPO_ROOT, startChild } from "../helpers/processes.js";
import { startScriptedStack } from "../helpers/scripted-stack.js";
import { waitUntil } from "../helpers/wait.js";

const AGENT = "pi-trace";
const TOKEN = "trace-device-token";
let llm: ScriptedLlm;
let worker: LocalWorker;
let agent: AgentProcess;
let server: Child;

beforeAll(async () => {
  const port = await freePort();
  server = startChild(process.execPath, [join(REPO_ROOT, "test/fixtures/mcp/meta-echo-http-server.mjs")], {
    name: "meta-echo-http",
    env: { PORT: String(port) },
  });
  await waitUntil(
    () => fetch(`http://127.0.0.1:${port}/mcp`, { method: "POST", body: "{}" }).then((r) => r.status),
    (s) => s > 0,
    { what: "the MCP server" },
  );
  ({ llm, worker } = await startScriptedStack({
    rules: [
      {
        match: "trace it",
        turns: [{ tool_calls: [{ name: "meta__meta_echo", arguments: {} }] }, { content: "{{last_tool_result}}" }],
      },
    ],
    devices: { [AGENT]: TOKEN },
    vars: {
      ALLOW_PRIVATE_OUTBOUND: "true",
      MCP_SERVERS: JSON.stringify([{ name: "meta", url: `http://127.0.0.1:${port}/mcp`, timeout_secs: 5 }]),
    },
  }));
  agent = await startAgent({
    url: worker.url,
    agentId: AGENT,
    token: TOKEN,
    skills: [join(REPO_ROOT, "skills/pi-tools")],
  });
});

afterAll(async () => {
  await agent?.stop();
  await worker?.stop();
  await server?.stop();
  await llm?.close();
});

describe("the trace context on a remote MCP call", () => {
  it("reaches the server as params._meta.traceparent, in the trace the conversation's view names", async () => {
    const { status, body } = await sendMessage(worker.url, { agent_id: AGENT, text: "trace it" }, 60);
    expect(status).toBe(200);
    const meta = JSON.parse(body.reply ?? "{}") as { traceparent?: string };
    const ctx = parseTraceparent(meta.traceparent);
    expect(ctx).not.toBeNull();
    const view = (await fetch(`${worker.url}/v1/conversations/${body.conversation_id}`, {
      headers: { authorization: `Bearer ${API_TOKEN}` },
    }).then((r) => r.json())) as { trace_id?: string };
    expect(view.trace_id).toBe(ctx!.trace_id);
  });
});
