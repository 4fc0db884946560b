/**
 * Fleet messages at the front door, and the routing of a fleet's calls against real device hubs
 * (docs/fleet.md). The loop's side (names, policies) is in test/unit/fleet; the whole run with real
 * agents in test/e2e/fleet.test.ts.
 */
import { env, runInDurableObject } from "cloudflare:test";
import type { ToolSpec } from "@edgeloop/protocol";
import { describe, expect, it } from "vitest";
import { initialState, type LoopState } from "../../durable-objects/conversation/core/index.js";
import { type DispatchTarget, routeDispatches } from "../../durable-objects/conversation/effects/fleet-dispatch.js";
import { ConversationStore } from "../../durable-objects/conversation/storage/conversation-store.js";
import { spec } from "../unit/loop/fixtures.js";
import {
  API,
  call,
  connectDevice,
  hub,
  knownAgent,
  pairedAgent,
  postMessage,
  uid,
  waitFor,
} from "./support/front-door.js";
import { issueKey } from "./support/keys.js";

async function online(prefix: string) {
  const id = uid(prefix);
  const dev = await connectDevice(id, "s", { DEVICE_TOKENS: `${id}:s` });
  dev.hello();
  await dev.online();
  return { id, dev };
}

/** Commands in flight on a device: dispatched to its hub, never answered. */
async function busy(agentId: string, n: number) {
  for (let i = 0; i < n; i++) {
    const request_id = uid("load");
    await hub(agentId).dispatch({
      request_id,
      conversation_id: uid("other"),
      tool_call_id: request_id,
      tool: "bash",
      parameters: { command: "sleep 60" },
      timeout_ms: 60_000,
    });
  }
}

const bash = spec("bash", { command: { type: "string" } }, ["command"]);
const named = (agent: string): ToolSpec => ({
  ...bash,
  name: `${agent}__bash`,
  fleet: { tool: "bash", agents: [agent] },
});
const routed = (...agents: string[]): ToolSpec => ({ ...bash, fleet: { tool: "bash", agents } });

/** Route these calls as a conversation object does, in a fresh conversation's own storage. */
async function route(
  state: LoopState,
  calls: { request_id: string; tool: string }[],
  name = uid("conv"),
): Promise<DispatchTarget[]> {
  const stub = env.CONVERSATION.get(env.CONVERSATION.idFromName(name));
  return runInDurableObject(stub, (_o, s) => routeDispatches(env, new ConversationStore(s.storage.sql), state, calls));
}

describe("fleet messages at the front door", () => {
  it("accept several known devices; the first is the conversation's home", async () => {
    const [a, b] = [await knownAgent("fa"), await knownAgent("fb")];
    const res = await postMessage({ agent_ids: [a, b], text: "hi" }, API);
    expect(res.status).toBe(202);
    expect(((await res.json()) as { agent_id: string }).agent_id).toBe(a);
  });

  it("may name another fleet for the same conversation once its run is over: its first device is the home", async () => {
    const [a, b] = [await knownAgent("fa"), await knownAgent("fb")];
    const conversation_id = uid("conv");
    expect((await postMessage({ conversation_id, agent_ids: [a, b], text: "one" }, API)).status).toBe(202);
    await waitFor(
      () =>
        call(`/v1/conversations/${conversation_id}`, { headers: API }).then(
          (r) => r.json() as Promise<{ status: string }>,
        ),
      (v) => v.status !== "running",
    );
    const next = await postMessage({ conversation_id, agent_ids: [b, a], text: "two" }, API);
    expect(next.status).toBe(202);
    expect(((await next.json()) as { agent_id: string }).agent_id).toBe(b);
    // One device alone that is not the home stays refused, as for any conversation.
    expect((await postMessage({ conversation_id, agent_id: a, text: "three" }, API)).status).toBe(409);
  });

  it("refuse an unknown device among them, naming it and the field", async () => {
    const a = await knownAgent("fa");
    const ghost = uid("ghost");
    const res = await postMessage({ agent_ids: [a, ghost], text: "hi" }, API);
    expect(res.status).toBe(404);
    const body = (await res.json()) as { title: string; errors: { path: string; message: string }[] };
    expect(body.title).toBe("Unknown device");
    expect(body.errors[0]).toMatchObject({ path: "agent_ids", message: expect.stringContaining(ghost) });
  });

  it("refuse a key any one of whose devices is outside its grant", async () => {
    const [a, b] = [await knownAgent("fa"), await knownAgent("fb")];
    const key = await issueKey({ name: "one-device", agents: [a] });
    const res = await postMessage({ agent_ids: [a, b], text: "hi" }, key.headers);
    expect(res.status).toBe(403);
    expect(((await res.json()) as { errors: { path: string }[] }).errors[0]!.path).toBe("agent_ids");
  });

  it("take a pool in fleet mode without asking the registry, and refuse one too large for a fleet", async () => {
    const [a, b] = [await knownAgent("fa"), await knownAgent("fb")];
    const ok = await postMessage({ pool: "lab", mode: "fleet", text: "hi" }, API, { POOLS: `lab:${a}|${b}` });
    expect(ok.status).toBe(202);
    expect(((await ok.json()) as { agent_id: string }).agent_id).toBe(a);
    const many = Array.from({ length: 17 }, (_, i) => `d${i}`).join("|");
    const big = await postMessage({ pool: "big", mode: "fleet", text: "hi" }, API, { POOLS: `big:${many}` });
    expect(big.status).toBe(400);
    expect(((await big.json()) as { title: string }).title).toBe("Pool too large for a fleet");
  });
});

