import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";

const AUTH = { authorization: `Bearer ${env.API_TOKEN}`, "content-type": "application/json" };

type SseEvent = { id: number; event: string; data: { seq: number; type: string } };

/** Read SSE frames from a stream until `count` events have arrived, then stop reading. */
async function readEvents(res: Response, count: number): Promise<SseEvent[]> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  const events: SseEvent[] = [];
  const deadline = Date.now() + 10_000;
  while (events.length < count && Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    for (let cut = buffer.indexOf("\n\n"); cut >= 0; cut = buffer.indexOf("\n\n")) {
      const frame = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      if (frame.startsWith(":")) continue;
      const fields = Object.fromEntries(
        frame.split("\n").map((l) => [l.slice(0, l.indexOf(":")), l.slice(l.indexOf(":") + 2)]),
      );
      events.push({ id: Number(fields.id), event: fields.event!, data: JSON.parse(fields.data!) });
    }
  }
  await reader.cancel();
  return events;
}

function stream(id: string, lastEventId?: number) {
  const stub = env.CONVERSATION.get(env.CONVERSATION.idFromName(id));
  return stub.fetch(`http://conversation/events`, {
    headers: lastEventId !== undefined ? { "last-event-id": String(lastEventId) } : {},
  });
}

describe("conversation events (SSE)", () => {
  it("replays stored events with ids, and resumes after Last-Event-ID without gaps or repeats", async () => {
    const res = await SELF.fetch("http://edgeloop.test/v1/messages?wait=30", {
      method: "POST",
      headers: AUTH,
      body: JSON.stringify({ agent_id: "pi-1", conversation_id: "conv-sse-1", text: "hello" }),
    });
    // The model is unreachable in this config: the run ends failed, after a start and an end event.
    expect(((await res.json()) as { status: string }).status).toBe("failed");

    const all = await readEvents(await stream("conv-sse-1"), 2);
    expect(all.map((e) => e.event)).toEqual(["message_start", "conversation_end"]);
    expect(all.map((e) => e.id)).toEqual([1, 2]);
    expect(all[0]!.data.seq).toBe(1);

    const second = await SELF.fetch("http://edgeloop.test/v1/messages", {
      method: "POST",
      headers: AUTH,
      body: JSON.stringify({ agent_id: "pi-1", conversation_id: "conv-sse-1", text: "again" }),
    });
    expect(second.status).toBe(202);
    const resumed = await readEvents(await stream("conv-sse-1", 2), 2);
    expect(resumed.map((e) => e.id)).toEqual([3, 4]);
    expect(resumed.map((e) => e.event)).toEqual(["message_start", "conversation_end"]);
  });

  it("streams live events to a connected client", async () => {
    await SELF.fetch("http://edgeloop.test/v1/messages?wait=30", {
      method: "POST",
      headers: AUTH,
      body: JSON.stringify({ agent_id: "pi-1", conversation_id: "conv-sse-2", text: "first" }),
    });
    const live = stream("conv-sse-2", 2);
    const res = await live;
    const reading = readEvents(res, 2);
    await SELF.fetch("http://edgeloop.test/v1/messages", {
      method: "POST",
      headers: AUTH,
      body: JSON.stringify({ agent_id: "pi-1", conversation_id: "conv-sse-2", text: "second" }),
    });
    const events = await reading;
    expect(events.map((e) => [e.id, e.event])).toEqual([
      [3, "message_start"],
      [4, "conversation_end"],
    ]);
  });

  it("404s the events of a conversation that does not exist", async () => {
    const res = await stream("conv-sse-none");
    expect(res.status).toBe(404);
  });
});
