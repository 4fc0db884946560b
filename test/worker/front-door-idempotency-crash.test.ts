/**
 * A runtime that dies in the middle of `POST /v1/messages` leaves the idempotency key claimed
 * (`in_progress`) with no response stored. The client's retry must neither start the message a
 * second time (when the first request had already handed it to the conversation) nor lose it
 * (when it had not), and must not be kept waiting for minutes. The crash is reproduced by
 * putting the key's row back into the state a killed request leaves.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { conversationFor, idempotencyFor } from "../../durable-objects/addresses.js";
import { sha256Hex } from "../../runtime/digest.js";
import { API, knownAgent, postMessage, uid } from "./support/front-door.js";

/** The key's row as a request killed after its claim leaves it, claimed `agoMs` ago. */
async function abandonClaim(key: string, agoMs: number, body?: string): Promise<void> {
  const stub = idempotencyFor(env, "api", key);
  if (body !== undefined) expect((await stub.begin(await sha256Hex(body))).state).toBe("new");
  await runInDurableObject(stub, (_instance, state) => {
    state.storage.sql.exec(
      "UPDATE entry SET state = 'in_progress', status = NULL, body = NULL, content_type = NULL, started_at = ?",
      Date.now() - agoMs,
    );
  });
}

async function userTexts(conversationId: string): Promise<string[]> {
  const view = await conversationFor(env, conversationId).getConversation();
  return (view?.messages ?? []).filter((m) => m.role === "user").map((m) => String(m.content));
}

type Accepted = { conversation_id: string; message_id: string };

describe("POST /v1/messages after a request died holding its idempotency key", () => {
  it("the message had reached the conversation: the retry answers with it and starts nothing", async () => {
    const key = uid("key");
    const conv = uid("conv-crash");
    const body = { agent_id: await knownAgent("a"), conversation_id: conv, text: "only once" };
    const first = await postMessage(body, { ...API, "idempotency-key": key });
    expect(first.status).toBe(202);
    const accepted = (await first.json()) as Accepted;
    // Killed after the conversation took the message, before the response was stored; long ago.
    await abandonClaim(key, 3 * 60_000);
    const retry = await postMessage(body, { ...API, "idempotency-key": key });
    expect(retry.status).toBe(202);
    expect(((await retry.json()) as Accepted).message_id).toBe(accepted.message_id);
    expect(await userTexts(conv)).toEqual(["only once"]);
    // The retry stored its response: a later repeat is a plain replay.
    const later = await postMessage(body, { ...API, "idempotency-key": key });
    expect(later.headers.get("idempotent-replayed")).toBe("true");
  });

  it("without a conversation id, the retry goes to the same new conversation", async () => {
    const key = uid("key");
    const body = { agent_id: await knownAgent("a"), text: "a new conversation, once" };
    const first = (await (await postMessage(body, { ...API, "idempotency-key": key })).json()) as Accepted;
    await abandonClaim(key, 3 * 60_000);
    const retry = (await (await postMessage(body, { ...API, "idempotency-key": key })).json()) as Accepted;
    expect(retry).toMatchObject({ conversation_id: first.conversation_id, message_id: first.message_id });
    expect(await userTexts(first.conversation_id)).toEqual(["a new conversation, once"]);
  });

  it("the message had not reached the conversation: the retry posts it, within seconds of the crash", async () => {
    const key = uid("key");
    const conv = uid("conv-crash");
    const body = { agent_id: await knownAgent("a"), conversation_id: conv, text: "not lost" };
    // Killed right after its claim: nothing else happened.
    await abandonClaim(key, 20_000, JSON.stringify(body));
    const retry = await postMessage(JSON.stringify(body), { ...API, "idempotency-key": key });
    expect(retry.status).toBe(202);
    expect(await userTexts(conv)).toEqual(["not lost"]);
  });

  it("a claim only a moment old is still a request in flight: 409", async () => {
    const key = uid("key");
    const body = JSON.stringify({ agent_id: await knownAgent("a"), text: "in flight" });
    await abandonClaim(key, 1_000, body);
    expect((await postMessage(body, { ...API, "idempotency-key": key })).status).toBe(409);
  });
});
