/**
 * End to end: a remote MCP server that requires OAuth (an MCP_SERVERS entry with `oauth`), in the
 * order an admin meets it. The server is a loopback stand-in (the MCP SDK's server behind a small
 * authorization server, test/helpers/oauth-mcp-standin.ts); the worker is the real one under
 * `wrangler dev`, the CLI the packed one. The admin connects with `edgeloop mcp connect`, opens the
 * link it prints (here: fetched, following the redirects a browser would), the conversation calls
 * the tool; the token stops working and is renewed; renewal is refused and the call ends with the
 * error that says what to run; the admin connects again, this time with the dashboard's Connect
 * button (Chromium); and the connection outlives a restart.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ScriptedLlm } from "../../scripted-llm/server.js";
import { getConversation, sendMessage } from "../helpers/api.js";
import { asAdmin, runCli } from "../helpers/cli.js";
import { dashboardPage, launchChromium, logIn } from "../helpers/dashboard-browser.js";
import { type AgentProcess, startAgent } from "../helpers/device-agent.js";
import { type LocalWorker, startLocalWorker } from "../helpers/local-worker.js";
import { type OAuthMcpStandin, startOAuthMcpStandin } from "../helpers/oauth-mcp-standin.js";
import { scriptedVars, startScriptedStack } from "../helpers/scripted-stack.js";
import { waitUntil } from "../helpers/wait.js";

const AGENT = "pi-oauth";
const TOKEN = "oauth-device-token";
let standin: OAuthMcpStandin;
let llm: ScriptedLlm;
let worker: LocalWorker;
let agent: AgentProcess;
let conversationId: string | undefined;
let vars: Record<string, string>;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];

beforeAll(async () => {
  standin = await startOAuthMcpStandin();
  vars = {
    ALLOW_PRIVATE_OUTBOUND: "true",
    MCP_OAUTH_SECRET: "an e2e secret that seals the tokens",
    MCP_SERVERS: JSON.stringify([{ name: "gh", url: standin.mcpUrl, oauth: {}, timeout_secs: 10, max_retries: 0 }]),
  };
  ({ llm, worker } = await startScriptedStack({
    rules: [
      {
        match: "who am i",
        turns: [{ tool_calls: [{ name: "gh__whoami", arguments: {} }] }, { content: "Server: {{last_tool_result}}" }],
      },
    ],
    devices: { [AGENT]: TOKEN },
    vars,
  }));
  agent = await startAgent({ url: worker.url, agentId: AGENT, token: TOKEN });
  browser = await launchChromium();
  page = await dashboardPage(browser, pageErrors);
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await agent?.stop();
  await worker?.stop();
  await llm?.close();
  await standin?.close();
});

/** `edgeloop mcp connect gh`, then the admin opens the link: the browser follows the redirects back to the worker. */
async function connectAsAdmin(): Promise<string> {
  const run = await runCli(["mcp", "connect", "gh"], asAdmin(worker.url));
  expect(run.code, run.stderr).toBe(0);
  const link = run.stdout.split("\n").find((l) => l.startsWith("http"));
  expect(link, run.stdout).toBeDefined();
  const opened = await fetch(link!);
  const page = await opened.text();
  expect(opened.status, page).toBe(200);
  return page;
}

async function whoAmI() {
  const { status, body } = await sendMessage(
    worker.url,
    { agent_id: AGENT, text: "who am i", ...(conversationId ? { conversation_id: conversationId } : {}) },
    60,
  );
  expect(status).toBe(200);
  conversationId = body.conversation_id;
  return body;
}

async function lastToolMessage(): Promise<string> {
  const { messages } = await getConversation(worker.url, conversationId!);
  return messages.filter((m) => m.role === "tool").at(-1)?.content ?? "";
}

