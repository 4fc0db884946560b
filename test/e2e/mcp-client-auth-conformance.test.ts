/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, on Node 24): its
 * client authorization scenarios against edgeloop's MCP client, a real `wrangler dev` worker. For
 * each scenario the suite starts an OAuth-protected server and runs a "client command" with its
 * URL; that command (test/fixtures/mcp/conformance-relay-client.mjs) hands the URL to this file.
 * All scenarios run at once and one worker serves them all (a worker takes long to start here):
 * its MCP_SERVERS names each scenario's server with `oauth`, and this file acts as the admin and
 * the user would, server by server: `POST /v1/mcp-servers/<name>/connect`, the authorization link
 * opened (the scenario's authorization server approves at once and redirects to the worker's
 * callback), then a message whose tool call reaches the server with the token. A call that ends
 * asking for consent again (a step-up's 403) is connected once more and called once more, as an
 * admin would; the suite's checks judge the rest.
 */
import { execFile } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendMessage } from "../helpers/api.js";
import { startAgent } from "../helpers/device-agent.js";
import { ADMIN_TOKEN } from "../helpers/local-worker.js";
import { nodeWithPackages } from "../helpers/pinned-node.js";
import { REPO_ROOT } from "../helpers/processes.js";
import { startScriptedStack } from "../helpers/scripted-stack.js";

const CONFORMANCE = "@modelcontextprotocol/conformance@0.1.16";
const SCENARIOS = [
  "auth/metadata-default",
  "auth/metadata-var1",
  "auth/metadata-var2",
  "auth/metadata-var3",
  "auth/basic-cimd",
  "auth/scope-from-www-authenticate",
  "auth/scope-from-scopes-supported",
  "auth/scope-omitted-when-undefined",
  "auth/scope-step-up",
  "auth/scope-retry-limit",
  "auth/token-endpoint-auth-basic",
  "auth/token-endpoint-auth-post",
  "auth/token-endpoint-auth-none",
  "auth/pre-registration",
];
/** What auth/basic-cimd expects as the client_id; edgeloop takes it as `oauth.client_metadata_url`. */
const CIMD_URL = "https://conformance-test.local/client-metadata.json";
const AGENT = "pi-conf";
const TOKEN = "conformance-device-token";

type Scenario = { url: string; context: { client_id?: string; client_secret?: string } | null };
type Outcome = { ok: boolean; log: string };

let tools: ReturnType<typeof nodeWithPackages>;
let relay: Server;
const results = new Map<string, { status: number | null; output: string }>();

/** The server's name in MCP_SERVERS for the scenario at `index`. */
const serverName = (index: number) => `s${String(index + 1).padStart(2, "0")}`;

beforeAll(async () => {
  tools = nodeWithPackages([CONFORMANCE]);
  // Every scenario's client command calls in with its server; once all have, they are driven.
  const waiting = new Map<string, { scenario: Scenario; answer: (o: Outcome) => void }>();
  let allIn: () => void = () => undefined;
  const gathered = new Promise<void>((resolve) => {
    allIn = resolve;
  });
  relay = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      const { scenario, ...rest } = JSON.parse(body) as Scenario & { scenario: string };
      waiting.set(scenario, {
        scenario: rest,
        answer: (o) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(o)),
      });
      if (waiting.size + ended.size === SCENARIOS.length) allIn();
    });
  });
  await new Promise<void>((resolve) => relay.listen(0, "127.0.0.1", resolve));
  const relayUrl = `http://127.0.0.1:${(relay.address() as AddressInfo).port}`;
  // A scenario whose client command never called in (the suite failed it first) is not waited for.
  const ended = new Set<string>();
  const runs = SCENARIOS.map(async (name) => {
    results.set(name, await runScenario(name, relayUrl));
    if (!waiting.has(name)) ended.add(name);
    if (waiting.size + ended.size === SCENARIOS.length) allIn();
  });
  await gathered;
  await driveAll(SCENARIOS.filter((name) => waiting.has(name)).map((name) => waiting.get(name)!));
  await Promise.all(runs);
}, 900_000);

