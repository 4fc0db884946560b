/**
 * The dashboard in a real headless Chromium against a real worker, agent and scripted
 * model: log in, watch a conversation run to its reply, approve a waiting call with the button,
 * send messages to a device, a pool and an open conversation from the form, and keep a
 * screenshot at test/artifacts/dashboard.png.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ScriptedLlm } from "../../scripted-llm/server.js";
import { sendMessage } from "../helpers/api.js";
import { dashboardPage, launchChromium } from "../helpers/dashboard-browser.js";
import { type AgentProcess, startAgent } from "../helpers/device-agent.js";
import { ADMIN_TOKEN, type LocalWorker } from "../helpers/local-worker.js";
import { REPO_ROOT } from "../helpers/processes.js";
import { startScriptedStack } from "../helpers/scripted-stack.js";
import { waitUntil } from "../helpers/wait.js";

const AGENT = "pi-dash";
const DEVICE_TOKEN = "dash-device-token";
const ARTIFACTS = join(REPO_ROOT, "test/artifacts");

let llm: ScriptedLlm;
let worker: LocalWorker;
let agent: AgentProcess;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];

beforeAll(async () => {
  ({ llm, worker } = await startScriptedStack({
    rules: [
      {
        match: "uptime",
        turns: [
          { tool_calls: [{ name: "bash", arguments: { command: "echo up-7-days; sleep 0.3" } }] },
          { content: "The shelf Pi has been up 7 days." },
        ],
      },
      {
        match: "broken",
        turns: [
          { tool_calls: [{ name: "bash", arguments: { command: "echo disk full >&2; exit 2" } }] },
          { content: "The command failed: disk full." },
        ],
      },
      {
        match: "dashboard chat",
        turns: [
          { tool_calls: [{ name: "bash", arguments: { command: "echo dash-chat-ok" } }] },
          { content: "Chat reply: {{last_tool_result}}" },
        ],
      },
      { match: "follow-up", turns: [{ content: "Follow-up answered." }] },
      {
        match: "pool chat",
        turns: [
          { tool_calls: [{ name: "bash", arguments: { command: "echo pool-ok" } }] },
          { content: "Pool reply: {{last_tool_result}}" },
        ],
      },
      {
        match: "commit",
        turns: [
          { tool_calls: [{ name: "git_commit", arguments: { message: "nightly snapshot", all: true } }] },
          { content: "Committed (or tried to): {{last_tool_result}}" },
        ],
      },
    ],
    devices: { [AGENT]: DEVICE_TOKEN },
    vars: {
      TOOL_POLICIES: "git_commit:requires_approval",
      POOLS: `shelf:${AGENT}`,
    },
  }));
  agent = await startAgent({ url: worker.url, agentId: AGENT, token: DEVICE_TOKEN });
  // Some history so the charts have something to draw: one success, one failure.
  await sendMessage(worker.url, { agent_id: AGENT, text: "uptime first" }, 30);
  await sendMessage(worker.url, { agent_id: AGENT, text: "broken thing" }, 30);
  browser = await launchChromium();
  page = await dashboardPage(browser, pageErrors);
});

async function conversationCount(): Promise<number> {
  const res = await fetch(`${worker.url}/v1/conversations?limit=100`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  return ((await res.json()) as { conversations: unknown[] }).conversations.length;
}

afterAll(async () => {
  await browser?.close();
  await agent?.stop();
  await worker?.stop();
  await llm?.close();
});

describe("dashboard", () => {
  it("refuses a wrong token, then logs in with the admin token into an HttpOnly, Secure, SameSite=Strict session cookie", async () => {
    await page.goto(`${worker.url}/`);
    await page.getByLabel("Admin token").fill("not-the-token");
    await page.getByRole("button", { name: "Log in" }).click();
    await expect.poll(() => page.getByRole("alert").textContent()).toContain("not the admin token");
    await page.getByLabel("Admin token").fill(ADMIN_TOKEN);
    await page.getByRole("button", { name: "Log in" }).click();
    await page.getByRole("heading", { name: /Devices/ }).waitFor();
    const cookies = await page.context().cookies();
    expect(cookies).toHaveLength(1);
    const session = cookies[0]!;
    expect(session).toMatchObject({
      name: "__Host-edgeloop_session",
      httpOnly: true,
      secure: true,
      sameSite: "Strict",
      path: "/",
    });
    // The cookie is a signed expiry, never the token itself.
    expect(session.value).not.toContain(ADMIN_TOKEN);
    expect(session.value).toMatch(/^\d{13}\.[A-Za-z0-9_-]{43}$/);
  });

  it("serves the page under a strict CSP with no inline script", async () => {
    const res = await page.request.get(`${worker.url}/`);
    const csp = res.headers()["content-security-policy"]!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain("unsafe-inline");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(await res.text()).not.toMatch(/<script>|<script [^>]*>[^<]/);
  });

  it("accepts the session cookie as admin auth, but refuses a cookie-authenticated POST without the CSRF header", async () => {
    const cookie = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join("; ");
    const devices = await fetch(`${worker.url}/v1/devices`, { headers: { cookie } });
    expect(devices.status).toBe(200);
    const url = `${worker.url}/v1/conversations/conv_nope/approvals/call_nope`;
    const body = JSON.stringify({ approve: true });
    const noCsrf = await fetch(url, { method: "POST", headers: { cookie, "content-type": "application/json" }, body });
    expect(noCsrf.status).toBe(403);
    expect(((await noCsrf.json()) as { detail: string }).detail).toContain("X-Edgeloop-CSRF");
    // The same request with the header gets through auth (and finds no such call).
    const withCsrf = await fetch(url, {
      method: "POST",
      headers: { cookie, "content-type": "application/json", "x-edgeloop-csrf": "1" },
      body,
    });
    expect(withCsrf.status).toBe(404);
    // And from inside the page, the browser's own cookie + no header: refused too.
    const inPage = await page.evaluate(
      async (u) =>
        (await fetch(u, { method: "POST", headers: { "content-type": "application/json" }, body: '{"approve":true}' }))
          .status,
      url,
    );
    expect(inPage).toBe(403);
    // A forged or expired session is not a session.
    const forged = await fetch(`${worker.url}/v1/devices`, {
      headers: { cookie: `__Host-edgeloop_session=${Date.now() + 60_000}.${"A".repeat(43)}` },
    });
    expect(forged.status).toBe(401);
  });

  it("lists the device online with its tools", async () => {
    const row = page.locator("#devices tr", { hasText: AGENT });
    await expect.poll(() => row.textContent(), { timeout: 15_000 }).toContain("online");
    expect(await row.textContent()).toContain("bash");
  });

  it("watches a conversation live: the tool call with its parameters and result, then the reply", async () => {
    const accepted = await sendMessage(worker.url, { agent_id: AGENT, text: "uptime please" });
    const id = accepted.body.conversation_id;
    const open = page.locator(`button[data-conversation="${id}"]`);
    await open.waitFor({ timeout: 20_000 });
    await open.click();
    const tool = page.locator("#timeline li.tool", { hasText: "bash" });
    await tool.waitFor({ timeout: 20_000 });
    await expect.poll(() => tool.textContent(), { timeout: 20_000 }).toContain("up-7-days");
    expect(await tool.textContent()).toContain("echo up-7-days");
    const reply = page.locator("#timeline li.reply");
    await reply.waitFor({ timeout: 20_000 });
    expect(await reply.textContent()).toContain("The shelf Pi has been up 7 days.");
  });

  it("approves a waiting call with the button, and the conversation finishes", async () => {
    const accepted = await sendMessage(worker.url, { agent_id: AGENT, text: "commit the workspace" });
    const id = accepted.body.conversation_id;
    const approve = page.locator("#approvals").getByRole("button", { name: /^Approve git_commit/ });
    await approve.waitFor({ timeout: 20_000 });
    expect(await page.locator("#approvals").textContent()).toContain("nightly snapshot");
    await page.locator(`button[data-conversation="${id}"]`).click();
    await page.locator("#timeline li.wait", { hasText: "git_commit" }).waitFor({ timeout: 20_000 });
    await approve.click();
    await page.locator("#timeline li.reply", { hasText: "Committed" }).waitFor({ timeout: 20_000 });
    await waitUntil(
      () =>
        fetch(`${worker.url}/v1/conversations/${id}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }).then(
          (r) => r.json() as Promise<{ status: string }>,
        ),
      (v) => v.status === "completed",
      { what: "the approved conversation to complete" },
    );
    await expect
      .poll(() => page.locator("#approvals").textContent(), { timeout: 10_000 })
      .toContain("Nothing is waiting");
  });

  it("sends a message to a device from the form and shows it running in the live timeline", async () => {
    await page.selectOption("#chat-target", `agent:${AGENT}`);
    await page.getByLabel("Message", { exact: true }).fill("dashboard chat: what does the device say?");
    await page.getByRole("button", { name: "Send", exact: true }).click();
    await page.locator("#timeline li.user", { hasText: "dashboard chat" }).waitFor({ timeout: 20_000 });
    await page.locator("#timeline li.tool", { hasText: "dash-chat-ok" }).waitFor({ timeout: 20_000 });
    await page.locator("#timeline li.reply", { hasText: "Chat reply: dash-chat-ok" }).waitFor({ timeout: 20_000 });
    expect(await page.locator("#chat-status").textContent()).toContain(`Sent to ${AGENT}`);
    expect(await page.getByLabel("Message", { exact: true }).inputValue()).toBe("");
    // The form now points at the conversation it started, which the timeline shows.
    expect(await page.locator("#chat-target").inputValue()).toMatch(/^conv:conv_/);
  });

  it("continues the conversation the timeline shows, in the same timeline", async () => {
    const id = (await page.locator("#chat-target").inputValue()).slice("conv:".length);
    await page.getByLabel("Message", { exact: true }).fill("a follow-up question");
    await page.getByLabel("Message", { exact: true }).press("Control+Enter");
    await page.locator("#timeline li.reply", { hasText: "Follow-up answered." }).waitFor({ timeout: 20_000 });
    expect(await page.locator("#timeline li.user").count()).toBe(2);
    const conv = (await (
      await fetch(`${worker.url}/v1/conversations/${id}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
    ).json()) as { agent_id: string; messages: { role: string; content: string }[] };
    expect(conv.agent_id).toBe(AGENT);
    expect(conv.messages.filter((m) => m.role === "user").map((m) => m.content)).toEqual([
      "dashboard chat: what does the device say?",
      "a follow-up question",
    ]);
  });

  it("sends to a pool, and refuses a message posted from the page without the CSRF header", async () => {
    await page.selectOption("#chat-target", "pool:shelf");
    await page.getByLabel("Message", { exact: true }).fill("pool chat, anyone there?");
    await page.getByRole("button", { name: "Send", exact: true }).click();
    await page.locator("#timeline li.reply", { hasText: "Pool reply: pool-ok" }).waitFor({ timeout: 20_000 });
    const status = await page.evaluate(
      async (a) =>
        (
          await fetch("/v1/messages", {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ agent_id: a, text: "no csrf" }),
          })
        ).status,
      AGENT,
    );
    expect(status).toBe(403);
  });

  it("issues an API key (shown once), which sees none of the admin's conversations, and revokes it", async () => {
    await page.getByLabel("Key name").fill("tenant-dash");
    await page.getByLabel(/Devices the key may use/).fill(AGENT);
    await page.getByRole("button", { name: "Issue key" }).click();
    const key = (await page.locator("#key-secret").textContent({ timeout: 10_000 }))!;
    expect(key).toMatch(/^edk_/);
    const asKey = () => fetch(`${worker.url}/v1/conversations`, { headers: { authorization: `Bearer ${key}` } });
    const mine = (await (await asKey()).json()) as { conversations: unknown[] };
    expect(mine.conversations).toEqual([]);
    expect(await conversationCount()).toBeGreaterThan(0);
    const row = page.locator("#keys tr", { hasText: "tenant-dash" });
    await row.getByRole("button", { name: /Revoke/ }).click();
    await expect.poll(() => row.textContent(), { timeout: 15_000 }).toContain("revoked");
    expect((await asKey()).status).toBe(401);
  });

  it("lists a device waiting to pair, denies one and approves another with the buttons", async () => {
    const ask = async (agentId: string) =>
      (await (
        await fetch(`${worker.url}/v1/pairing`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ agent_id: agentId, label: "dash test" }),
        })
      ).json()) as { code: string; claim_secret: string };
    const claim = async (secret: string) =>
      (await (
        await fetch(`${worker.url}/v1/pairing/claim`, {
          method: "POST",
          headers: { authorization: `Bearer ${secret}` },
        })
      ).json()) as { status: string; token?: string };
    const [denied, approved] = [await ask("pair-dash-no"), await ask("pair-dash-yes")];
    await page.getByRole("button", { name: `Deny ${denied.code} for pair-dash-no` }).click({ timeout: 15_000 });
    await page.getByRole("button", { name: `Approve ${approved.code} for pair-dash-yes` }).click({ timeout: 15_000 });
    await expect.poll(() => page.locator("#pairing-status").textContent()).toContain(`Approved ${approved.code}`);
    expect(await claim(denied.claim_secret)).toEqual({ status: "denied" });
    expect((await claim(approved.claim_secret)).token).toMatch(/^edl_/);
    await expect.poll(() => page.locator("#pairing").textContent()).not.toContain(approved.code);
  });

  it("draws the tool charts and keeps a screenshot", async () => {
    // The tool panel refreshes every 10 s; wait until it includes the approved git_commit call.
    await expect.poll(() => page.locator("#tool-table").textContent(), { timeout: 25_000 }).toContain("git_commit");
    await page.locator("#chart-success-time svg rect").first().waitFor({ timeout: 20_000 });
    expect(await page.locator("#chart-latency-tool svg").count()).toBe(1);
    expect(await page.locator("#chart-latency-time svg").count()).toBe(1);
    // Back to the conversation that ran a tool, so the screenshot shows a full timeline.
    const first = page.locator("#conversations button[data-conversation]").nth(1);
    await first.click();
    // A conversation continued from the form has several replies: any one will do.
    await page.locator("#timeline li.reply").first().waitFor({ timeout: 20_000 });
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, "dashboard.png"), fullPage: true });
    expect(pageErrors).toEqual([]);
  });

  it("logs out: the cookie is cleared and the page asks for the token again", async () => {
    await page.getByRole("button", { name: "Log out" }).click();
    await page.getByLabel("Admin token").waitFor();
    expect(await page.context().cookies()).toEqual([]);
  });

  it("with an expired session, sending is refused and the page asks for the token again", async () => {
    await page.getByLabel("Admin token").fill(ADMIN_TOKEN);
    await page.getByRole("button", { name: "Log in" }).click();
    await page.locator(`#chat-target option[value="agent:${AGENT}"]`).waitFor({ state: "attached", timeout: 15_000 });
    await page.selectOption("#chat-target", `agent:${AGENT}`);
    await page.getByLabel("Message", { exact: true }).fill("dashboard chat after expiry");
    const before = await conversationCount();
    // A session the worker no longer accepts (a signature it did not make), as after ADMIN_TOKEN rotation.
    const [session] = await page.context().cookies();
    await page.context().addCookies([{ ...session!, value: `${Date.now() + 60_000}.${"A".repeat(43)}` }]);
    // The send's 401 reloads the page into the login form (a poll's 401 would, should it come first).
    await page
      .getByRole("button", { name: "Send", exact: true })
      .click({ timeout: 2_000 })
      .catch(() => undefined);
    await page.getByLabel("Admin token").waitFor({ timeout: 15_000 });
    // The same browser's cookie jar, with the CSRF header: the message endpoint itself says 401.
    const direct = await page.context().request.post(`${worker.url}/v1/messages`, {
      headers: { "x-edgeloop-csrf": "1" },
      data: { agent_id: AGENT, text: "dashboard chat after expiry" },
    });
    expect(direct.status()).toBe(401);
    expect(await conversationCount()).toBe(before);
  });
});
