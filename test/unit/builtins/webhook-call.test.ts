import { createHmac } from "node:crypto";
import type { ToolOutcome } from "@edgeloop/protocol";
import { afterEach, describe, expect, it } from "vitest";
import {
  MAX_WEBHOOK_RESPONSE_BYTES,
  runWebhookTool,
  type WebhookCallContext,
} from "../../../durable-objects/conversation/builtins/webhook-call.js";
import { WebhookTool } from "../../../durable-objects/conversation/builtins/webhook-config.js";
import { hang, json, type Reply, startWebhookServer, text, type WebhookServer } from "./webhook-server.js";

let server: WebhookServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

async function serve(...replies: Reply[]): Promise<WebhookServer> {
  server = await startWebhookServer(replies);
  return server;
}

function tool(overrides: Partial<WebhookTool> & { url: string }): WebhookTool {
  return WebhookTool.parse({ name: "lookup", description: "Look something up", ...overrides });
}

/** Records the backoff delays instead of waiting them out. */
function callContext(overrides: Partial<WebhookCallContext> = {}): WebhookCallContext & { sleeps: number[] } {
  const sleeps: number[] = [];
  return {
    request_id: "req-42",
    tool_call_id: "call-7",
    conversation_id: "conv-1",
    // The test servers listen on loopback: only the local-testing flag lets a call reach them.
    outbound: { allowPrivate: true },
    now: () => Date.now(),
    sleep: async (ms) => void sleeps.push(ms),
    sleeps,
    ...overrides,
  };
}

function expectSuccess(outcome: ToolOutcome): string {
  if (outcome.status !== "success") throw new Error(`expected success, got ${outcome.error_type}: ${outcome.error}`);
  return outcome.result;
}

function expectError(outcome: ToolOutcome): { error: string; error_type: string } {
  if (outcome.status !== "error") throw new Error(`expected an error, got success: ${outcome.result}`);
  return outcome;
}

