/**
 * What a conversation may start on its own (`task`, `sessions_spawn`, `sessions_send`): only on
 * devices its owner may use, and what it starts belongs to that owner. The shell's real context
 * (effects/builtin-runner.ts) with a stand-in for the Durable Object namespace that records each call.
 */
import { describe, expect, it } from "vitest";
import { builtinContext } from "../../durable-objects/conversation/effects/builtin-runner.js";
import type { ConversationStore } from "../../durable-objects/conversation/storage/conversation-store.js";
import type { Owner } from "../../runtime/access.js";

function world(owner: Owner, pools: ReadonlyMap<string, readonly string[]> = new Map()) {
  const posted: { name: string; input: Record<string, unknown> }[] = [];
  const namespace = {
    idFromName: (name: string) => name,
    get: (name: string) => ({
      postMessage: async (input: Record<string, unknown>) => {
        posted.push({ name, input });
        return { ok: true };
      },
    }),
  };
  const values = new Map<string, unknown>();
  const store = {
    getValue: (k: string) => values.get(k) ?? null,
    putValue: (k: string, v: unknown) => values.set(k, v),
  } as unknown as ConversationStore;
  const subtasks: string[] = [];
  const ctx = builtinContext({
    env: { CONVERSATION: namespace, DEVICE_HUB: namespace } as never,
    store,
    owner,
    conversation_id: "conv-1",
    agent_id: "pi-1",
    tool_call_id: "call-1",
    request_id: "req-1",
    pools,
    startSubtask: async (_text, agentId, fleet) => {
      subtasks.push(fleet ? fleet.join("+") : agentId);
      return { conversation_id: `task-${agentId}` };
    },
  });
  return { ctx, posted, subtasks };
}

const KEY: Owner = { id: "key:key_a", scoped: true, reach: ["pi-1", "pi-2"] };

describe("sub-conversations of a scoped key's conversation", () => {
  it("start only on the key's devices, and belong to the key", async () => {
    const w = world(KEY);
    expect(await w.ctx.conversations.post(null, "pi-9", "go")).toEqual({ error: expect.stringContaining("pi-9") });
    expect(await w.ctx.startSubtask("go", "pi-9")).toEqual({ error: expect.stringContaining("pi-9") });
    expect(w.posted).toEqual([]);
    expect(w.subtasks).toEqual([]);

    expect(await w.ctx.conversations.post(null, "pi-2", "go")).toMatchObject({ conversation_id: expect.any(String) });
    expect(w.posted[0]!.input).toMatchObject({ agent_id: "pi-2", by: KEY });
    expect(await w.ctx.startSubtask("go", "pi-2")).toEqual({ conversation_id: "task-pi-2" });
  });

  it("of an unscoped owner may go anywhere", async () => {
    const w = world({ id: "api", scoped: false, reach: "*" });
    expect(await w.ctx.startSubtask("go", "pi-9")).toEqual({ conversation_id: "task-pi-9" });
    await w.ctx.conversations.post(null, "pi-9", "go");
    expect(w.posted[0]!.input).toMatchObject({ by: { id: "api", scoped: false } });
  });

  it("handed to a pool run over its devices, only when the owner may use every one of them", async () => {
    const pools = new Map([
      ["mine", ["pi-1", "pi-2"]],
      ["wider", ["pi-2", "pi-9"]],
    ]);
    const w = world(KEY, pools);
    expect(await w.ctx.startSubtask("go", "pi-1", "wider")).toEqual({ error: expect.stringContaining("pi-9") });
    expect(await w.ctx.startSubtask("go", "pi-1", "nope")).toEqual({ error: expect.stringContaining("nope") });
    expect(w.subtasks).toEqual([]);
    expect(await w.ctx.startSubtask("go", "pi-1", "mine")).toEqual({ conversation_id: "task-pi-1" });
    expect(w.subtasks).toEqual(["pi-1+pi-2"]);
  });
});
