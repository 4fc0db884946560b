import { toOpenAITool } from "@edgeloop/protocol";
import { TODO_KV_KEY, TodoList } from "../builtins/todo-list.js";
import { summaryRequest } from "../core/compaction-prompt.js";
import { windowStart } from "../core/history.js";
import type { ChatMessage, Effect, LoopEvent, LoopState } from "../core/index.js";
import { callLlm, type LlmResult, memoByIdentity } from "../llm/index.js";
import { imageSettings, modelImageLimits } from "../settings/image-settings.js";
import { type ModelEnv, modelSettings } from "../settings/model-settings.js";
import type { ConversationStore } from "../storage/conversation-store.js";
import type { ImageReader } from "../storage/image-store.js";
import { modelCallMessages } from "./model-images.js";

/**
 * A message's tool list in the API's shape, made once per list: the state keeps the same array
 * for every step of a message, so the model request's JSON of it is made once too (request-json.ts).
 */
const apiTools = memoByIdentity((tools: LoopState["tools"]) => tools.map(toOpenAITool));

/**
 * The conversation's model calls. A call may start before the step that asks for it is written
 * (docs/architecture.md#output-gates); it waits here, in the one early slot, until the effect
 * runner performs that step's `call_llm` and takes it.
 */
export class ModelCalls {
  /** at most one: the step that started it is written next */
  private early: { callId: string; result: Promise<LlmResult> } | null = null;

  constructor(
    private readonly env: ModelEnv,
    /** the model's streamed text, as it arrives */
    private readonly onDelta: (delta: string) => void,
    /** where the images the model is shown are read from */
    private readonly images: ImageReader,
  ) {}

  /** Start the call for `state` now; false when no model is configured (the effect then fails it). */
  startEarly(callId: string, withTools: boolean, state: LoopState): boolean {
    const result = this.start(callId, withTools, state);
    if (result) this.early = { callId, result };
    return result !== null;
  }

  /** A call started early whose step was not performed (already recorded, or rolled back): nobody will read it. */
  dropEarly(): void {
    this.early = null;
  }

  /** The result of `callId`: the call started early, or a new one; null when no model is configured. */
  take(callId: string, withTools: boolean, state: LoopState): Promise<LlmResult> | null {
    const early = this.early?.callId === callId ? this.early.result : null;
    if (early) this.early = null;
    return early ?? this.start(callId, withTools, state);
  }

  /** Why no call can be made, for the `llm_failed` event. */
  unavailableReason(): string {
    const settings = modelSettings(this.env);
    if (!settings.ok) return `configuration: ${settings.error}`;
    const images = imageSettings(this.env);
    if (!images.ok) return `configuration: ${images.error}`;
    return settings.value.unavailable ?? "no model is configured";
  }

  /** A compaction's summary call: no tools, and its text is not streamed to the conversation's clients. */
  summarize(callId: string, messages: ChatMessage[]): Promise<LlmResult> | null {
    return this.request(callId, messages, [], false, null);
  }

  private start(callId: string, withTools: boolean, state: LoopState): Promise<LlmResult> | null {
    // The model's view: after a compaction, the summary and the latest turns (compaction.ts),
    // with the images it may be shown (model-images.ts).
    const images = imageSettings(this.env);
    const model = modelSettings(this.env);
    if (!images.ok || !model.ok) return null;
    const limits = modelImageLimits(images.value, model.value.provider ?? "openai", model.value.model);
    return this.request(callId, modelCallMessages(state, limits, this.images), state.tools, withTools, this.onDelta);
  }

  private request(
    callId: string,
    messages: ChatMessage[],
    tools: LoopState["tools"],
    withTools: boolean,
    onDelta: ((delta: string) => void) | null,
  ): Promise<LlmResult> | null {
    const settings = modelSettings(this.env);
    if (!settings.ok || settings.value.unavailable !== null || !settings.value.provider) return null;
    const s = { ...settings.value, provider: settings.value.provider };
    // Anthropic refuses a history holding tool calls unless tools are defined, so a call without
    // tools keeps them and forbids their use instead.
    const keepTools = tools.length > 0 && (withTools || (s.provider === "anthropic" && s.toolProtocol === "native"));
    return callLlm(
      {
        provider: s.provider,
        ...(s.baseURL ? { baseURL: s.baseURL } : {}),
        apiKey: s.apiKey,
        model: s.model,
        maxRetries: s.maxRetries,
        timeoutMs: s.timeoutMs,
        toolProtocol: s.toolProtocol,
        promptCaching: s.promptCaching,
        ...(s.maxTokens !== undefined ? { maxTokens: s.maxTokens } : {}),
        ...(s.gatewayToken ? { gatewayToken: s.gatewayToken } : {}),
        ...(s.gatewayId ? { gatewayId: s.gatewayId } : {}),
        ...(this.env.AI ? { ai: this.env.AI } : {}),
      },
      {
        messages,
        tools: keepTools ? apiTools(tools) : [],
        ...(withTools ? {} : keepTools ? { toolChoice: "none" as const } : {}),
      },
      {
        idSeed: callId.replace(/[^A-Za-z0-9]/g, "").slice(-24),
        // Stored as events (not loop state), a few times a second: see DeltaBuffer.
        ...(onDelta ? { onDelta } : {}),
      },
    );
  }
}

/**
 * The `compact` effect performed: the dedicated summary call (core/compaction-prompt.ts), through
 * the conversation's own model calls, and the open todos, which the summary message lists word for
 * word. Never throws: a failure is a `compaction_failed` event, after which the held model call
 * goes ahead uncompacted.
 */
export async function summarize(
  state: LoopState,
  store: ConversationStore,
  modelCalls: ModelCalls,
  effect: Extract<Effect, { type: "compact" }>,
): Promise<LoopEvent> {
  const { call_id } = effect;
  // The range is in message numbers; memory holds it, from `windowStart` on (core/history.ts).
  const start = windowStart(state);
  const request = summaryRequest(
    state.messages,
    effect.from - start,
    effect.upto - start,
    state.compaction?.summary ?? null,
    effect.context_tokens,
  );
  const call = modelCalls.summarize(call_id, request);
  if (!call) return { type: "compaction_failed", call_id, error: modelCalls.unavailableReason() };
  const result = await call;
  if (!result.ok) return { type: "compaction_failed", call_id, error: result.error.message };
  const summary = result.turn.content ?? "";
  if (!summary.trim()) return { type: "compaction_failed", call_id, error: "the model wrote an empty summary" };
  return { type: "compacted", call_id, summary, open_todos: openTodos(store) };
}

/** The todo list the todowrite built-in keeps, without the finished ones. */
function openTodos(store: ConversationStore): string[] {
  const parsed = TodoList.safeParse(store.getValue(`builtin:${TODO_KV_KEY}`) ?? []);
  if (!parsed.success) return [];
  return parsed.data.filter((t) => t.status !== "completed").map((t) => `[${t.status}] ${t.content}`);
}
