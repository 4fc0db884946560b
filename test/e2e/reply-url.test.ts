/**
 * reply_url: the final reply (and, if asked, every event) is POSTed to the sender, signed like an
 * inbound webhook, and retried with backoff until the receiver acknowledges.
 */
import { createHmac } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ScopedLlm } from "../../scripted-llm/scope-client.js";
import { sendMessage } from "../helpers/api.js";
import { joinSharedStack, type SharedStack } from "../helpers/shared-stack.js";
import { waitUntil } from "../helpers/wait.js";

const SECRET = "reply-signing-secret";
let llm: ScopedLlm;
let worker: SharedStack["worker"];
let receiver: Server;
let receiverUrl: string;
let failuresLeft = 0;
const received: { headers: IncomingHttpHeaders; body: string; status: number }[] = [];

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      const status = failuresLeft > 0 ? 503 : 200;
      if (failuresLeft > 0) failuresLeft -= 1;
      received.push({ headers: req.headers, body, status });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
  // The suite's shared worker, whose REPLY_SIGNING_SECRET is this SECRET and which may reach
  // the receiver on loopback (ALLOW_PRIVATE_OUTBOUND; shared-stack-config.ts).
  ({ llm, worker } = await joinSharedStack({
    scope: "reply-url",
    rules: [{ match: "hello", turns: [{ content: "Hello back." }] }],
    // A known device that is offline: the message queues for it and the run still answers.
    devices: { "pi-none": "t" },
  }));
});

afterAll(async () => {
  await llm?.close();
  receiver?.close();
});

describe("reply_url delivery", () => {
  it("retries a failing receiver until it recovers, then delivers the signed reply once", async () => {
    failuresLeft = 2;
    received.length = 0;
    const { status, body } = await sendMessage(worker.url, {
      agent_id: "pi-none",
      text: "hello there",
      reply_url: receiverUrl,
    });
    expect(status).toBe(202);
    await waitUntil(
      async () => received.filter((r) => r.status === 200).length,
      (n) => n >= 1,
      { timeoutMs: 60_000, what: "a delivery to succeed" },
    );
    expect(received.map((r) => r.status)).toEqual([503, 503, 200]);
    // The same delivery id on every attempt, so a receiver can drop repeats.
    expect(new Set(received.map((r) => r.headers["webhook-id"])).size).toBe(1);
    const ok = received.at(-1)!;
    const payload = JSON.parse(ok.body) as { type: string; conversation_id: string; reply: string; status: string };
    expect(payload).toMatchObject({
      type: "reply",
      conversation_id: body.conversation_id,
      reply: "Hello back.",
      status: "completed",
    });
    const ts = String(ok.headers["x-webhook-timestamp"]);
    expect(ok.headers["x-webhook-signature"]).toBe(
      `sha256=${createHmac("sha256", SECRET).update(`${ts}.${ok.body}`).digest("hex")}`,
    );
    const id = String(ok.headers["webhook-id"]);
    const std = createHmac("sha256", SECRET)
      .update(`${id}.${ok.headers["webhook-timestamp"]}.${ok.body}`)
      .digest("base64");
    expect(ok.headers["webhook-signature"]).toBe(`v1,${std}`);
    // Nothing more arrives after the acknowledgement.
    await new Promise((r) => setTimeout(r, 3000));
    expect(received).toHaveLength(3);
  });

  it("with reply_events, posts every event before the reply", async () => {
    failuresLeft = 0;
    received.length = 0;
    await sendMessage(worker.url, {
      agent_id: "pi-none",
      text: "hello events",
      reply_url: receiverUrl,
      reply_events: true,
    });
    await waitUntil(
      async () => received.some((r) => JSON.parse(r.body).type === "reply"),
      (v) => v,
      { timeoutMs: 30_000, what: "the reply" },
    );
    const types = received
      .map((r) => JSON.parse(r.body) as { type: string; event?: { type: string } })
      .map((p) => (p.type === "event" ? p.event!.type : p.type));
    expect(types).toEqual(expect.arrayContaining(["message_start", "message_end", "reply"]));
  });
});
