import { env, runInDurableObject } from "cloudflare:test";
import { type ReplyTarget, RunOutput } from "@edgeloop/protocol/run-output";
import { describe, expect, it } from "vitest";
import { type FinishedReply, initialState } from "../../durable-objects/conversation/core/index.js";
import { ConversationStore } from "../../durable-objects/conversation/storage/conversation-store.js";
import { StepRecorder } from "../../durable-objects/conversation/storage/step-recorder.js";

const NOW = 1_700_000_000_000;

async function withSql<T>(fn: (sql: SqlStorage) => T): Promise<T> {
  const stub = env.CONVERSATION.get(env.CONVERSATION.idFromName(`reply-target-${crypto.randomUUID()}`));
  return runInDurableObject(stub, (_o, state) => fn(state.storage.sql));
}

const reply = (message_id: string): FinishedReply => ({
  message_id,
  status: "completed",
  reply: "done",
  stop_reason: "answer",
  tool_calls: [],
  iterations: 1,
});

/** The reply's delivery effects as a fresh object records its step: a new store and recorder over the same SQLite (a restart). */
function replyAfterRestart(sql: SqlStorage, messageId: string) {
  const store = new ConversationStore(sql);
  const recorder = new StepRecorder(store, { model: "m" });
  const state = initialState("conv-1", "pi-1");
  store.batch(() =>
    recorder.record({ prev: state, state, effects: [{ type: "reply", reply: reply(messageId) }], now: NOW }),
  );
  // Read back as the next instance would: the outbox rows from the stored state. Every reply also
  // records its metrics (an outbox row of its own); what matters here is where the reply goes.
  store.saveState(state);
  return new ConversationStore(sql)
    .pendingOutbox()
    .map((r) => r.effect)
    .filter((e) => e.type !== "record_metrics");
}

describe("a run's reply target", () => {
  it("round-trips a chat thread through storage: the reply is pushed to the thread, not POSTed", async () => {
    const effects = await withSql((sql) => {
      const target: ReplyTarget = { kind: "chat", thread: "telegram:42:7" };
      new StepRecorder(new ConversationStore(sql), { model: "m" }).rememberReplyTarget("m1", target);
      return replyAfterRestart(sql, "m1");
    });
    expect(effects).toHaveLength(1);
    const effect = effects[0]!;
    if (effect.type !== "deliver_chat") throw new Error(`expected deliver_chat, got ${effect.type}`);
    expect(effect.thread).toBe("telegram:42:7");
    // One schema for the run's output, whichever way it goes (protocol/run-output.ts).
    expect(RunOutput.parse(effect.reply)).toEqual({
      type: "reply",
      conversation_id: "conv-1",
      message_id: "m1",
      status: "completed",
      reply: "done",
      stop_reason: "answer",
      tool_calls: [],
      iterations: 1,
    });
  });

  it("round-trips a reply_url with its events flag", async () => {
    const effects = await withSql((sql) => {
      const target: ReplyTarget = { kind: "url", url: "https://example.com/hook", events: true };
      new StepRecorder(new ConversationStore(sql), { model: "m" }).rememberReplyTarget("m2", target);
      return replyAfterRestart(sql, "m2");
    });
    const effect = effects[0]!;
    if (effect.type !== "deliver_reply") throw new Error(`expected deliver_reply, got ${effect.type}`);
    expect(effect.url).toBe("https://example.com/hook");
    expect(RunOutput.parse(effect.payload).type).toBe("reply");
  });

  it("delivers nowhere when the stored target is not a typed one (no URL is sniffed for a thread)", async () => {
    const effects = await withSql((sql) => {
      const store = new ConversationStore(sql);
      store.putValue("reply:m3", { url: "chat-thread/telegram:42", events: false });
      return replyAfterRestart(sql, "m3");
    });
    expect(effects).toEqual([]);
  });
});
