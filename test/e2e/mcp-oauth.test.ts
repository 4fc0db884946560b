/**
 * The fleet added to an MCP client by URL, as Claude's and ChatGPT's connectors do it, on a real
 * worker with real device agents: the official SDK client with its OAuth provider finds the
 * authorization server from /mcp's 401, registers itself, and sends the admin to the consent page
 * (Chromium), who logs in and allows two devices; the client then lists and calls a device tool.
 * A second app allowed one device is refused the other; hostile requests are refused with the
 * spec's errors and counted; a grant revoked in the dashboard stops; a refresh works after a
 * runtime restart; a grant revoked from the CLI stops. A grant the library ends by itself (a
 * replayed code, an app revoking its refresh token) takes its key with it.
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
import { asAdmin, runCli } from "../helpers/cli.js";
import { dashboardPage, launchChromium } from "../helpers/dashboard-browser.js";
import { type AgentProcess, startAgent } from "../helpers/device-agent.js";
import { ADMIN_TOKEN, type LocalWorker, startLocalWorker } from "../helpers/local-worker.js";
import { resultText } from "../helpers/mcp.js";
import { ConnectorProvider } from "../helpers/mcp-oauth.js";
import { REPO_ROOT } from "../helpers/processes.js";
import { scriptedVars, startScriptedStack } from "../helpers/scripted-stack.js";
import { waitUntil } from "../helpers/wait.js";

const DEVICES = { "pi-a": "oauth-device-a", "pi-b": "oauth-device-b" };
let llm: ScriptedLlm;
let worker: LocalWorker;
let agents: AgentProcess[] = [];
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];
let callback: Server;
let redirectUrl: string;

const mcpUrl = () => new URL(`${worker.url}/mcp`);

async function connected(provider: ConnectorProvider): Promise<Client> {
  const client = new Client({ name: "connector-e2e", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider }));
  return client;
}

/**
 * The consent page as the admin sees it: log in if asked, check who asks, tick `agents`, allow.
 * Answers the code the browser was sent back with.
 */
async function consent(url: URL | string, clientName: string, agentIds: string[]): Promise<string> {
  await page.goto(String(url));
  const login = page.getByLabel("Admin token");
  if (await login.isVisible()) {
    await login.fill(ADMIN_TOKEN);
    await page.getByRole("button", { name: "Log in" }).click();
  }
  await page.getByRole("heading", { name: `Allow ${clientName} to use your devices?` }).waitFor();
  expect(await page.locator("#client-name").textContent()).toBe(clientName);
  expect(await page.locator("#redirect-uri").textContent()).toBe(redirectUrl);
  for (const id of agentIds) await page.locator(`input[name=agents][value="${id}"]`).check();
  await page.getByRole("button", { name: "Allow" }).click();
  await page.waitForURL((u) => u.href.startsWith(redirectUrl));
  const back = new URL(page.url());
  expect(back.searchParams.get("iss")).toBe(worker.url);
  return back.searchParams.get("code")!;
}

/** The whole connector flow: 401, discovery, registration, consent, tokens. */
async function addFleet(name: string, agentIds: string[]): Promise<{ provider: ConnectorProvider; client: Client }> {
  const provider = new ConnectorProvider(name, redirectUrl);
  const transport = new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider });
  await expect(new Client({ name: "connector-e2e", version: "1.0.0" }).connect(transport)).rejects.toBeInstanceOf(
    UnauthorizedError,
  );
  expect(provider.client?.client_id).toBeTruthy();
  const code = await consent(provider.authorizationUrl!, name, agentIds);
  await transport.finishAuth(code);
  expect(provider.saved?.refresh_token).toBeTruthy();
  return { provider, client: await connected(provider) };
}

async function admin(path: string, init: RequestInit = {}) {
  const res = await fetch(`${worker.url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...init.headers },
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

function token(form: Record<string, string>, base = worker.url) {
  return fetch(`${base}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form),
  });
}

const toolNames = async (client: Client) => (await client.listTools()).tools.map((t) => t.name);

