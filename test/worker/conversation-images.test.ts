/**
 * Images sent with a message, through the real worker and conversation object: stored once by
 * their hash, referenced from the history, served at the conversation's image route to whoever
 * may see the conversation (404 to everyone else), and refused with a 413 over the cap.
 */

import { env, runInDurableObject } from "cloudflare:test";
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { conversationFor } from "../../durable-objects/addresses.js";
import { API, call, knownAgent, postMessage } from "./support/front-door.js";
import { issueKey, problemOf } from "./support/keys.js";

/** A real 2x1 PNG. */
const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAIAAAABCAIAAAB7QOjdAAAACXBIWXMAAAPoAAAD6AG1e1JrAAAAD0lEQVQImWP4z8Dwn4EBAAj+Af/KOtJRAAAAAElFTkSuQmCC";
const image = (data = PNG) => ({ type: "image", source: { type: "base64", media_type: "image/png", data } });

type View = { messages: { role: string; images?: { sha256: string; url: string; width?: number; bytes: number }[] }[] };

async function send(headers: Record<string, string>, body: Record<string, unknown>, vars = {}) {
  const res = await postMessage({ text: "what is this?", ...body }, headers, vars);
  expect(res.status, await res.clone().text()).toBe(202);
  return ((await res.json()) as { conversation_id: string }).conversation_id;
}

const storedImages = (conversationId: string) =>
  runInDurableObject(conversationFor(env, conversationId), async (_instance, state) => ({
    images: state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM images").one().n,
    // The history's rows hold references, never the bytes.
    bytesInLog: JSON.stringify(state.storage.sql.exec("SELECT * FROM loop_kv").toArray()).includes(PNG.slice(0, 40)),
  }));