describe("a remote MCP server that requires OAuth", () => {
  it("is listed as not connected, with what to run", async () => {
    const run = await runCli(["mcp"], asAdmin(worker.url));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/gh\s+not connected/);
    expect(run.stdout).toContain("run: edgeloop mcp connect gh");
  });

  it("the admin connects it: discovery from the 401, registration, PKCE, the callback on the worker", async () => {
    const page = await connectAsAdmin();
    expect(page).toContain("MCP server &#39;gh&#39; is connected");
    expect(standin.counts.authorizationCodes).toBe(1);
    const run = await runCli(["mcp", "--json"], asAdmin(worker.url));
    expect(JSON.parse(run.stdout).servers).toMatchObject([{ name: "gh", status: "connected", detail: null }]);
  });

  it("the callback refuses an answer it did not ask for, and a used one", async () => {
    const forged = await fetch(`${worker.url}/v1/mcp-oauth/callback?state=forged&code=whatever`);
    expect(forged.status).toBe(400);
    expect(await forged.text()).toContain("no authorization is waiting for this answer");
    expect(standin.counts.authorizationCodes).toBe(1);
  });

  it("a conversation calls its tool with the deployment's token", async () => {
    const body = await whoAmI();
    expect(body.reply).toBe("Server: you are edgeloop, authorized");
    expect(standin.counts.toolCalls).toBe(1);
  });

  it("a token the server stops taking is renewed with the refresh token, and the call goes through", async () => {
    standin.expireAccessTokens();
    const body = await whoAmI();
    expect(body.reply).toBe("Server: you are edgeloop, authorized");
    expect(standin.counts.refreshes).toBe(1);
  });

  it("when renewal is refused, the call ends with an error saying what the admin runs, and the status says so", async () => {
    standin.refuseRefresh = true;
    standin.expireAccessTokens();
    const body = await whoAmI();
    expect(body.tool_calls.at(-1)).toMatchObject({
      name: "gh__whoami",
      status: "error",
      error_type: "permission_denied",
    });
    expect(await lastToolMessage()).toContain("run `edgeloop mcp connect gh`");
    expect(standin.counts.refusedRefreshes).toBeGreaterThanOrEqual(1);
    const run = await runCli(["mcp"], asAdmin(worker.url));
    expect(run.stdout).toMatch(/gh\s+needs consent/);
    expect(run.stdout).toContain("run: edgeloop mcp connect gh");
  });

  it("the admin connects again from the dashboard, and the same conversation's calls work", async () => {
    standin.refuseRefresh = false;
    await logIn(page, worker.url);
    // The remote servers panel says what is wrong and offers the same flow as `edgeloop mcp connect gh`.
    const panel = page.locator("#mcp-servers");
    await panel.getByRole("cell", { name: "needs consent" }).waitFor();
    await panel.getByRole("button", { name: "Connect gh" }).click();
    // The tab goes to the server's authorization link, which (approving at once, as a consenting
    // admin would) sends it back to the worker's callback.
    await page.waitForURL((u) => u.pathname === "/v1/mcp-oauth/callback");
    await page.getByRole("heading", { name: "Connected" }).waitFor();
    expect(await page.textContent("body")).toContain("MCP server 'gh' is connected");
    await page.goto(`${worker.url}/`);
    await page.locator("#mcp-servers").getByRole("cell", { name: "connected", exact: true }).waitFor();
    expect(await page.locator("#mcp-servers").getByRole("button", { name: "Reconnect gh" }).count()).toBe(1);
    expect(pageErrors).toEqual([]);
    const body = await whoAmI();
    expect(body.reply).toBe("Server: you are edgeloop, authorized");
    expect(standin.counts.authorizationCodes).toBe(2);
  });

  it("the connection outlives a runtime restart: its sealed tokens open, and renewal works after it", async () => {
    await worker.kill();
    worker = await startLocalWorker({
      vars: scriptedVars(llm, { [AGENT]: TOKEN }, vars),
      persistDir: worker.persistDir,
      port: worker.port,
    });
    const refreshesBefore = standin.counts.refreshes;
    standin.expireAccessTokens();
    const body = await waitUntil(
      () => whoAmI().catch(() => null),
      (b) => b?.reply === "Server: you are edgeloop, authorized",
      { timeoutMs: 60_000, what: "a call after the restart" },
    );
    expect(body?.reply).toBe("Server: you are edgeloop, authorized");
    expect(standin.counts.refreshes).toBe(refreshesBefore + 1);
    expect(standin.counts.authorizationCodes).toBe(2);
  });
});
