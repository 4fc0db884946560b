import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { conversationFor } from "../../durable-objects/addresses.js";
import { ADMIN, API, call, knownAgent, postMessage, uid } from "./support/front-door.js";

const json = (body: unknown, headers: Record<string, string> = API) => ({
  method: "POST",
  headers: { "content-type": "application/json", ...headers },
  body: JSON.stringify(body),
});

async function waitFor<T>(read: () => Promise<T>, ok: (v: T) => boolean, ms = 10_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v) || Date.now() > until) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("schedules API", () => {
  it("refuses bad timings and targets with 400 naming the field", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ agent_id: "pi-1", text: "t", cron: "61 * * * *" }, "cron"],
      [{ agent_id: "pi-1", text: "t", cron: "*/10 * * * * *" }, "cron"],
      [{ agent_id: "pi-1", text: "t", every_seconds: 10 }, "every_seconds"],
      [{ agent_id: "pi-1", text: "t", at: "2001-01-01T00:00:00Z" }, "at"],
      [{ agent_id: "pi-1", pool: "p", text: "t", every_seconds: 60 }, "agent_id"],
      [{ agent_id: "pi-1", text: "t", every_seconds: 60, cron: "* * * * *" }, "cron"],
      [{ agent_id: "pi-1", text: "t", every_seconds: 60, timezone: "Europe/Paris" }, "timezone"],
      [{ agent_id: "pi-1", text: "t", cron: "0 8 * * *", timezone: "Nowhere/Land" }, "cron"],
    ];
    for (const [body, field] of cases) {
      const res = await call("/v1/schedules", json(body));
      expect(res.status, JSON.stringify(body)).toBe(400);
      const problem = (await res.json()) as { errors: { path: string }[] };
      expect(problem.errors[0]!.path).toBe(field);
    }
    expect((await call("/v1/schedules", json({ agent_id: "pi-1", text: "t", every_seconds: 60 }, {}))).status).toBe(
      401,
    );
  });

  it("creates, lists, pauses, resumes and deletes a cron schedule", async () => {
    const res = await call(
      "/v1/schedules",
      json({ agent_id: "pi-1", text: "disk report", cron: "0 8 * * *", timezone: "Europe/Paris" }),
    );
    expect(res.status).toBe(201);
    const created = (await res.json()) as { schedule_id: string; next_run_at: string };
    expect(new Date(created.next_run_at).getUTCHours() % 24).toBeGreaterThanOrEqual(6); // 08:00 Paris is 06:00 or 07:00 UTC
    expect(new Date(created.next_run_at).getUTCMinutes()).toBe(0);
    const id = created.schedule_id;
    const list = (await (await call("/v1/schedules", { headers: ADMIN })).json()) as {
      schedules: { schedule_id: string }[];
    };
    expect(list.schedules.map((s) => s.schedule_id)).toContain(id);
    const paused = (await (await call(`/v1/schedules/${id}/pause`, json({}))).json()) as { state: string };
    expect(paused.state).toBe("paused");
    const resumed = (await (await call(`/v1/schedules/${id}/resume`, json({}))).json()) as {
      state: string;
      next_run_at: string;
    };
    expect(resumed).toMatchObject({ state: "active", next_run_at: created.next_run_at });
    expect((await call(`/v1/schedules/${id}`, { method: "DELETE", headers: API })).status).toBe(200);
    expect((await call(`/v1/schedules/${id}`, { headers: API })).status).toBe(404);
    expect((await call(`/v1/schedules/${id}/pause`, json({}))).status).toBe(404);
  });

  it("posts a run through the front door when its alarm goes off, tagged with the schedule id", async () => {
    const conversation_id = uid("sched-conv");
    const res = await call(
      "/v1/schedules",
      json({
        agent_id: await knownAgent("sched-dev"),
        text: "scheduled hello",
        at: Date.now() + 1000,
        conversation_id,
      }),
    );
    expect(res.status).toBe(201);
    const { schedule_id } = (await res.json()) as { schedule_id: string };
    // The scheduler's own alarm posts the run (a manual alarm run beside it would race it).
    const s = await waitFor(
      async () =>
        (await (await call(`/v1/schedules/${schedule_id}`, { headers: API })).json()) as {
          state: string;
          runs: number;
          last_run: { outcome: string; conversation_id: string } | null;
        },
      (v) => v.state === "done",
      15_000,
    );
    expect(s).toMatchObject({ state: "done", runs: 1, last_run: { outcome: "posted", conversation_id } });
    const events = await waitFor(
      async () =>
        (await (await call(`/v1/conversations/${conversation_id}`, { headers: API })).json()) as {
          messages: { content: string }[];
        },
      (v) => (v.messages?.length ?? 0) > 0,
    );
    expect(events.messages[0]!.content).toBe("scheduled hello");
    const start = (await conversationFor(env, conversation_id).getEvents()).find((e) => e.type === "message_start");
    expect(start).toMatchObject({ text: "scheduled hello", schedule_id });
  });
});

describe("approval rules API", () => {
  it("creates, lists, revokes; refuses a bad pattern or a past expiry", async () => {
    const tool = "gpio_write";
    const agent_id = uid("rules-dev");
    const res = await call(
      "/v1/approval-rules",
      json({ effect: "allow", agent_id, tool, pattern: '"pin":4', expires_in_seconds: 3600 }),
    );
    expect(res.status).toBe(201);
    const rule = (await res.json()) as { rule_id: string; expires_at: number; created_by: string };
    expect(rule.expires_at).toBeGreaterThan(Date.now());
    expect(rule.created_by).toBe("api");
    const listed = async (q = "") =>
      (
        (await (await call(`/v1/approval-rules?agent_id=${agent_id}${q}`, { headers: API })).json()) as {
          rules: { rule_id: string; revoked_at: number | null }[];
        }
      ).rules;
    expect((await listed()).map((r) => r.rule_id)).toEqual([rule.rule_id]);
    expect((await call(`/v1/approval-rules/${rule.rule_id}`, { method: "DELETE", headers: API })).status).toBe(200);
    expect(await listed()).toEqual([]);
    expect((await listed("&include_inactive=true"))[0]!.revoked_at).toBeGreaterThan(0);
    expect((await call("/v1/approval-rules", json({ effect: "allow", tool, pattern: "(" }))).status).toBe(400);
    expect((await call("/v1/approval-rules", json({ effect: "deny", tool, expires_at: 1000 }))).status).toBe(400);
    expect((await call("/v1/approval-rules/rule_nope", { method: "DELETE", headers: API })).status).toBe(404);
  });

  it("refuses a decision whose scope contradicts it", async () => {
    const res = await call("/v1/conversations/c-x/approvals/call-1", json({ approve: true, scope: "deny_always" }));
    expect(res.status).toBe(400);
    const once = await call("/v1/conversations/c-x/approvals/call-1", json({ approve: true, pattern: "x" }));
    expect(once.status).toBe(400);
  });
});

describe("front door: a message larger than the model's window", () => {
  it("is a 413 naming the window", async () => {
    const res = await postMessage({ agent_id: await knownAgent("a"), text: "x".repeat(5000) }, API, {
      LLM_CONTEXT_TOKENS: "1000",
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({
      title: "Text larger than the model's context",
      errors: [{ path: "text" }],
    });
  });
});
