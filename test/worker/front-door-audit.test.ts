import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { DeviceHubDO } from "../../durable-objects/device-hub/device-hub-do.js";
import { redact } from "../../durable-objects/device-hub/storage/redact.js";
import { ADMIN, API, call, connectDevice, hub, toolNamed, uid } from "./support/front-door.js";

type Entry = {
  timestamp: string;
  agent_id: string;
  tool: string;
  parameters: Record<string, unknown>;
  result: string;
  exit_code: number | null;
  elapsed_ms: number | null;
  error_type: string | null;
  request_id: string;
};

async function audit(query: string): Promise<Entry[]> {
  const res = await call(`/v1/audit${query}`, { headers: ADMIN });
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { entries: Entry[] }).entries;
}

describe("redaction", () => {
  it("masks secret keys and credential-looking values, and leaves the rest", () => {
    expect(
      redact({
        command: "curl -H 'Authorization: Bearer abcdef123456' https://x && echo sk-proj-ABCDEFGH12345678",
        api_key: "k",
        nested: { Password: "p", author: "Bowen", list: ["token=1", { client_secret: "s" }] },
        count: 3,
      }),
    ).toEqual({
      command: "curl -H 'Authorization: Bearer [REDACTED]' https://x && echo sk-[REDACTED]",
      api_key: "[REDACTED]",
      nested: { Password: "[REDACTED]", author: "Bowen", list: ["token=1", { client_secret: "[REDACTED]" }] },
      count: 3,
    });
  });
});

describe("audit log", () => {
  it("writes a redacted row per finished tool call, queryable by agent, tool and time, admin only", async () => {
    const agent = uid("aud");
    const dev = await connectDevice(agent, "s", { DEVICE_TOKENS: `${agent}:s` });
    dev.hello([toolNamed("bash"), toolNamed("cpu_temp")]);
    await dev.online();
    const before = Date.now();
    const r1 = uid("req");
    await hub(agent).dispatch({
      request_id: r1,
      conversation_id: uid("conv"),
      tool_call_id: "call_1",
      tool: "bash",
      parameters: { command: "curl -H 'Authorization: Bearer abcdef123456' x", api_key: "sk-live-123456789" },
      timeout_ms: 30000,
    });
    await dev.next((f) => f.request_id === r1);
    dev.ws.send(
      JSON.stringify({
        type: "result",
        request_id: r1,
        status: "success",
        tool: "bash",
        result: "ok",
        stderr: "",
        exit_code: 0,
        elapsed_ms: 123,
      }),
    );
    const r2 = uid("req");
    await hub(agent).dispatch({
      request_id: r2,
      conversation_id: uid("conv"),
      tool_call_id: "call_2",
      tool: "cpu_temp",
      parameters: {},
      timeout_ms: 30000,
    });
    await dev.next((f) => f.request_id === r2);
    dev.ws.send(
      JSON.stringify({
        type: "result",
        request_id: r2,
        status: "error",
        tool: "cpu_temp",
        error: "no sensor",
        error_type: "execution_failed",
        exit_code: 1,
        elapsed_ms: 7,
      }),
    );
    await dev.next((f) => f.type === "ack" && (f.request_ids as string[]).includes(r2));

    const rows = await audit(`?agent_id=${agent}`);
    expect(rows.map((r) => r.tool)).toEqual(["cpu_temp", "bash"]);
    const bash = rows[1]!;
    expect(bash).toMatchObject({
      agent_id: agent,
      tool: "bash",
      result: "success",
      exit_code: 0,
      elapsed_ms: 123,
      request_id: r1,
    });
    expect(bash.parameters).toEqual({ command: "curl -H 'Authorization: Bearer [REDACTED]' x", api_key: "[REDACTED]" });
    expect(Date.parse(bash.timestamp)).toBeGreaterThanOrEqual(before - 5);
    expect(rows[0]).toMatchObject({ result: "error", error_type: "execution_failed", exit_code: 1 });

    expect((await audit(`?agent_id=${agent}&tool=bash`)).map((r) => r.request_id)).toEqual([r1]);
    expect(await audit(`?agent_id=${agent}&since=${new Date(Date.now() + 60_000).toISOString()}`)).toEqual([]);
    expect((await audit(`?agent_id=${agent}&limit=1`)).length).toBe(1);
    // Without agent_id: fanned out over the registry's devices.
    expect((await audit("?tool=cpu_temp&limit=1000")).some((r) => r.request_id === r2)).toBe(true);

    expect((await call(`/v1/audit?agent_id=${agent}`, { headers: API })).status).toBe(403);
    // Every list route answers a bad query string the same way: 400 problem+json naming the field.
    const bad: [string, string][] = [
      ["/v1/audit?limit=0", "limit"],
      ["/v1/conversations?limit=0", "limit"],
      ["/v1/metrics?format=xml", "format"],
      ["/v1/approval-rules?include_inactive=maybe", "include_inactive"],
    ];
    for (const [path, field] of bad) {
      const res = await call(path, { headers: ADMIN });
      expect(res.status, path).toBe(400);
      expect(res.headers.get("content-type")).toBe("application/problem+json");
      const body = (await res.json()) as { title: string; errors: { path: string }[] };
      expect(body.title).toBe("Invalid query");
      expect(body.errors.map((e) => e.path)).toContain(field);
    }

    // Rows past AUDIT_RETENTION_DAYS (30) are pruned by the alarm.
    await runInDurableObject(hub(agent), (o: DeviceHubDO) => o.runChecks(Date.now() + 31 * 24 * 60 * 60 * 1000));
    expect(await audit(`?agent_id=${agent}`)).toEqual([]);
  });

  it("writes a row when the hub ends a call at its deadline (never sent: not_sent)", async () => {
    const agent = uid("aud-to");
    await hub(agent).getSkills(agent);
    const rid = uid("req");
    await hub(agent).dispatch({
      request_id: rid,
      conversation_id: uid("conv"),
      tool_call_id: "call_1",
      tool: "bash",
      parameters: { command: "uptime", password: "hunter2" },
      timeout_ms: 10,
    });
    await runInDurableObject(hub(agent), (o: DeviceHubDO) => o.runChecks(Date.now() + 60_000));
    const rows = await audit(`?agent_id=${agent}`);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      result: "error",
      error_type: "not_sent",
      parameters: { command: "uptime", password: "[REDACTED]" },
    });
  });
});
