/**
 * An MCP client that names itself by the URL of its client ID metadata document, as the MCP
 * specification prefers, on a real worker with a real device agent: the SDK's OAuth client sees
 * `client_id_metadata_document_supported`, skips registration and sends the admin to the consent
 * page (Chromium) with the URL as its client_id; the worker fetches the document from the app's
 * host (an https stand-in on loopback, reached through ALLOW_PRIVATE_OUTBOUND and trusted through
 * NODE_EXTRA_CA_CERTS, as the outbound rule itself refuses loopback), shows the app's name and
 * domain, and the client gets tokens, calls a device tool and refreshes. A document that names
 * another URL is refused on the page and counted.
 */
import { createHash, randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { auth, UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ScriptedLlm } from "../../scripted-llm/server.js";
import { dashboardPage, launchChromium } from "../helpers/dashboard-browser.js";
import { type AgentProcess, startAgent } from "../helpers/device-agent.js";
import { type HttpsStandin, startHttpsStandin } from "../helpers/https-standin.js";
import { ADMIN_TOKEN, type LocalWorker } from "../helpers/local-worker.js";
import { resultText } from "../helpers/mcp.js";
import { ConnectorProvider } from "../helpers/mcp-oauth.js";
import { REPO_ROOT } from "../helpers/processes.js";
import { startScriptedStack } from "../helpers/scripted-stack.js";

const DEVICES = { "pi-c": "cimd-device-c" };
const APP_NAME = "Docs App e2e";
let llm: ScriptedLlm;
let worker: LocalWorker;
let agent: AgentProcess;
let appHost: HttpsStandin;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];
let callback: Server;
let redirectUrl: string;
/** A second installation of the same app (another person's copy) comes back elsewhere. */
let otherRedirectUrl: string;
/** What the app's host was asked for, by path. */
const fetched: string[] = [];

const mcpUrl = () => new URL(`${worker.url}/mcp`);

