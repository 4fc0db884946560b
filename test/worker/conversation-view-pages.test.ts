import { describe, expect, it } from "vitest";
import { API, call, knownAgent, postMessage, uid } from "./support/front-door.js";

type View = { messages: { role: string; content: string }[]; messages_from: number; messages_total: number };

// GET /v1/conversations/:id pages the history (protocol/history-page.ts, docs/protocol.md).
describe("GET /v1/conversations/:id pages", () => {
  it("answers the page asked for, says where it starts and how many there are; refuses a bad query with 400", async () => {
    const agent_id = await knownAgent("pages");
    const conversation_id = uid("pages");
    for (const text of ["one", "two", "three"]) {
      expect((await postMessage({ agent_id, conversation_id, text }, API)).status).toBe(202);
    }
    const page = async (query: string) => {
      const res = await call(`/v1/conversations/${conversation_id}${query}`, { headers: API });
      return { status: res.status, body: (await res.json()) as View };
    };
    // The first message runs (its model call fails without a model here); the others queue.
    const whole = await page("");
    expect(whole.status).toBe(200);
    expect(whole.body.messages_from).toBe(0);
    expect(whole.body.messages_total).toBe(whole.body.messages.length);
    expect(whole.body.messages[0]).toEqual({ role: "user", content: "one" });
    const first = await page("?from=0&limit=1");
    expect(first.body).toMatchObject({ messages: [{ role: "user", content: "one" }], messages_from: 0 });
    const latest = await page("?limit=1");
    expect(latest.body.messages_from).toBe(whole.body.messages_total - 1);
    expect(latest.body.messages).toEqual(whole.body.messages.slice(-1));
    expect((await page(`?before=${whole.body.messages_total}&limit=1000`)).body.messages).toEqual(whole.body.messages);
    for (const bad of ["?limit=0", "?limit=1001", "?from=-1", "?before=x"]) {
      expect((await page(bad)).status, bad).toBe(400);
    }
  });
});
