import { env, runInDurableObject } from "cloudflare:test";
import type { ConversationEventData } from "@edgeloop/protocol";
import type { RunOutput } from "@edgeloop/protocol/run-output";
import { describe, expect, it } from "vitest";
import type { ChatAddress, PlatformClient } from "../../../durable-objects/channels/platform.js";
import { PLATFORMS } from "../../../durable-objects/channels/platforms/index.js";
import { applyRunOutput, showLiveRuns } from "../../../durable-objects/channels/thread/run-output.js";
import type { ChatThreadEnv, ThreadContext } from "../../../durable-objects/channels/thread/thread-context.js";
import { ThreadStore } from "../../../durable-objects/channels/thread/thread-store.js";

const CONV = "conv_chat_1";
const chat: ChatAddress = { chatId: "42" };

/** A platform client that records its calls and always succeeds. */
function recordingClient() {
  const calls: string[] = [];
  let n = 0;
  const client: PlatformClient = {
    send: async () => {
      calls.push("send");
      return { ok: true, messageId: String(++n) };
    },
    edit: async (_to, id) => {
      calls.push(`edit:${id}`);
      return { ok: true, messageId: id };
    },
    typing: async () => void calls.push("typing"),
    answerButton: async () => {},
    fetchImage: async () => ({ bytes: new Uint8Array(), mediaType: "image/png" }),
  };
  return { client, calls };
}

/** A thread's store over a fresh object's SQLite, and a context as one pass of the thread makes it. */
async function withThread<T>(fn: (sql: SqlStorage) => T | Promise<T>): Promise<T> {
  const stub = env.CHAT_THREAD.get(env.CHAT_THREAD.idFromName(`telegram:${crypto.randomUUID()}`));
  return runInDurableObject(stub, (_o, state) => fn(state.storage.sql));
}

function contextOver(sql: SqlStorage, client: PlatformClient): ThreadContext {
  const store = new ThreadStore(sql);
  store.put("conversation_id", CONV);
  return {
    env: env as unknown as ChatThreadEnv,
    store,
    identity: { platform: "telegram", chat, key: "telegram:42" },
    platform: PLATFORMS.telegram,
    client,
    limits: PLATFORMS.telegram.limits,
  };
}

let seq = 0;
const ev = (event: ConversationEventData): RunOutput => ({
  type: "event",
  conversation_id: CONV,
  event: { ...event, seq: ++seq, at: 1 },
});

describe("a chat thread handed a run's output", () => {
  it("takes a push sent again after a restart once: one card, one reply", async () => {
    seq = 0;
    const outputs: RunOutput[] = [
      ev({ type: "message_start", message_id: "m1", text: "hi" }),
      ev({ type: "message_delta", delta: "Let me look. " }),
      ev({ type: "tool_execution_start", toolCallId: "c1", toolName: "echo", args: {} }),
      ev({ type: "tool_execution_end", toolCallId: "c1", toolName: "echo", result: "ok", isError: false }),
      ev({ type: "question", toolCallId: "q1", question: "Which?", options: ["a", "b"] }),
      {
        type: "reply",
        conversation_id: CONV,
        message_id: "m1",
        status: "completed",
        reply: "done",
        stop_reason: "answer",
        tool_calls: [],
        iterations: 2,
      },
    ];
    const { sends, run } = await withThread((sql) => {
      const { client } = recordingClient();
      applyRunOutput(contextOver(sql, client), CONV, outputs, 1000);
      // The conversation restarted and performed its pending push again; the thread restarted too.
      const again = contextOver(sql, client);
      applyRunOutput(again, CONV, outputs, 2000);
      return {
        sends: sql.exec<{ key: string }>("SELECT key FROM sends ORDER BY id").toArray(),
        run: again.store.run("m1"),
      };
    });
    // Events are taken once by sequence number: the streamed text and the tool line are not doubled.
    expect(run).toMatchObject({ text: "Let me look. ", ended: true });
    expect(run!.tools).toHaveLength(1);
    expect(sends.map((s) => s.key.split(":")[0])).toEqual(["card", "final"]);
    expect(sends.filter((s) => s.key === "final:m1")).toHaveLength(1);
  });

  it("a question's options come with its event: the card offers them without asking the conversation", async () => {
    seq = 0;
    const card = await withThread((sql) => {
      const ctx = contextOver(sql, recordingClient().client);
      applyRunOutput(
        ctx,
        CONV,
        [
          ev({ type: "message_start", message_id: "m2", text: "ask me" }),
          ev({ type: "question", toolCallId: "q2", question: "Tea or coffee?", options: ["tea", "coffee"] }),
        ],
        1000,
      );
      return ctx.store.openQuestion();
    });
    expect(card).toMatchObject({ body: "Tea or coffee?", options: ["tea", "coffee"] });
  });

  it("needs no wake-up while a run is idle (waiting for an approval); only a running tool's typing does", async () => {
    seq = 0;
    const { waiting, running, calls } = await withThread(async (sql) => {
      const { client, calls } = recordingClient();
      const ctx = contextOver(sql, client);
      applyRunOutput(
        ctx,
        CONV,
        [
          ev({ type: "message_start", message_id: "m3", text: "rm it" }),
          ev({ type: "approval_required", toolCallId: "a1", toolName: "bash", args: { command: "rm x" } }),
        ],
        1000,
      );
      // The run now waits, for hours perhaps: the thread has nothing to look at until a push.
      const waiting = await showLiveRuns(ctx, 10_000);
      applyRunOutput(
        ctx,
        CONV,
        [ev({ type: "tool_execution_start", toolCallId: "a1", toolName: "bash", args: {} })],
        20_000,
      );
      const running = await showLiveRuns(ctx, 20_000);
      return { waiting, running, calls };
    });
    expect(waiting).toBeNull();
    // A running tool keeps "typing…" up: the thread's own clock, no read of the conversation.
    expect(running).toBe(20_000 + 4500);
    expect(calls).toContain("typing");
  });
});