beforeAll(async () => {
  callback = createServer((_req, res) => res.end("You can close this window."));
  await new Promise<void>((r) => callback.listen(0, "127.0.0.1", r));
  redirectUrl = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`;
  ({ llm, worker } = await startScriptedStack({ rules: [], devices: DEVICES }));
  agents = await Promise.all(
    Object.entries(DEVICES).map(([agentId, t]) =>
      startAgent({
        url: worker.url,
        agentId,
        token: t,
        skills: [join(REPO_ROOT, "test/fixtures/agent-skills/basic")],
        env: { EDGELOOP_RECONNECT_MAX_MS: "2000" },
      }),
    ),
  );
  browser = await launchChromium();
  page = await dashboardPage(browser, pageErrors);
});

afterAll(async () => {
  await browser?.close();
  await Promise.all(agents.map((a) => a.stop()));
  await worker?.stop();
  await llm?.close();
  await new Promise((r) => callback?.close(r));
});

describe("the fleet added to an MCP client by URL (OAuth)", () => {
  let first: { provider: ConnectorProvider; client: Client };
  let second: { provider: ConnectorProvider; client: Client };

  it("answers /mcp without a credential with a 401 naming the resource's metadata", async () => {
    const res = await fetch(mcpUrl(), { method: "POST", body: "{}", headers: { "content-type": "application/json" } });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe(
      `Bearer resource_metadata="${worker.url}/.well-known/oauth-protected-resource/mcp", scope="mcp"`,
    );
    const meta = (await (await fetch(`${worker.url}/.well-known/oauth-protected-resource/mcp`)).json()) as Record<
      string,
      unknown
    >;
    expect(meta).toMatchObject({ resource: `${worker.url}/mcp`, authorization_servers: [worker.url] });
  });

  it("registers, gets the admin's consent for two devices, and lists and calls their tools", async () => {
    first = await addFleet("Claude e2e", ["pi-a", "pi-b"]);
    expect(await toolNames(first.client)).toEqual(expect.arrayContaining(["pi-a__echo", "pi-b__echo", "list_devices"]));
    const result = await first.client.callTool({ name: "pi-b__echo", arguments: { text: "through oauth" } });
    expect(result.isError).toBeFalsy();
    expect(resultText(result)).toContain("through oauth");
    expect(pageErrors).toEqual([]);
  });

  it("a second app allowed one device is refused the other", async () => {
    second = await addFleet("ChatGPT e2e", ["pi-a"]);
    const names = await toolNames(second.client);
    expect(names).toContain("pi-a__echo");
    expect(names.some((n) => n.startsWith("pi-b__"))).toBe(false);
    const refused = await second.client.callTool({ name: "pi-b__echo", arguments: { text: "sneak" } });
    expect(resultText(refused)).toContain("unknown tool");
    const listed = await second.client.callTool({ name: "list_devices", arguments: {} });
    expect(resultText(listed)).not.toContain("pi-b");
  });

  it("lists both grants for the admin, each carried by a key", async () => {
    const run = await runCli(["mcp", "grants", "--json"], asAdmin(worker.url));
    expect(run.code).toBe(0);
    const { grants } = JSON.parse(run.stdout) as {
      grants: { client_name: string; agents: string[]; key_id: string }[];
    };
    expect(grants.map((g) => [g.client_name, g.agents])).toEqual([
      ["ChatGPT e2e", ["pi-a"]],
      ["Claude e2e", ["pi-a", "pi-b"]],
    ]);
    const keys = (await admin("/v1/keys")).body.keys as { key_id: string; name: string }[];
    expect(keys.find((k) => k.key_id === grants[0]!.key_id)?.name).toBe("mcp: ChatGPT e2e");
  });

  it("refuses hostile requests with the spec's errors, and counts them", async () => {
    const before = ((await admin("/v1/limits")).body.rejections ?? {}) as Record<string, number>;
    const reg = await fetch(`${worker.url}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ client_name: "Probe", redirect_uris: [redirectUrl], token_endpoint_auth_method: "none" }),
    });
    expect(reg.status).toBe(201);
    const clientId = ((await reg.json()) as { client_id: string }).client_id;
    const verifier = randomBytes(32).toString("base64url");
    const authorizeUrl = (redirect: string, resource = `${worker.url}/mcp`) => {
      const u = new URL(`${worker.url}/oauth/authorize`);
      u.search = new URLSearchParams({
        response_type: "code",
        client_id: clientId,
        redirect_uri: redirect,
        state: "s1",
        resource,
        scope: "mcp",
        code_challenge: createHash("sha256").update(verifier).digest("base64url"),
        code_challenge_method: "S256",
      }).toString();
      return u.href;
    };

    // A redirect URI the client never registered, or one elsewhere: refused here, never redirected.
    for (const redirect of [`${redirectUrl}/../evil`, "https://evil.example/callback"]) {
      const res = await fetch(authorizeUrl(redirect), { redirect: "manual" });
      expect(res.status).toBe(400);
      expect(res.headers.get("location")).toBeNull();
    }
    // The login's way back goes nowhere but the consent page.
    const login = await fetch(`${worker.url}/login`, {
      method: "POST",
      redirect: "manual",
      body: new URLSearchParams({ token: ADMIN_TOKEN, next: "https://evil.example/" }),
    });
    expect(login.status).toBe(303);
    expect(login.headers.get("location")).toBe("/");
    // A token for another resource is not issued.
    const other = await fetch(authorizeUrl(redirectUrl, "https://evil.example/mcp"), { redirect: "manual" });
    expect(other.status).toBe(302);
    expect(new URL(other.headers.get("location")!).searchParams.get("error")).toBe("invalid_target");

    // Deny: back to the app with access_denied and its own state, and no grant.
    await page.goto(authorizeUrl(redirectUrl));
    await page.getByRole("heading", { name: "Allow Probe to use your devices?" }).waitFor();
    await page.getByRole("button", { name: "Deny" }).click();
    await page.waitForURL((u) => u.href.startsWith(redirectUrl));
    const denied = new URL(page.url()).searchParams;
    expect([denied.get("error"), denied.get("state")]).toEqual(["access_denied", "s1"]);
    // A consent form forged outside the page: no session, or a session but no handle the page gave.
    const forge = (cookie?: string) =>
      fetch(`${worker.url}/oauth/authorize`, {
        method: "POST",
        redirect: "manual",
        headers: cookie ? { cookie } : {},
        body: new URLSearchParams([
          ["handle", "forged"],
          ["decision", "approve"],
          ["agents", "*"],
          ["scopes", "mcp"],
        ]),
      });
    expect((await forge()).status).toBe(401);
    const session = (login.headers.get("set-cookie") ?? "").split(";")[0]!;
    const forgedForm = await forge(session);
    expect(forgedForm.status).toBe(400);
    expect(forgedForm.headers.get("location")).toBeNull();

    const code = await consent(authorizeUrl(redirectUrl), "Probe", ["pi-a"]);
    const exchange = (c: string, v: string) =>
      token({
        grant_type: "authorization_code",
        code: c,
        code_verifier: v,
        client_id: clientId,
        redirect_uri: redirectUrl,
      });
    const forged = await exchange(
      `admin:${randomBytes(8).toString("hex")}:${randomBytes(16).toString("hex")}`,
      verifier,
    );
    expect(forged.status).toBe(400);
    expect(await forged.json()).toMatchObject({ error: "invalid_grant" });
    const wrongVerifier = await exchange(code, randomBytes(32).toString("base64url"));
    expect(wrongVerifier.status).toBe(400);
    expect(await wrongVerifier.json()).toMatchObject({ error: "invalid_grant" });
    const issued = await exchange(code, verifier);
    expect(issued.status).toBe(200);
    const probeAccess = ((await issued.json()) as { access_token: string }).access_token;
    const replayed = await exchange(code, verifier);
    expect(replayed.status).toBe(400);
    expect(await replayed.json()).toMatchObject({ error: "invalid_grant" });
    // A replayed code revokes what it was exchanged for (RFC 6749 §4.1.2): the stolen copy is worthless.
    const afterReplay = await fetch(mcpUrl(), {
      method: "POST",
      headers: { authorization: `Bearer ${probeAccess}`, "content-type": "application/json" },
      body: "{}",
    });
    expect(afterReplay.status).toBe(401);
    // The library removed that grant by itself; the key made for it follows, as the keys list shows.
    const keys = (await admin("/v1/keys")).body.keys as { name: string; revoked_at: number | null }[];
    expect(keys.find((k) => k.name === "mcp: Probe")?.revoked_at).toEqual(expect.any(Number));

    // A token issued at one origin is not valid at another (its audience is the first one's /mcp).
    const tokens = first.provider.saved!;
    const elsewhere = await fetch(`http://localhost:${worker.port}/mcp`, {
      method: "POST",
      headers: { authorization: `Bearer ${tokens.access_token}`, "content-type": "application/json" },
      body: "{}",
    });
    expect(elsewhere.status).toBe(401);
    expect(elsewhere.headers.get("www-authenticate")).toContain('error="invalid_token"');

    const after = (await admin("/v1/limits")).body.rejections as Record<string, number>;
    const grew = (k: string) => (after[k] ?? 0) - (before[k] ?? 0);
    // two unregistered redirect URIs, one forged consent form
    expect(grew("/oauth/authorize 400 invalid_request")).toBe(3);
    expect(grew("/oauth/authorize 302 invalid_target")).toBe(1);
    expect(grew("/oauth/authorize 401 login_required")).toBe(1);
    expect(grew("/oauth/token 400 invalid_grant")).toBe(3);
    expect(grew("/mcp 401 Unauthorized")).toBe(2);
  });

  it("a grant revoked in the dashboard stops working within the documented bound", async () => {
    // The dashboard, where the admin is still logged in, lists the apps; revoke the second one.
    await page.goto(`${worker.url}/`);
    await page.getByRole("heading", { name: /Apps using MCP/ }).waitFor();
    const revoke = page.getByRole("button", { name: "Revoke ChatGPT e2e" });
    await revoke.waitFor();
    expect(await page.getByRole("button", { name: "Revoke Claude e2e" }).count()).toBe(1);
    await revoke.click();
    await revoke.waitFor({ state: "detached" });
    // docs/mcp.md#revoking-an-app: within the trusted copy's 10 seconds (at once on this one isolate).
    const access = second.provider.saved!.access_token;
    const refused = await waitUntil(
      () => fetch(mcpUrl(), { method: "POST", body: "{}", headers: { authorization: `Bearer ${access}` } }),
      (r) => r.status === 401,
      { timeoutMs: 12_000, what: "the revoked grant's token to be refused" },
    );
    expect(refused.headers.get("www-authenticate")).toContain('error="invalid_token"');
    // The client tries its refresh token, which went with the grant: it must ask the admin again.
    expect(String(await toolNames(second.client).catch((e: Error) => e))).toMatch(/InvalidGrantError|Unauthorized/);
    const { grants: left } = (await admin("/v1/mcp/grants")).body as { grants: { client_name: string }[] };
    expect(left.map((g) => g.client_name)).toEqual(["Claude e2e"]);
    expect(pageErrors).toEqual([]);
    // The first app is untouched.
    expect(await toolNames(first.client)).toContain("pi-b__echo");
  });

  it("refreshes its tokens after a runtime restart and goes on", async () => {
    const old = first.provider.saved!;
    await worker.kill();
    worker = await startLocalWorker({
      vars: scriptedVars(llm, DEVICES),
      persistDir: worker.persistDir,
      port: worker.port,
    });
    expect(await auth(first.provider, { serverUrl: mcpUrl() })).toBe("AUTHORIZED");
    const fresh = first.provider.saved!;
    expect(fresh.access_token).not.toBe(old.access_token);
    expect(fresh.refresh_token).not.toBe(old.refresh_token);
    const client = await connected(first.provider);
    // The devices come back on their own (they reconnect); the grant still reaches both.
    await waitUntil(
      () => toolNames(client),
      (names) => names.includes("pi-a__echo") && names.includes("pi-b__echo"),
      { timeoutMs: 30_000, what: "both devices' tools after the restart" },
    );
    const result = await client.callTool({ name: "pi-a__echo", arguments: { text: "after restart" } });
    expect(resultText(result)).toContain("after restart");
  });

  it("a grant revoked from the CLI stops working", async () => {
    const { grants } = (await admin("/v1/mcp/grants")).body as { grants: { grant_id: string; client_name: string }[] };
    expect(grants.map((g) => g.client_name)).toEqual(["Claude e2e"]);
    const id = grants[0]!.grant_id;
    const run = await runCli(["mcp", "revoke", id], asAdmin(worker.url));
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Revoked ${id}`);
    const access = first.provider.saved!.access_token;
    const refused = await waitUntil(
      () => fetch(mcpUrl(), { method: "POST", body: "{}", headers: { authorization: `Bearer ${access}` } }),
      (r) => r.status === 401,
      { timeoutMs: 12_000, what: "the revoked grant's token to be refused" },
    );
    expect(refused.status).toBe(401);
    expect((await runCli(["mcp", "grants"], asAdmin(worker.url))).stdout).toContain("No app is allowed");
  });

  it("an app that revokes its own refresh token (RFC 7009) ends its grant, and the grant's key follows", async () => {
    const app = await addFleet("Cursor e2e", ["pi-a"]);
    const { grants } = (await admin("/v1/mcp/grants")).body as { grants: { client_name: string; key_id: string }[] };
    const keyId = grants.find((g) => g.client_name === "Cursor e2e")?.key_id;
    expect(keyId).toBeTruthy();
    const revoked = await token({
      token: app.provider.saved!.refresh_token!,
      token_type_hint: "refresh_token",
      client_id: app.provider.client!.client_id,
    });
    expect(revoked.status).toBe(200);
    const keys = (await admin("/v1/keys")).body.keys as { key_id: string; revoked_at: number | null }[];
    expect(keys.find((k) => k.key_id === keyId)?.revoked_at).toEqual(expect.any(Number));
    expect((await admin("/v1/mcp/grants")).body.grants).toEqual([]);
  });
});