describe("routing a fleet's calls", () => {
  it("sends a routed call to the online device with the fewest calls in flight, counting the round's own", async () => {
    const [a, b] = [await online("ra"), await online("rb")];
    await busy(b.id, 2);
    const state = { ...initialState(uid("conv"), a.id), tools: [routed(a.id, b.id)] };
    const targets = await route(state, [
      { request_id: "r1", tool: "bash" },
      { request_id: "r2", tool: "bash" },
    ]);
    expect(targets).toEqual([
      { ok: true, agent_id: a.id, tool: "bash" },
      { ok: true, agent_id: a.id, tool: "bash" },
    ]);
    a.dev.ws.close(1000, "bye");
    b.dev.ws.close(1000, "bye");
  });

  it("sends a re-driven call to the device it picked the first time, whatever the load is now", async () => {
    const [a, b] = [await online("ra"), await online("rb")];
    const state = { ...initialState(uid("conv"), a.id), tools: [routed(a.id, b.id)] };
    const conv = uid("conv");
    const [first] = await route(state, [{ request_id: "r1", tool: "bash" }], conv);
    const picked = (first as { agent_id: string }).agent_id;
    await busy(picked, 3);
    const [again] = await route(state, [{ request_id: "r1", tool: "bash" }], conv);
    expect(again).toEqual({ ok: true, agent_id: picked, tool: "bash" });
    a.dev.ws.close(1000, "bye");
    b.dev.ws.close(1000, "bye");
  });

  it("ends a call for an offline device not_sent at once, naming the devices that have the tool", async () => {
    const a = await online("ra");
    const down = await pairedAgent("down");
    const gone = await pairedAgent("gone");
    const state = { ...initialState(uid("conv"), a.id), tools: [named(down), named(a.id), routed(down, gone)] };
    const [toDown, toNone] = await route(state, [
      { request_id: "r1", tool: `${down}__bash` },
      { request_id: "r2", tool: "bash" },
    ]);
    expect(toDown).toMatchObject({
      ok: false,
      outcome: { status: "error", error_type: "not_sent", tool: `${down}__bash` },
    });
    const error = (toDown as { outcome: { error: string } }).outcome.error;
    expect(error).toContain(`device '${down}' is offline (never seen)`);
    expect(error).toContain(`the same tool on another device: ${a.id}__bash`);
    expect(toNone).toMatchObject({ ok: false, outcome: { error_type: "not_sent" } });
    expect((toNone as { outcome: { error: string } }).outcome.error).toContain(
      "none of the devices that have it is online",
    );
    a.dev.ws.close(1000, "bye");
  });

  it("leaves a one-device conversation's calls as they were", async () => {
    const state = { ...initialState(uid("conv"), "pi-1"), tools: [bash] };
    expect(await route(state, [{ request_id: "r1", tool: "bash" }])).toEqual([
      { ok: true, agent_id: "pi-1", tool: "bash" },
    ]);
  });
});