async function admin(path: string) {
  const res = await fetch(`${worker.url}${path}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  return (await res.json()) as Record<string, unknown>;
}

beforeAll(async () => {
  callback = createServer((_req, res) => res.end("You can close this window."));
  await new Promise<void>((r) => callback.listen(0, "127.0.0.1", r));
  redirectUrl = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`;
  otherRedirectUrl = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/other-callback`;
  // The app's host: its own document at /app.json, and one at /liar.json naming another URL.
  appHost = await startHttpsStandin((req, res, base) => {
    fetched.push(req.url ?? "");
    const own = `${base}${req.url}`;
    const docs: Record<string, unknown> = {
      "/app.json": { client_id: own, client_name: APP_NAME, redirect_uris: [redirectUrl, otherRedirectUrl] },
      "/liar.json": { client_id: `${base}/app.json`, client_name: "Liar", redirect_uris: [redirectUrl] },
    };
    const doc = docs[req.url ?? ""];
    if (!doc) return void res.writeHead(404).end();
    res.writeHead(200, { "content-type": "application/json" }).end(
      JSON.stringify({
        ...doc,
        grant_types: ["authorization_code", "refresh_token"],
        token_endpoint_auth_method: "none",
      }),
    );
  });
  ({ llm, worker } = await startScriptedStack({
    rules: [],
    devices: DEVICES,
    vars: { ALLOW_PRIVATE_OUTBOUND: "true" },
    worker: { env: { NODE_EXTRA_CA_CERTS: appHost.caFile } },
  }));
  agent = await startAgent({
    url: worker.url,
    agentId: "pi-c",
    token: DEVICES["pi-c"],
    skills: [join(REPO_ROOT, "test/fixtures/agent-skills/basic")],
  });
  browser = await launchChromium();
  page = await dashboardPage(browser, pageErrors);
});

afterAll(async () => {
  await browser?.close();
  await agent?.stop();
  await worker?.stop();
  await llm?.close();
  await appHost?.stop();
  await new Promise((r) => callback?.close(r));
});

/**
 * One installation of the app connects: no registration, the URL as its client_id, the consent
 * page (logging in when asked) naming the app and its domain, pi-c allowed, tokens.
 */
async function connectApp(callbackUrl: string): Promise<ConnectorProvider> {
  const documentUrl = `${appHost.url}/app.json`;
  const provider = new ConnectorProvider("unused: the document names the app", callbackUrl, documentUrl);
  const transport = new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider });
  await expect(new Client({ name: "cimd-e2e", version: "1.0.0" }).connect(transport)).rejects.toBeInstanceOf(
    UnauthorizedError,
  );
  expect(provider.client?.client_id).toBe(documentUrl);
  expect(provider.authorizationUrl?.searchParams.get("client_id")).toBe(documentUrl);
  await page.goto(String(provider.authorizationUrl));
  const login = page.getByLabel("Admin token");
  if (await login.isVisible()) {
    await login.fill(ADMIN_TOKEN);
    await page.getByRole("button", { name: "Log in" }).click();
  }
  await page.getByRole("heading", { name: `Allow ${APP_NAME} to use your devices?` }).waitFor();
  expect(await page.locator("#client-name").textContent()).toBe(APP_NAME);
  expect(await page.locator("#client-domain").textContent()).toBe("127.0.0.1");
  expect(await page.locator("#redirect-uri").textContent()).toBe(callbackUrl);
  await page.locator('input[name=agents][value="pi-c"]').check();
  await page.getByRole("button", { name: "Allow" }).click();
  await page.waitForURL((u) => u.href.startsWith(callbackUrl));
  await transport.finishAuth(new URL(page.url()).searchParams.get("code")!);
  expect(provider.saved?.refresh_token).toBeTruthy();
  return provider;
}

async function connected(provider: ConnectorProvider): Promise<Client> {
  const client = new Client({ name: "cimd-e2e", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider }));
  return client;
}

describe("an MCP client named by its metadata document's URL", () => {
  let provider: ConnectorProvider;

  it("the authorization server says it takes metadata documents", async () => {
    const meta = (await (await fetch(`${worker.url}/.well-known/oauth-authorization-server`)).json()) as Record<
      string,
      unknown
    >;
    expect(meta.client_id_metadata_document_supported).toBe(true);
    expect(meta.issuer).toBe(worker.url);
  });

  it("skips registration, is shown with its name and domain, is allowed, and calls a device tool", async () => {
    provider = await connectApp(redirectUrl);
    expect(fetched).toContain("/app.json");
    const result = await (await connected(provider)).callTool({ name: "pi-c__echo", arguments: { text: "by url" } });
    expect(resultText(result)).toContain("by url");
    const { grants } = (await admin("/v1/mcp/grants")) as { grants: { client_id: string; client_name: string }[] };
    expect(grants.map((g) => [g.client_id, g.client_name])).toEqual([[`${appHost.url}/app.json`, APP_NAME]]);
    expect(pageErrors).toEqual([]);
  });

  it("a second installation of the same app gets its own grant, and the first keeps working", async () => {
    const other = await connectApp(otherRedirectUrl);
    const { grants } = (await admin("/v1/mcp/grants")) as { grants: { redirect_uri: string }[] };
    expect(grants.map((g) => g.redirect_uri).sort()).toEqual([otherRedirectUrl, redirectUrl].sort());
    for (const p of [provider, other])
      expect((await (await connected(p)).listTools()).tools.map((t) => t.name)).toContain("pi-c__echo");
  });

  it("refreshes its tokens with the URL as its client_id", async () => {
    const old = provider.saved!;
    expect(await auth(provider, { serverUrl: mcpUrl() })).toBe("AUTHORIZED");
    expect(provider.saved!.access_token).not.toBe(old.access_token);
    expect((await (await connected(provider)).listTools()).tools.map((t) => t.name)).toContain("pi-c__echo");
  });

  it("refuses a document that names another URL, on the page, and counts it", async () => {
    const before = ((await admin("/v1/limits")).rejections ?? {}) as Record<string, number>;
    const liar = `${appHost.url}/liar.json`;
    const u = new URL(`${worker.url}/oauth/authorize`);
    u.search = new URLSearchParams({
      response_type: "code",
      client_id: liar,
      redirect_uri: redirectUrl,
      state: "s",
      resource: `${worker.url}/mcp`,
      code_challenge: createHash("sha256").update(randomBytes(32).toString("base64url")).digest("base64url"),
      code_challenge_method: "S256",
    }).toString();
    const res = await fetch(u, { redirect: "manual" });
    expect(res.status).toBe(400);
    expect(res.headers.get("location")).toBeNull();
    const html = await res.text();
    expect(html).toContain("This app&#39;s metadata document could not be used.");
    expect(html).toContain(`the document&#39;s client_id is ${appHost.url}/app.json, not the URL it was fetched from`);
    const after = (await admin("/v1/limits")).rejections as Record<string, number>;
    expect(
      (after["/oauth/authorize 400 invalid_client"] ?? 0) - (before["/oauth/authorize 400 invalid_client"] ?? 0),
    ).toBe(1);
  });
});
