/**
 * The official MCP conformance suite's client scenario `elicitation-sep1034-client-defaults`
 * (`@modelcontextprotocol/conformance`, on Node 24) against edgeloop's MCP client: the one in the
 * conversation's Durable Object of a real `wrangler dev` worker. The suite starts its scenario's
 * server and runs a "client command" with its URL; that command (conformance-client-relay.mjs)
 * hands the URL to this test, which points the worker's `MCP_SERVERS` entry at it through a
 * loopback proxy and acts as the model and the person: the scripted model calls the scenario's
 * tool, the server asks its question, and a person answers `{}` (every default) through the
 * answers API, so the defaults the suite checks are the ones edgeloop's own answer handling
 * filled in (docs/mcp.md#a-servers-questions).
 */
import { execFile } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ScriptedLlm } from "../../scripted-llm/server.js";
import { sendMessage } from "../helpers/api.js";
import { type AgentProcess, startAgent } from "../helpers/device-agent.js";
import { API_TOKEN, type LocalWorker } from "../helpers/local-worker.js";
import { nodeWithPackages } from "../helpers/pinned-node.js";
import { REPO_ROOT } from "../helpers/processes.js";
import { type RetargetProxy, startRetargetProxy } from "../helpers/retarget-proxy.js";
import { startScriptedStack } from "../helpers/scripted-stack.js";
import { waitUntil } from "../helpers/wait.js";

const CONFORMANCE = "@modelcontextprotocol/conformance@0.1.16";
const SCENARIO = "elicitation-sep1034-client-defaults";
const AGENT = "pi-conformance";
const TOKEN = "conformance-device-token";
const auth = { authorization: `Bearer ${API_TOKEN}` };

let tools: ReturnType<typeof nodeWithPackages>;
let llm: ScriptedLlm;
let worker: LocalWorker;
let agent: AgentProcess;
let proxy: RetargetProxy;
let control: Server;
let controlUrl: string;
/** what the test did for each scenario the relay handed it, for the failure message */
const driven: string[] = [];

/** The model calls the scenario's tool; a person answers the server's question by taking every default. */
async function drive(serverUrl: string): Promise<string> {
  proxy.retarget(serverUrl);
  try {
    const conversationId = `conv-conformance-${crypto.randomUUID()}`;
    const run = sendMessage(
      worker.url,
      { agent_id: AGENT, conversation_id: conversationId, text: "conformance defaults" },
      60,
    );
    const view = await waitUntil(
      () =>
        fetch(`${worker.url}/v1/conversations/${conversationId}`, { headers: auth }).then(
          (r) => r.json() as Promise<{ pending_tool_calls: { id: string; state: string; question?: string }[] }>,
        ),
      (v) => v.pending_tool_calls.some((c) => c.state === "awaiting_answer"),
      { what: "the scenario server's question", timeoutMs: 30_000 },
    );
    const call = view.pending_tool_calls.find((c) => c.state === "awaiting_answer")!;
    driven.push(`asked: ${call.question}`);
    const answered = await fetch(`${worker.url}/v1/conversations/${conversationId}/answers/${call.id}`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ answer: "{}" }),
    });
    if (answered.status !== 200) throw new Error(`answer refused: ${answered.status} ${await answered.text()}`);
    const { status, body } = await run;
    driven.push(`reply: ${status} ${body.reply}`);
    if (status !== 200 || body.status !== "completed") throw new Error(`the run ended ${status} ${body.status}`);
    return body.reply ?? "";
  } finally {
    proxy.retarget(null);
  }
}

beforeAll(async () => {
  tools = nodeWithPackages([CONFORMANCE]);
  proxy = await startRetargetProxy();
  ({ llm, worker } = await startScriptedStack({
    rules: [
      {
        match: "conformance defaults",
        turns: [
          { tool_calls: [{ name: "conf__test_client_elicitation_defaults", arguments: {} }] },
          { content: "{{last_tool_result}}" },
        ],
      },
    ],
    devices: { [AGENT]: TOKEN },
    vars: {
      ALLOW_PRIVATE_OUTBOUND: "true",
      MCP_SERVERS: JSON.stringify([{ name: "conf", url: `${proxy.url}/mcp`, timeout_secs: 20, max_retries: 0 }]),
    },
  }));
  agent = await startAgent({
    url: worker.url,
    agentId: AGENT,
    token: TOKEN,
    skills: [join(REPO_ROOT, "skills/pi-tools")],
  });
  control = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      const { server_url } = JSON.parse(body) as { server_url: string };
      drive(server_url).then(
        (reply) => res.writeHead(200).end(reply),
        (e: unknown) => res.writeHead(500).end(String(e)),
      );
    });
  });
  await new Promise<void>((resolve) => control.listen(0, "127.0.0.1", resolve));
  controlUrl = `http://127.0.0.1:${(control.address() as AddressInfo).port}/`;
}, 900_000);

afterAll(async () => {
  await new Promise((resolve) => control?.close(resolve));
  await agent?.stop();
  await worker?.stop();
  await llm?.close();
  await proxy?.stop();
});

/** Asynchronously: the control server and the proxy run in this process and must keep answering. */
function runClientScenario(scenario: string): Promise<{ status: number | null; output: string }> {
  const cli = join(tools.modules, "@modelcontextprotocol/conformance/dist/index.js");
  const relay = join(REPO_ROOT, "test/fixtures/mcp/conformance-client-relay.mjs");
  const command = `${process.execPath} ${relay} ${controlUrl}`;
  const args = [cli, "client", "--command", command, "--scenario", scenario, "--timeout", "90000", "--verbose"];
  return new Promise((resolve) => {
    execFile(tools.node, args, { timeout: 120_000, env: { ...process.env, NO_COLOR: "1" } }, (error, stdout, stderr) =>
      resolve({
        status: error ? (typeof error.code === "number" ? error.code : null) : 0,
        output: `${stdout}\n${stderr}`,
      }),
    );
  });
}

describe("MCP conformance suite: edgeloop's MCP client", () => {
  it(`passes ${SCENARIO}: the person's answer of no values reaches the server with every default`, async () => {
    const { status, output } = await runClientScenario(SCENARIO);
    const why = `${output}\n--- driven:\n${driven.join("\n")}`;
    expect(status, why).toBe(0);
    expect(output, why).not.toMatch(/"status": "FAILURE"/);
    for (const kind of ["string", "integer", "number", "enum", "boolean"])
      expect(output, why).toMatch(
        new RegExp(`"id": "client-elicitation-sep1034-${kind}-default",[^}]*?"status": "SUCCESS"`, "s"),
      );
    // The tool's result came back to the model with the defaults the server received.
    expect(driven.at(-1)).toContain('"name":"John Doe"');
  }, 150_000);
});
