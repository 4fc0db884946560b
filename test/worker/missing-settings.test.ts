// Issue 29: a worker deployed without its settings says, on every refused route, which settings are
// missing and the command that sets each, as problem+json, and as a page for a browser at `/`.

import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../worker/index.js";
import { aiStandIn } from "./support/ai-standin.js";
import { ADMIN, API, BASE, call, postMessage } from "./support/front-door.js";

/** What bare `wrangler deploy` leaves: no tokens, no device tokens, no model. */
const BARE = {
  API_TOKEN: "",
  ADMIN_TOKEN: "",
  DEVICE_TOKENS: "",
  OPENAI_BASE_URL: "",
  OPENAI_API_KEY: "",
  LLM_MODEL: "",
};

type Missing = { setting: string; needed_for: string; set_with: string };
type NotConfigured = { type: string; title: string; status: number; detail: string; missing: Missing[] };

async function notConfigured(res: Response): Promise<NotConfigured> {
  expect(res.status).toBe(503);
  expect(res.headers.get("content-type")).toBe("application/problem+json");
  return (await res.json()) as NotConfigured;
}

describe("a worker without its settings", () => {
  it("answers the API with 503 problem+json naming each missing setting and its command", async () => {
    const problem = await notConfigured(await call("/v1/conversations", { headers: API }, BARE));
    expect(problem).toMatchObject({ type: "about:blank", title: "Not configured", status: 503 });
    expect(problem.missing.map((m) => m.setting)).toEqual(["ADMIN_TOKEN", "API_TOKEN", "a model"]);
    expect(problem.missing[0]!.set_with).toBe("npx wrangler secret put ADMIN_TOKEN");
    expect(problem.missing[1]!.set_with).toBe("npx wrangler secret put API_TOKEN");
    expect(problem.missing[2]!.set_with).toContain("npx edgeloop deploy --provider workers-ai");
    expect(problem.detail).toContain("Not set on this worker: ADMIN_TOKEN, API_TOKEN, a model.");
    expect(problem.detail).toContain("This request needs API_TOKEN or ADMIN_TOKEN.");
    expect(problem.detail).toContain("`npx edgeloop deploy`");
    expect(problem.detail).toContain("API_TOKEN: npx wrangler secret put API_TOKEN");
  });

  it("says the same on the admin routes and on POST /v1/messages, naming what each needs", async () => {
    const admin = await notConfigured(await call("/v1/audit", { headers: ADMIN }, BARE));
    expect(admin.detail).toContain("This request needs ADMIN_TOKEN.");
    expect(admin.missing.map((m) => m.setting)).toEqual(["ADMIN_TOKEN", "API_TOKEN", "a model"]);
    const message = await notConfigured(await postMessage({ agent_id: "pi-1", text: "hi" }, API, BARE));
    expect(message.detail).toContain("This request needs API_TOKEN or ADMIN_TOKEN.");
  });

  it("names only what is missing: the admin token alone, when the rest is set", async () => {
    const problem = await notConfigured(await call("/v1/audit", { headers: ADMIN }, { ADMIN_TOKEN: "" }));
    expect(problem.missing.map((m) => m.setting)).toEqual(["ADMIN_TOKEN"]);
    expect(problem.detail).toMatch(/^Not set on this worker: ADMIN_TOKEN\. This request needs ADMIN_TOKEN\./);
  });

  it("names WEBHOOK_SECRETS for a signed webhook, without suggesting the deploy command for it", async () => {
    const res = await postMessage({ agent_id: "pi-1", text: "hi" }, { "x-webhook-signature": "sha256=00" });
    const problem = await notConfigured(res);
    expect(problem.missing).toEqual([
      {
        setting: "WEBHOOK_SECRETS",
        needed_for: "signed webhooks (format: docs/configuration.md)",
        set_with: "npx wrangler secret put WEBHOOK_SECRETS",
      },
    ]);
    expect(problem.detail).not.toContain("edgeloop deploy");
  });

  it("shows a browser at / a page with the same settings and commands, under the dashboard's headers", async () => {
    const res = await call("/", { headers: { accept: "text/html,application/xhtml+xml,*/*;q=0.8" } }, BARE);
    expect(res.status).toBe(503);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
    const page = await res.text();
    expect(page).toContain("This worker is not set up");
    for (const text of [
      "<strong>ADMIN_TOKEN</strong>",
      "<strong>API_TOKEN</strong>",
      "<strong>a model</strong>",
      "<code>npx wrangler secret put ADMIN_TOKEN</code>",
      "<code>npx wrangler secret put API_TOKEN</code>",
      "<code>npx edgeloop deploy</code>",
      "docs/deploy.md",
    ])
      expect(page).toContain(text);
  });

  it("on loopback (plain `npx wrangler dev` without .dev.vars) gives the local fix first", async () => {
    const page = await (
      await worker.fetch(
        new Request("http://127.0.0.1:8787/", { headers: { accept: "text/html" } }),
        { ...env, ...BARE },
        createExecutionContext(),
      )
    ).text();
    expect(page).toContain("<code>cp .dev.vars.example .dev.vars</code>");
    expect(page).toContain("<code>npm run dev</code>");
    const deployed = await (await call("/", { headers: { accept: "text/html" } }, BARE)).text();
    expect(deployed).not.toContain(".dev.vars");
  });

  it("answers / with the problem+json to a program, and the login form once the admin token is set", async () => {
    const problem = await notConfigured(await call("/", { headers: { accept: "application/json" } }, BARE));
    expect(problem.detail).toContain("This request needs ADMIN_TOKEN.");
    const configured = await call("/", { headers: { accept: "text/html" } });
    expect(configured.status).toBe(200);
    expect(await configured.text()).toContain('action="/login"');
  });

  it("on the workers-ai environment, names its --env in every command and counts the binding as the model", async () => {
    const ctx = createExecutionContext();
    const res = await worker.fetch(
      new Request(`${BASE}/v1/audit`, { headers: ADMIN }),
      { ...env, ...BARE, AI: aiStandIn([]) },
      ctx,
    );
    await waitOnExecutionContext(ctx);
    const problem = await notConfigured(res);
    expect(problem.missing.map((m) => [m.setting, m.set_with])).toEqual([
      ["ADMIN_TOKEN", "npx wrangler secret put ADMIN_TOKEN --env workers-ai"],
      ["API_TOKEN", "npx wrangler secret put API_TOKEN --env workers-ai"],
    ]);
  });
});
