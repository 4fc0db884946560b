import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { connectDevice, deviceView, waitFor } from "./support/front-door.js";

const AUTH = { authorization: `Bearer ${env.API_TOKEN}`, "content-type": "application/json" };

async function post(body: string, headers: Record<string, string> = AUTH, query = "") {
  return SELF.fetch(`http://edgeloop.test/v1/messages${query}`, { method: "POST", headers, body });
}

describe("POST /v1/messages", () => {
  it("refuses a request without the API token, as problem+json", async () => {
    const res = await post(JSON.stringify({ agent_id: "pi-1", text: "hi" }), { "content-type": "application/json" });
    expect(res.status).toBe(401);
    expect(res.headers.get("content-type")).toContain("application/problem+json");
    expect(await res.json()).toMatchObject({ status: 401, title: "Unauthorized" });
  });

  it("refuses a wrong token", async () => {
    const res = await post(JSON.stringify({ agent_id: "pi-1", text: "hi" }), { authorization: "Bearer nope" });
    expect(res.status).toBe(401);
  });

  it("answers malformed JSON with 400", async () => {
    const res = await post("{ not json");
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ title: "Malformed JSON" });
  });

  it("names the failing field of a body that fails the schema", async () => {
    const res = await post(JSON.stringify({ agent_id: "pi 1!", text: "hi" }));
    expect(res.status).toBe(400);
    const body = (await res.json()) as { errors: { path: string }[]; detail: string };
    expect(body.errors.map((e) => e.path)).toEqual(["agent_id"]);
    const missing = await post(JSON.stringify({ agent_id: "pi-1" }));
    expect(((await missing.json()) as { errors: { path: string }[] }).errors[0]!.path).toBe("text");
  });

  it("rejects a wait outside 0-60", async () => {
    const res = await post(JSON.stringify({ agent_id: "pi-1", text: "hi" }), AUTH, "?wait=61");
    expect(res.status).toBe(400);
  });

  it("refuses a device with no token that never connected, naming it, and starts no run", async () => {
    const res = await post(JSON.stringify({ agent_id: "pi-9", conversation_id: "conv-unknown-device", text: "hi" }));
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toContain("application/problem+json");
    const body = (await res.json()) as { title: string; detail: string; errors: { path: string }[] };
    expect(body.title).toBe("Unknown device");
    expect(body.detail).toContain("'pi-9'");
    expect(body.errors[0]!.path).toBe("agent_id");
    const conv = await SELF.fetch("http://edgeloop.test/v1/conversations/conv-unknown-device", { headers: AUTH });
    expect(conv.status).toBe(404);
  });

  it("queues for a device with an issued token that is offline", async () => {
    const admin = { authorization: `Bearer ${env.ADMIN_TOKEN}` };
    const issued = await SELF.fetch("http://edgeloop.test/v1/devices/pi-issued/tokens", {
      method: "POST",
      headers: admin,
    });
    expect(issued.status).toBe(201);
    const { token } = (await issued.json()) as { token: string };
    // Connected once (so its tools are known), then gone: a message to it waits. One that never
    // connected is refused instead (never-connected.test.ts).
    const device = await connectDevice("pi-issued", token);
    device.hello([]);
    await device.online();
    device.ws.close(1000, "gone");
    await waitFor(
      () => deviceView("pi-issued"),
      (v) => !v.online,
    );
    const res = await post(JSON.stringify({ agent_id: "pi-issued", text: "hello" }));
    expect(res.status).toBe(202);
  });

  it("accepts a message with 202 and ids, and the conversation then exists", async () => {
    const res = await post(JSON.stringify({ agent_id: "pi-1", text: "hello" }));
    expect(res.status).toBe(202);
    const body = (await res.json()) as { conversation_id: string; message_id: string };
    expect(body.conversation_id).toMatch(/^conv_/);
    expect(body.message_id).toMatch(/^msg_/);
    const conv = await SELF.fetch(`http://edgeloop.test/v1/conversations/${body.conversation_id}`, { headers: AUTH });
    expect(conv.status).toBe(200);
    const view = (await conv.json()) as { agent_id: string; messages: { role: string; content: string }[] };
    expect(view.agent_id).toBe("pi-1");
    expect(view.messages[0]).toEqual({ role: "user", content: "hello" });
  });

  it("keeps a conversation with its agent", async () => {
    const first = await post(JSON.stringify({ agent_id: "pi-1", conversation_id: "conv-owned", text: "a" }));
    expect(first.status).toBe(202);
    const second = await post(JSON.stringify({ agent_id: "pi-2", conversation_id: "conv-owned", text: "b" }));
    expect(second.status).toBe(409);
  });

  it("answers ?wait with the finished state when the model is unreachable (never hangs)", async () => {
    // The test config points OPENAI_BASE_URL at a closed port: the loop must end with an error.
    const res = await post(JSON.stringify({ agent_id: "pi-2", text: "hi" }), AUTH, "?wait=30");
    expect(res.status).toBe(200);
    const body = (await res.json()) as { status: string; reply: string; iterations: number };
    expect(body.status).toBe("failed");
    expect(body.reply).toContain("could not be reached");
  });
});

describe("other routes", () => {
  it("404s an unknown conversation and an unknown route as problem+json", async () => {
    const res = await SELF.fetch("http://edgeloop.test/v1/conversations/nope", { headers: AUTH });
    expect(res.status).toBe(404);
    const route = await SELF.fetch("http://edgeloop.test/v2/else");
    expect(route.status).toBe(404);
    expect(route.headers.get("content-type")).toContain("problem+json");
  });

  it("asks for a WebSocket upgrade on the device endpoint", async () => {
    const res = await SELF.fetch("http://edgeloop.test/v1/devices/pi-1/connect", {
      headers: { authorization: "Bearer device-secret-1" },
    });
    expect(res.status).toBe(426);
  });

  it("refuses a device token that belongs to another agent", async () => {
    const res = await SELF.fetch("http://edgeloop.test/v1/devices/pi-2/connect", {
      headers: { upgrade: "websocket", authorization: "Bearer device-secret-1" },
    });
    expect(res.status).toBe(401);
  });
});