describe("images in POST /v1/messages", () => {
  it("are stored once however often they are sent, referenced from the history, and served at their url", async () => {
    const agent = await knownAgent("img-dev");
    const id = await send(API, { agent_id: agent, images: [image()] });
    await send(API, { agent_id: agent, conversation_id: id, text: "and again?", images: [image(), image()] });
    const view = (await (await call(`/v1/conversations/${id}`, { headers: API })).json()) as View;
    const refs = view.messages.flatMap((m) => m.images ?? []);
    expect(refs.length).toBeGreaterThanOrEqual(1);
    const sha = createHashHex(Buffer.from(PNG, "base64"));
    expect(refs[0]).toMatchObject({ sha256: sha, width: 2, height: 1, bytes: Buffer.from(PNG, "base64").length });
    expect(refs[0]!.url).toBe(`/v1/conversations/${id}/images/${sha}`);
    expect(await storedImages(id)).toEqual({ images: 1, bytesInLog: false });

    const res = await call(refs[0]!.url, { headers: API });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/png");
    expect(res.headers.get("cache-control")).toContain("immutable");
    expect(Buffer.from(await res.arrayBuffer()).toString("base64")).toBe(PNG);
  });

  it("many and large: the step rows stay small, a picture over the chunk size is kept whole in chunks", async () => {
    const agent = await knownAgent("img-many");
    const vars = { MAX_BODY_BYTES: String(10 * 1024 * 1024), MESSAGE_IMAGES_MAX_BYTES: String(8 * 1024 * 1024) };
    // 1.2 MB that is no image format the header reader knows: kept with its declared type and no size.
    const large = Buffer.alloc(1_200_000);
    for (let i = 0; i < large.length; i++) large[i] = (i * 2654435761) >>> 24;
    const id = await send(API, { agent_id: agent, images: [image(large.toString("base64"))] }, vars);
    for (let i = 0; i < 6; i++) {
      const distinct = Buffer.alloc(60_000, i + 1).toString("base64");
      await send(API, { agent_id: agent, conversation_id: id, text: `picture ${i}`, images: [image(distinct)] }, vars);
    }
    const rows = await runInDurableObject(conversationFor(env, id), async (_instance, state) => {
      const sql = state.storage.sql;
      return {
        images: sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM images").one().n,
        chunks: sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM image_chunks").one().n,
        largestChunk: sql.exec<{ n: number }>("SELECT MAX(LENGTH(data)) AS n FROM image_chunks").one().n,
        largestStep: sql
          .exec<{ n: number }>(
            "SELECT MAX(LENGTH(COALESCE(events,'')) + LENGTH(COALESCE(messages,'')) + LENGTH(COALESCE(calls,''))) AS n FROM steps",
          )
          .one().n,
        largestState: sql.exec<{ n: number }>("SELECT MAX(LENGTH(v)) AS n FROM loop_kv").one().n,
      };
    });
    expect(rows.images).toBe(7);
    // 1.2 MB in 512 KB chunks is 3; each small picture is 1.
    expect(rows.chunks).toBe(3 + 6);
    expect(rows.largestChunk).toBeLessThanOrEqual(512 * 1024);
    expect(rows.largestStep).toBeLessThan(4096);
    expect(rows.largestState).toBeLessThan(16_384);
    const view = (await (await call(`/v1/conversations/${id}`, { headers: API })).json()) as View;
    const big = view.messages[0]!.images![0]!;
    expect(big).toMatchObject({ bytes: large.length });
    expect(big.width).toBeUndefined();
    const served = Buffer.from(await (await call(big.url, { headers: API })).arrayBuffer());
    expect(served.equals(large)).toBe(true);
  });

  it("are served to the conversation's own key only: another tenant gets 404, as for one that does not exist", async () => {
    const agent = await knownAgent("img-tenant");
    const a = await issueKey({ name: "a", agents: [agent] });
    const b = await issueKey({ name: "b", agents: [agent] });
    const id = await send(a.headers, { agent_id: agent, images: [image()] });
    const url = `/v1/conversations/${id}/images/${createHashHex(Buffer.from(PNG, "base64"))}`;
    expect((await call(url, { headers: a.headers })).status).toBe(200);
    expect(await problemOf(await call(url, { headers: b.headers }))).toMatchObject({ status: 404 });
    expect((await call(url)).status).toBe(401);
    expect((await call(`/v1/conversations/${id}/images/${"0".repeat(64)}`, { headers: a.headers })).status).toBe(404);
    expect((await call(`/v1/conversations/${id}/images/not-a-hash`, { headers: a.headers })).status).toBe(400);
  });

  it("fit without raising MAX_BODY_BYTES; the text beside them is still held to it", async () => {
    const agent = await knownAgent("img-room");
    // A real PNG's header with 600 KB behind it: over the 256 KB body cap, under the images' 5 MiB.
    const photo = Buffer.concat([Buffer.from(PNG, "base64"), Buffer.alloc(600 * 1024, 1)]).toString("base64");
    const res = await postMessage({ agent_id: agent, text: "what is this?", images: [image(photo)] }, API);
    expect(res.status).toBe(202);
    const wordy = await postMessage({ agent_id: agent, text: "x".repeat(300 * 1024), images: [image()] }, API);
    expect(wordy.status).toBe(413);
    expect(((await wordy.json()) as { title: string }).title).toBe("Payload too large");
  });

  it("over MESSAGE_IMAGES_MAX_BYTES are refused with a 413 problem naming the cap; a bad block with a 400 naming it", async () => {
    const agent = await knownAgent("img-cap");
    const big = Buffer.alloc(3000, 7).toString("base64");
    const res = await postMessage({ agent_id: agent, text: "x", images: [image(big)] }, API, {
      MESSAGE_IMAGES_MAX_BYTES: "2048",
    });
    expect(res.status).toBe(413);
    expect(res.headers.get("content-type")).toContain("application/problem+json");
    const problem = (await res.json()) as { title: string; detail: string; errors: { path: string }[] };
    expect(problem.title).toBe("Images too large");
    expect(problem.detail).toContain("MESSAGE_IMAGES_MAX_BYTES");
    expect(problem.errors[0]!.path).toBe("images");

    const bad = await postMessage(
      { agent_id: agent, text: "x", images: [{ type: "image", source: { type: "url", url: "http://x" } }] },
      API,
    );
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toContain("images.0");
  });
});

function createHashHex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}
