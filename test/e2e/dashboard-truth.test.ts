/**
 * The dashboard tells the truth, in a real headless Chromium against a real worker, agent and
 * scripted model: an approval card changes state the moment its call is decided (in the page,
 * through the API, by a rule) and stays decided after a reload; a tool's run time is shown apart
 * from its wait for approval; a run is cancelled and a device token issued and revoked from the
 * page; at phone width nothing is wider than the screen. Screenshots go to test/artifacts/.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ScriptedLlm } from "../../scripted-llm/server.js";
import { sendMessage } from "../helpers/api.js";
import { asAdmin, runCli } from "../helpers/cli.js";
import { dashboardPage, launchChromium, logIn } from "../helpers/dashboard-browser.js";
import { type AgentProcess, startAgent } from "../helpers/device-agent.js";
import { ADMIN_TOKEN, type LocalWorker } from "../helpers/local-worker.js";
import { REPO_ROOT } from "../helpers/processes.js";
import { startScriptedStack } from "../helpers/scripted-stack.js";
import { waitUntil } from "../helpers/wait.js";

const AGENT = "pi-truth";
const DEVICE_TOKEN = "truth-device-token";
const ARTIFACTS = join(REPO_ROOT, "test/artifacts");
const ADMIN = { authorization: `Bearer ${ADMIN_TOKEN}` };

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
        match: "sleepy",
        turns: [{ tool_calls: [{ name: "bash", arguments: { command: "sleep 20" } }] }, { content: "Slept." }],
      },
      {
        match: "ask me",
        turns: [
          { tool_calls: [{ name: "question", arguments: { question: "Which colour?" } }] },
          { content: "You chose {{last_tool_result}}." },
        ],
      },
      {
        match: "commit",
        turns: [
          { tool_calls: [{ name: "git_commit", arguments: { message: "nightly snapshot", all: true } }] },
          { content: "Committed (or tried to)." },
        ],
      },
    ],
    devices: { [AGENT]: DEVICE_TOKEN },
    vars: {
      TOOL_POLICIES: "git_commit:requires_approval",
    },
  }));
  agent = await startAgent({ url: worker.url, agentId: AGENT, token: DEVICE_TOKEN });
  browser = await launchChromium();
  page = await dashboardPage(browser, pageErrors);
  await logIn(page, worker.url);
});

afterAll(async () => {
  await browser?.close();
  await agent?.stop();
  await worker?.stop();
  await llm?.close();
});

const api = async (path: string, init: { method?: string; body?: unknown } = {}) => {
  const res = await fetch(`${worker.url}${path}`, {
    method: init.method ?? "GET",
    headers: { ...ADMIN, "content-type": "application/json" },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  return (await res.json()) as any;
};

/** Start a run and follow it in the timeline. */
async function watch(text: string): Promise<string> {
  const id = (await sendMessage(worker.url, { agent_id: AGENT, text })).body.conversation_id;
  const open = page.locator(`button[data-conversation="${id}"]`);
  await open.waitFor({ timeout: 20_000 });
  await open.click();
  await page.locator("#timeline li.user", { hasText: text }).waitFor({ timeout: 20_000 });
  return id;
}

const approvalCard = (callId: string): Locator => page.locator(`#timeline li[data-approval="${callId}"]`);
const toolItem = (callId: string): Locator => page.locator(`#timeline li.tool[data-tool-call="${callId}"]`);

async function waitingCall(id: string): Promise<string> {
  const view = await waitUntil(
    () => api(`/v1/conversations/${id}`),
    (v) => v.pending_tool_calls?.some((c: { state: string }) => c.state === "awaiting_approval"),
    { what: "a call waiting for approval" },
  );
  return view.pending_tool_calls[0].id as string;
}

const completed = (id: string) =>
  waitUntil(
    () => api(`/v1/conversations/${id}`),
    (v) => v.status === "completed",
    { what: "the run to complete" },
  );

