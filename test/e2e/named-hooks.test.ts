/**
 * Named hooks against the real worker (plain wrangler dev), a real device agent and the scripted
 * model: a GitHub `issues` delivery and a Grafana alert, each signed as its service signs, become one
 * run each; a redelivery starts nothing; a bad signature is a counted 401 problem.
 */

import { createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ScopedLlm } from "../../scripted-llm/scope-client.js";
import { getConversation } from "../helpers/api.js";
import { type AgentProcess, startAgent } from "../helpers/device-agent.js";
import { ADMIN_TOKEN } from "../helpers/local-worker.js";
import { joinSharedStack, type SharedStack } from "../helpers/shared-stack.js";
import { NAMED_HOOK_SECRETS } from "../helpers/shared-stack-config.js";
import { waitUntil } from "../helpers/wait.js";

const fixture = (name: string) => readFileSync(new URL(`../fixtures/hooks/${name}`, import.meta.url), "utf8");
const GITHUB_SECRET = NAMED_HOOK_SECRETS.github;
const GRAFANA_SECRET = NAMED_HOOK_SECRETS.grafana;

let llm: ScopedLlm;
let worker: SharedStack["worker"];
let agent: AgentProcess;

beforeAll(async () => {
  // The suite's shared worker, which has this file's hooks: HOOKS, HOOK_SECRETS and the pool
  // `ops` of hk-1 (POOLS), as shared-stack-config.ts sets them.
  ({ llm, worker } = await joinSharedStack({
    scope: "named-hooks",
    rules: [
      { match: "^GitHub issues", turns: [{ content: "Triaged the issue." }] },
      { match: "^Grafana", turns: [{ content: "Looked at the alert." }] },
    ],
    devices: { "hk-1": "e2e-hk-1" },
  }));
  agent = await startAgent({ url: worker.url, agentId: "hk-1", token: "e2e-hk-1" });
});

afterAll(async () => {
  await agent?.stop();
  await llm?.close();
});

function githubDelivery(body: string, delivery: string, event = "issues", secret = GITHUB_SECRET) {
  return fetch(`${worker.url}/v1/hooks/github`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "user-agent": "GitHub-Hookshot/044aadd",
      "x-github-event": event,
      "x-github-delivery": delivery,
      "x-github-hook-id": "292430182",
      "x-hub-signature-256": `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`,
    },
    body,
  });
}

async function completed(conversationId: string) {
  return waitUntil(
    () => getConversation(worker.url, conversationId),
    (c) => c.status === "completed",
    { timeoutMs: 60_000, what: `${conversationId} to complete` },
  );
}

const modelCallsFor = async (prefix: string) =>
  (await llm.requests()).filter((r) => JSON.stringify(r.body).includes(prefix)).length;

describe("named hooks, end to end", () => {
  it("a GitHub delivery is one run on the hook's device; its redelivery starts nothing", async () => {
    const body = fixture("github-issues-opened.json");
    const delivery = "72d3162e-cc78-11e3-81ab-4c9367dc0958";
    const first = await githubDelivery(body, delivery);
    expect(first.status).toBe(202);
    const accepted = (await first.json()) as { conversation_id: string; agent_id: string };
    expect(accepted.agent_id).toBe("hk-1");
    const conversation = await completed(accepted.conversation_id);
    expect(conversation.messages.find((m) => m.role === "user")?.content).toBe(
      "GitHub issues opened on octocat/Hello-World: #1347 Found a bug",
    );
    expect(conversation.messages.at(-1)?.content).toBe("Triaged the issue.");
    const calls = await modelCallsFor("GitHub issues opened");
    expect(calls).toBe(1);

    const again = await githubDelivery(body, delivery);
    expect(again.status).toBe(202);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(((await again.json()) as { conversation_id: string }).conversation_id).toBe(accepted.conversation_id);
    expect(await modelCallsFor("GitHub issues opened")).toBe(calls);
  });

  it("a GitHub hook set to the form content type (payload=) is taken too", async () => {
    const payload = JSON.parse(fixture("github-issues-opened.json"));
    payload.issue.number = 1348;
    const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
    const res = await fetch(`${worker.url}/v1/hooks/github`, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        "x-github-event": "issues",
        "x-github-delivery": "9c8b7a60-cc78-11e3-81ab-4c9367dc0958",
        "x-hub-signature-256": `sha256=${createHmac("sha256", GITHUB_SECRET).update(body).digest("hex")}`,
      },
      body,
    });
    expect(res.status).toBe(202);
    const conversation = await completed(((await res.json()) as { conversation_id: string }).conversation_id);
    expect(conversation.messages.find((m) => m.role === "user")?.content).toContain("#1348 Found a bug");
  });

  it("GitHub's ping and events the hook does not take start nothing", async () => {
    const ping = await githubDelivery('{"zen":"Keep it logically awesome.","hook_id":292430182}', "p-1", "ping");
    expect(ping.status).toBe(200);
    expect(await ping.json()).toEqual({ ignored: "ping" });
    const push = await githubDelivery('{"ref":"refs/heads/main"}', "p-2", "push");
    expect(await push.json()).toEqual({ ignored: "push" });
  });

  it("a Grafana alert, signed with its timestamp, runs once on the pool; the same notification again does not", async () => {
    const body = fixture("grafana-firing.json");
    const post = () => {
      const ts = String(Math.floor(Date.now() / 1000));
      return fetch(`${worker.url}/v1/hooks/grafana`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "user-agent": "Grafana",
          "x-grafana-alerting-timestamp": ts,
          "x-grafana-alerting-signature": createHmac("sha256", GRAFANA_SECRET).update(`${ts}:${body}`).digest("hex"),
        },
        body,
      });
    };
    const first = await post();
    expect(first.status).toBe(202);
    const { conversation_id } = (await first.json()) as { conversation_id: string };
    const conversation = await completed(conversation_id);
    expect(conversation.messages.find((m) => m.role === "user")?.content).toBe(
      "Grafana firing: High memory usage (This alert was triggered for zone us-1)",
    );
    const again = await post();
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await modelCallsFor("Grafana firing")).toBe(1);
  });

  it("a bad signature is a 401 problem, counted among the refusals; an unknown hook is 404", async () => {
    const body = fixture("github-issues-opened.json");
    const before = await modelCallsFor("GitHub issues opened");
    const forged = await githubDelivery(body, "f-1", "issues", "not-the-secret");
    expect(forged.status).toBe(401);
    expect(forged.headers.get("content-type")).toContain("application/problem+json");
    expect(await forged.json()).toMatchObject({ status: 401, title: "Unauthorized" });
    expect((await fetch(`${worker.url}/v1/hooks/nope`, { method: "POST", body: "{}" })).status).toBe(404);
    expect(await modelCallsFor("GitHub issues opened")).toBe(before);

    const limits = await waitUntil(
      async () =>
        (await (
          await fetch(`${worker.url}/v1/limits`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
        ).json()) as { rejections: Record<string, number> },
      (l) => (l.rejections["POST /v1/hooks/:name 401 Unauthorized"] ?? 0) >= 1,
      { timeoutMs: 10_000, what: "the refusal to be counted" },
    );
    expect(limits.rejections["POST /v1/hooks/:name 404 Not found"]).toBeGreaterThanOrEqual(1);
  });
});