afterAll(async () => {
  relay?.closeAllConnections();
  await new Promise((resolve) => relay?.close(resolve));
});

/** One worker for every scenario's server; each connected and called in turn. */
async function driveAll(scenarios: { scenario: Scenario; answer: (o: Outcome) => void }[]): Promise<void> {
  const servers = scenarios.map(({ scenario: { url, context } }, i) => ({
    name: serverName(i),
    url,
    oauth: context?.client_id
      ? { client_id: context.client_id, client_secret: context.client_secret }
      : { client_metadata_url: CIMD_URL },
    timeout_secs: 10,
    max_retries: 0,
  }));
  const stack = await startScriptedStack({
    rules: servers.map(({ name }) => ({
      match: `^call ${name}$`,
      turns: [
        { tool_calls: [{ name: `${name}__test-tool`, arguments: {} }] },
        { content: "Tool: {{last_tool_result}}" },
      ],
    })),
    devices: { [AGENT]: TOKEN },
    vars: {
      ALLOW_PRIVATE_OUTBOUND: "true",
      MCP_OAUTH_SECRET: "a conformance secret of some length",
      MCP_SERVERS: JSON.stringify(servers),
    },
  });
  const agent = await startAgent({ url: stack.worker.url, agentId: AGENT, token: TOKEN });
  try {
    for (const [i, { answer }] of scenarios.entries())
      answer(await drive(stack.worker.url, serverName(i)).catch((e) => ({ ok: false, log: String(e) })));
  } finally {
    await agent.stop();
    await stack.stop();
  }
}

async function drive(workerUrl: string, name: string): Promise<Outcome> {
  const log: string[] = [];
  let conversation: string | undefined;
  // Connected once, and once more if the call asks for consent again (a step-up).
  for (let round = 1; round <= 2; round++) {
    const connect = await fetch(`${workerUrl}/v1/mcp-servers/${name}/connect`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    const started = (await connect.json()) as { authorization_url?: string };
    log.push(`connect ${round}: ${connect.status} ${JSON.stringify(started)}`);
    if (started.authorization_url) {
      const opened = await fetch(started.authorization_url);
      log.push(`authorization link: ${opened.status} ${await opened.text()}`);
    }
    const { body } = await sendMessage(
      workerUrl,
      { agent_id: AGENT, text: `call ${name}`, ...(conversation ? { conversation_id: conversation } : {}) },
      60,
    );
    conversation = body.conversation_id;
    log.push(`call ${round}: ${JSON.stringify(body)}`);
    const call = body.tool_calls.at(-1);
    if (call?.status === "success") return { ok: true, log: log.join("\n") };
    if (call?.error_type !== "permission_denied") break;
  }
  return { ok: false, log: log.join("\n") };
}

/** Asynchronously: the relay runs in this process and must keep answering meanwhile. */
function runScenario(scenario: string, relayUrl: string): Promise<{ status: number | null; output: string }> {
  const cli = join(tools.modules, "@modelcontextprotocol/conformance/dist/index.js");
  const command = `${process.execPath} ${join(REPO_ROOT, "test/fixtures/mcp/conformance-relay-client.mjs")}`;
  const args = [cli, "client", "--command", command, "--scenario", scenario, "--timeout", "240000", "--verbose"];
  return new Promise((resolve) => {
    execFile(
      tools.node,
      args,
      { timeout: 300_000, env: { ...process.env, NO_COLOR: "1", EDGELOOP_CONFORMANCE_RELAY: relayUrl } },
      (error, stdout, stderr) =>
        resolve({
          status: error ? (typeof error.code === "number" ? error.code : null) : 0,
          output: `${stdout}\n${stderr}`,
        }),
    );
  });
}

describe("MCP conformance suite: edgeloop's MCP client against servers that require OAuth", () => {
  for (const scenario of SCENARIOS) {
    it(`passes ${scenario}`, () => {
      const { status, output } = results.get(scenario)!;
      expect(status, output).toBe(0);
      expect(output).not.toMatch(/"status": "(FAILURE|WARNING)"/);
      expect(output).toMatch(/"status": "SUCCESS"/);
    });
  }
});