describe("dashboard: approvals as they are", () => {
  it("approve in the page: the card says who and when at once, the tool's run time is apart from the wait, and a reload keeps it", async () => {
    const id = await watch("commit from the page");
    const callId = await waitingCall(id);
    const card = approvalCard(callId);
    await card.getByRole("button", { name: /^Approve git_commit/ }).waitFor({ timeout: 20_000 });
    expect(await toolItem(callId).locator(".meta").textContent()).toBe("waiting for approval");
    // The question comes before its tool's card, which runs after the decision.
    expect(
      await page.evaluate(
        (id) =>
          document
            .querySelector(`li[data-approval="${id}"]`)!
            .compareDocumentPosition(document.querySelector(`li[data-tool-call="${id}"]`)!) &
          Node.DOCUMENT_POSITION_FOLLOWING,
        callId,
      ),
    ).toBeTruthy();
    await page.waitForTimeout(1500); // a wait long enough to tell apart from the tool's own time
    await card.getByRole("button", { name: /^Approve git_commit/ }).click();
    await expect
      .poll(() => card.locator(".meta").textContent(), { timeout: 10_000 })
      .toMatch(/^approved by a person · /);
    expect(await card.locator("button").count()).toBe(0);
    await completed(id);
    const meta = toolItem(callId).locator(".meta");
    // The run time is in ms, or in s once the tool took a second or more (a loaded machine).
    await expect
      .poll(() => meta.textContent(), { timeout: 10_000 })
      .toMatch(/^(done|failed) · waited \d\.\d s for approval · ran (\d+ ms|\d+(\.\d)? s)$/);
    // The API's summary tells the same story.
    const view = await api(`/v1/conversations/${id}`);
    const summary = view.replies[0].tool_calls[0];
    expect(summary).toMatchObject({ decided_by: "person" });
    expect(summary.approval_wait_ms).toBeGreaterThanOrEqual(1500);
    expect(summary.elapsed_ms).toBeLessThan(summary.approval_wait_ms);
    // After a reload the state comes from the stream, not from what the page did.
    await page.reload();
    await page.locator(`button[data-conversation="${id}"]`).click();
    await expect
      .poll(() => card.locator(".meta").textContent(), { timeout: 15_000 })
      .toMatch(/^approved by a person · /);
    expect(await card.locator("button").count()).toBe(0);
    expect(await meta.textContent()).toMatch(/waited \d\.\d s for approval · ran (\d+ ms|\d+(\.\d)? s)$/);
    await expect.poll(() => page.locator("#approvals").textContent()).toContain("Nothing is waiting");
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.locator("#timeline").screenshot({ path: join(ARTIFACTS, "dashboard-approved.png") });
  });

  it("deny through the API while the page is open: the card changes without a reload", async () => {
    const id = await watch("commit through the API");
    const callId = await waitingCall(id);
    const card = approvalCard(callId);
    await card.getByRole("button", { name: /^Deny git_commit/ }).waitFor({ timeout: 20_000 });
    await api(`/v1/conversations/${id}/approvals/${callId}`, {
      method: "POST",
      body: { approve: false, reason: "not today" },
    });
    await expect
      .poll(() => card.locator(".meta").textContent(), { timeout: 10_000 })
      .toMatch(/^denied by a person \(not today\) · /);
    expect(await card.locator("button").count()).toBe(0);
    await expect
      .poll(() => toolItem(callId).locator(".meta").textContent(), { timeout: 10_000 })
      .toMatch(/^blocked · waited /);
  });

  it("approve with the CLI while the page is open: the card changes without a reload", async () => {
    const id = await watch("commit from the CLI");
    const callId = await waitingCall(id);
    const card = approvalCard(callId);
    await card.getByRole("button", { name: /^Approve git_commit/ }).waitFor({ timeout: 20_000 });
    const cli = await runCli(["approve", id, callId], asAdmin(worker.url));
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stdout).toContain(`Approved ${callId}`);
    await expect
      .poll(() => card.locator(".meta").textContent(), { timeout: 10_000 })
      .toMatch(/^approved by a person · /);
    expect(await card.locator("button").count()).toBe(0);
    await completed(id);
  });

  it("a question answered through the API: its card closes without a reload", async () => {
    const id = await watch("ask me a colour");
    const card = page.locator("#timeline li[data-question]").last();
    await card.getByRole("button", { name: "Answer" }).waitFor({ timeout: 20_000 });
    const view = await waitUntil(
      () => api(`/v1/conversations/${id}`),
      (v) => v.pending_tool_calls?.some((c: { state: string }) => c.state === "awaiting_answer"),
      { what: "the question to wait for an answer" },
    );
    await api(`/v1/conversations/${id}/answers/${view.pending_tool_calls[0].id}`, {
      method: "POST",
      body: { answer: "blue" },
    });
    await expect.poll(() => card.locator(".meta").textContent(), { timeout: 10_000 }).toMatch(/^answered · /);
    expect(await card.locator("button").count()).toBe(0);
  });

  it("a remembered rule decides: the card names the rule, for the call it was made on and the next one", async () => {
    const id = await watch("commit and remember");
    const callId = await waitingCall(id);
    await approvalCard(callId)
      .getByRole("button", { name: /^Always approve git_commit/ })
      .click();
    await expect
      .poll(() => approvalCard(callId).locator(".meta").textContent(), { timeout: 10_000 })
      .toMatch(/^approved by approval rule rule_\S+ · /);
    await completed(id);
    // The next call meets the rule before anyone is asked: its card says so, with no buttons.
    const next = await watch("commit under the rule");
    await completed(next);
    const view = await api(`/v1/conversations/${next}`);
    const nextId = view.replies[0].tool_calls[0].id as string;
    await expect
      .poll(() => approvalCard(nextId).locator(".meta").textContent(), { timeout: 10_000 })
      .toMatch(/^approved by approval rule rule_\S+ · /);
    expect(await approvalCard(nextId).locator("button").count()).toBe(0);
    for (const r of (await api("/v1/approval-rules")).rules)
      await api(`/v1/approval-rules/${r.rule_id}`, { method: "DELETE" });
  });
});