describe("runWebhookTool", () => {
  it("POSTs the call as JSON with Idempotency-Key and a signature that verifies", async () => {
    const s = await serve(json(200, { temperature: 21 }));
    const secret = "s3cret";
    const outcome = await runWebhookTool(
      tool({ url: s.url, secret, headers: { "X-Api-Key": "k1" } }),
      { city: "Oslo" },
      callContext(),
    );
    expect(expectSuccess(outcome)).toBe('{\n  "temperature": 21\n}');

    const [req] = s.received;
    expect(req!.method).toBe("POST");
    expect(req!.headers["content-type"]).toBe("application/json");
    expect(req!.headers["idempotency-key"]).toBe("req-42");
    expect(req!.headers["x-api-key"]).toBe("k1");
    expect(JSON.parse(req!.body)).toEqual({
      tool: "lookup",
      arguments: { city: "Oslo" },
      request_id: "req-42",
      conversation_id: "conv-1",
      tool_call_id: "call-7",
    });

    const timestamp = req!.headers["x-webhook-timestamp"] as string;
    expect(Math.abs(Number(timestamp) - Date.now() / 1000)).toBeLessThan(5);
    const expected = createHmac("sha256", secret).update(`${timestamp}.${req!.body}`).digest("hex");
    expect(req!.headers["x-webhook-signature"]).toBe(`sha256=${expected}`);
  });

  it("sends no signature headers without a secret", async () => {
    const s = await serve(text(200, "ok"));
    expect(expectSuccess(await runWebhookTool(tool({ url: s.url }), {}, callContext()))).toBe("ok");
    expect(s.received[0]!.headers["x-webhook-signature"]).toBeUndefined();
    expect(s.received[0]!.headers["x-webhook-timestamp"]).toBeUndefined();
  });

  it("uses the configured method", async () => {
    const s = await serve(text(200, "ok"));
    await runWebhookTool(tool({ url: s.url, method: "PUT" }), {}, callContext());
    expect(s.received[0]!.method).toBe("PUT");
  });

  it("retries 503 with backoff, then succeeds, with the same body and Idempotency-Key each time", async () => {
    const s = await serve(text(503, "busy"), text(503, "busy"), json(200, { ok: true }));
    const ctx = callContext();
    const outcome = await runWebhookTool(tool({ url: s.url, secret: "k" }), { a: 1 }, ctx);
    expect(JSON.parse(expectSuccess(outcome))).toEqual({ ok: true });
    expect(s.received).toHaveLength(3);
    expect(new Set(s.received.map((r) => r.body)).size).toBe(1);
    expect(s.received.every((r) => r.headers["idempotency-key"] === "req-42")).toBe(true);
    // exponential with jitter: retry 0 in [250, 500], retry 1 in [500, 1000]
    expect(ctx.sleeps).toHaveLength(2);
    expect(ctx.sleeps[0]).toBeGreaterThanOrEqual(250);
    expect(ctx.sleeps[0]).toBeLessThanOrEqual(500);
    expect(ctx.sleeps[1]).toBeGreaterThanOrEqual(500);
    expect(ctx.sleeps[1]).toBeLessThanOrEqual(1000);
  });

  it("gives up after max_retries with the status and a capped body snippet", async () => {
    const s = await serve(text(502, `bad gateway ${"x".repeat(5000)}`));
    const ctx = callContext();
    const err = expectError(await runWebhookTool(tool({ url: s.url, max_retries: 2 }), {}, ctx));
    expect(s.received).toHaveLength(3);
    expect(ctx.sleeps).toHaveLength(2);
    expect(err.error_type).toBe("execution_failed");
    expect(err.error).toContain("after 3 attempts");
    expect(err.error).toContain("HTTP 502");
    expect(err.error).toContain("bad gateway");
    expect(err.error.length).toBeLessThan(1300);
  });

  it("honours Retry-After on 429, capped", async () => {
    const s = await serve(
      text(429, "slow down", { "retry-after": "2" }),
      text(429, "slow down", { "retry-after": "3600" }),
      text(200, "done"),
    );
    const ctx = callContext();
    expect(expectSuccess(await runWebhookTool(tool({ url: s.url }), {}, ctx))).toBe("done");
    expect(ctx.sleeps).toEqual([2000, 30_000]);
  });

  it("really waits between attempts when no sleep is injected", async () => {
    const s = await serve(text(429, "wait", { "retry-after": "0.3" }), text(200, "ok"));
    const { sleep: _sleep, ...ctx } = callContext();
    expect(expectSuccess(await runWebhookTool(tool({ url: s.url }), {}, ctx))).toBe("ok");
    expect(s.received[1]!.at - s.received[0]!.at).toBeGreaterThanOrEqual(250);
  });

  it("does not retry a 400", async () => {
    const s = await serve(json(400, { error: "city is required" }));
    const ctx = callContext();
    const err = expectError(await runWebhookTool(tool({ url: s.url }), {}, ctx));
    expect(s.received).toHaveLength(1);
    expect(ctx.sleeps).toEqual([]);
    expect(err.error_type).toBe("execution_failed");
    expect(err.error).toContain("HTTP 400");
    expect(err.error).toContain("city is required");
  });

  it("follows a redirect itself, sending the signed body again on a 307", async () => {
    const s = await serve(text(307, "", { location: "/moved" }), json(200, { ok: 1 }));
    expectSuccess(await runWebhookTool(tool({ url: s.url, secret: "k" }), { a: 1 }, callContext()));
    expect(s.received.map((r) => [r.method, r.url])).toEqual([
      ["POST", "/hook"],
      ["POST", "/moved"],
    ]);
    expect(s.received[1]!.body).toBe(s.received[0]!.body);
    expect(s.received[1]!.headers["x-webhook-signature"]).toBe(s.received[0]!.headers["x-webhook-signature"]);
  });

  it("checks every redirect by the outbound rule: one to a metadata address is refused, never requested", async () => {
    // A stand-in fetch: nothing here may send a request to such an address, even in a test.
    const asked: string[] = [];
    const fetchStub = (async (url: string | URL) => {
      asked.push(String(url));
      return new Response(null, { status: 302, headers: { location: "http://169.254.169.254/latest/meta-data/" } });
    }) as typeof fetch;
    const ctx = callContext({ outbound: { allowPrivate: false }, fetch: fetchStub });
    const err = expectError(await runWebhookTool(tool({ url: "https://hooks.example.com/x" }), {}, ctx));
    expect(err.error_type).toBe("permission_denied");
    expect(err.error).toContain("redirect from https://hooks.example.com refused");
    expect(asked).toEqual(["https://hooks.example.com/x"]);
    expect(ctx.sleeps).toEqual([]);
  });

  it("times out an attempt after timeout_secs, without retrying", async () => {
    const s = await serve(hang);
    const started = Date.now();
    const err = expectError(await runWebhookTool(tool({ url: s.url, timeout_secs: 0.3 }), {}, callContext()));
    expect(err.error_type).toBe("timeout");
    expect(err.error).toContain("0.3s");
    expect(Date.now() - started).toBeLessThan(3000);
    expect(s.received).toHaveLength(1);
  });

  it("retries network errors, then reports them", async () => {
    const s = await serve(text(200, "unused"));
    const url = s.url;
    await s.close();
    server = null;
    const ctx = callContext();
    const err = expectError(await runWebhookTool(tool({ url, max_retries: 1 }), {}, ctx));
    expect(err.error_type).toBe("execution_failed");
    expect(err.error).toContain("network error");
    expect(ctx.sleeps).toHaveLength(1);
  });

  it("refuses http and loopback URLs without the local-testing flag, without sending anything", async () => {
    const s = await serve(text(200, "should not be reached"));
    const ctx = callContext({ outbound: { allowPrivate: false } });
    const err = expectError(await runWebhookTool(tool({ url: s.url }), {}, ctx));
    expect(err.error_type).toBe("permission_denied");
    expect(err.error).toContain("https");
    expect(s.received).toHaveLength(0);
  });

  it("caps a large response at 64 KiB with a truncation note", async () => {
    const big = "y".repeat(MAX_WEBHOOK_RESPONSE_BYTES * 3);
    const s = await serve(text(200, big));
    const outcome = await runWebhookTool(tool({ url: s.url }), {}, callContext());
    const result = expectSuccess(outcome);
    expect(result.startsWith("y".repeat(1000))).toBe(true);
    expect(result).toContain("[response truncated");
    expect(new TextEncoder().encode(result).byteLength).toBeLessThan(MAX_WEBHOOK_RESPONSE_BYTES + 200);
    expect(outcome.truncated).toBe(true);
  });

  it("does not cut a multi-byte character at the cap", async () => {
    const s = await serve(text(200, `a${"€".repeat(MAX_WEBHOOK_RESPONSE_BYTES)}`));
    const result = expectSuccess(await runWebhookTool(tool({ url: s.url }), {}, callContext()));
    expect(result).not.toContain("\uFFFD");
  });

  it("leaves a small non-JSON body as it is", async () => {
    const s = await serve(text(200, "{not json"));
    expect(expectSuccess(await runWebhookTool(tool({ url: s.url }), {}, callContext()))).toBe("{not json");
  });
});