describe("dashboard: run and device controls", () => {
  it("cancels a running run from the timeline", async () => {
    const id = await watch("sleepy command");
    const cancel = page.getByRole("button", { name: "Cancel run" });
    await expect.poll(() => cancel.isEnabled(), { timeout: 20_000 }).toBe(true);
    await cancel.click();
    await page.locator("#timeline li", { hasText: "cancel" }).last().waitFor({ timeout: 20_000 });
    const view = await waitUntil(
      () => api(`/v1/conversations/${id}`),
      (v) => v.status === "cancelled",
      {
        what: "the run to be cancelled",
      },
    );
    expect(view.status).toBe("cancelled");
    await expect.poll(() => cancel.isDisabled()).toBe(true);
    // The call the cancel stopped no longer claims to be running.
    const tool = page.locator("#timeline li.tool", { hasText: "sleep 20" }).locator(".meta");
    await expect.poll(() => tool.textContent(), { timeout: 10_000 }).not.toContain("running");
  });

  it("issues a device token (shown once), lists it as the API does, and revokes it", async () => {
    await page.getByLabel("Device id for a new token").fill("pi-fresh");
    await page.getByRole("button", { name: "Issue device token" }).click();
    const token = (await page.locator("#device-token-secret").textContent({ timeout: 10_000 }))!;
    expect(token.length).toBeGreaterThan(20);
    const row = page.locator("#device-tokens tr", { hasText: "pi-fresh" });
    await row.waitFor({ timeout: 15_000 });
    const listed = await api("/v1/devices/pi-fresh/tokens");
    expect(listed.tokens).toHaveLength(1);
    expect(await row.textContent()).toContain(listed.tokens[0].token_id);
    await row.getByRole("button", { name: /^Revoke token/ }).click();
    await expect.poll(() => row.count(), { timeout: 15_000 }).toBe(0);
    expect((await api("/v1/devices/pi-fresh/tokens")).tokens).toEqual([]);
  });
});

describe("dashboard: screens", () => {
  it("keeps a desktop screenshot, and at 375 px nothing is wider than the screen and the buttons are reachable", async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, "dashboard-desktop.png"), fullPage: true });
    await page.setViewportSize({ width: 375, height: 800 });
    await page.reload();
    await page.locator("#devices tr", { hasText: AGENT }).waitFor({ timeout: 15_000 });
    await page.locator("#timeline li").first().waitFor({ timeout: 15_000 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    for (const name of ["Send", "Issue device token", "Issue key", "Log out"]) {
      const box = (await page.getByRole("button", { name, exact: true }).boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(375);
    }
    await page.screenshot({ path: join(ARTIFACTS, "dashboard-phone.png"), fullPage: true });
    expect(pageErrors).toEqual([]);
  });

  it.each([375, 1280])(
    "at %i px no page is wider than the screen: login (centred), dashboard, OpenClaw lines",
    async (width) => {
      const errors: string[] = [];
      const p = await dashboardPage(browser, errors, width);
      const pageWidth = () => p.evaluate(() => document.documentElement.scrollWidth);
      await p.goto(`${worker.url}/`);
      expect(await pageWidth()).toBeLessThanOrEqual(width);
      const card = (await p.locator("form.login").boundingBox())!;
      expect(Math.abs(card.x + card.width / 2 - width / 2)).toBeLessThanOrEqual(2);
      await logIn(p, worker.url);
      await p.locator("#devices tr", { hasText: AGENT }).waitFor({ timeout: 15_000 });
      expect(await pageWidth()).toBeLessThanOrEqual(width);
      // The OpenClaw setup lines are one long line each: they wrap inside their panel.
      await p.locator("#openclaw-agent").fill("claw-wide");
      await p.getByRole("button", { name: "Get the OpenClaw line" }).click();
      await p.locator("#openclaw-run").waitFor({ timeout: 15_000 });
      expect(await pageWidth()).toBeLessThanOrEqual(width);
      const run = (await p.locator("#openclaw-run").boundingBox())!;
      expect(run.x + run.width).toBeLessThanOrEqual(width);
      // No placeholder is wider than its field.
      const cut = await p.evaluate(() =>
        [...document.querySelectorAll<HTMLInputElement>("input[placeholder]")]
          .filter((i) => i.offsetParent !== null)
          .filter((i) => {
            const ctx = document.createElement("canvas").getContext("2d")!;
            ctx.font = getComputedStyle(i).font;
            const style = getComputedStyle(i);
            const room = i.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
            return ctx.measureText(i.placeholder).width > room + 1;
          })
          .map((i) => i.placeholder),
      );
      expect(cut).toEqual([]);
      mkdirSync(ARTIFACTS, { recursive: true });
      await p.screenshot({ path: join(ARTIFACTS, `dashboard-${width}.png`), fullPage: true });
      expect(errors).toEqual([]);
      await p.close();
    },
  );
});
