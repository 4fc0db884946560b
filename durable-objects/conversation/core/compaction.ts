import { composeSummary, summaryMessageText } from "./compaction-prompt.js";
import { dropBefore, messageAt, systemMessage, windowStart } from "./history.js";
import type { ChatMessage, Compaction, Effect, LlmTurn, LoopEvent, LoopState, Run } from "./types.js";

/**
 * Compaction keeps a conversation that lives for months inside the model's context window. The
 * full history stays in storage; the model's view shrinks to the system prompt, a summary of the
 * older turns, and the latest turns word for word — and so does what the object holds in memory
 * (history.ts, docs/architecture.md#bounded-memory).
 *
 * Before every model call the core estimates the call's input (characters / 4, no tokenizer,
 * calibrated by the provider's reported prompt tokens). Past `compact_at` of the window it holds
 * the call back and asks for a `compact` effect instead: the shell makes the summary call and
 * feeds back `compacted` (or `compaction_failed`, after which the call goes ahead uncompacted).
 * The summary call is an outbox effect like any other, so a restart during it makes it again.
 *
 * Where the old part ends is chosen so that no tool call is parted from its result: the view may
 * only start at a user or assistant message, never at a `tool` message.
 */

const CHARS_PER_TOKEN = 4;
/** role, separators and the like, per message */
const MESSAGE_OVERHEAD = 4;
/** After compacting, the kept turns should take at most this share of the threshold. */
const KEEP_SHARE = 0.5;

const tokenMemo = new WeakMap<object, number>();

/** Estimated tokens of one message; messages never change once appended, so it is computed once. */
export function messageTokens(m: ChatMessage): number {
  let n = tokenMemo.get(m);
  if (n === undefined) {
    let chars = m.content?.length ?? 0;
    if (m.role === "assistant")
      for (const c of m.tool_calls ?? []) chars += c.function.name.length + c.function.arguments.length + 24;
    n = Math.ceil(chars / CHARS_PER_TOKEN) + MESSAGE_OVERHEAD;
    tokenMemo.set(m, n);
  }
  return n;
}

export function estimateTokens(messages: readonly ChatMessage[], from = 0, to = messages.length): number {
  let n = 0;
  for (let i = from; i < to; i++) n += messageTokens(messages[i]!);
  return n;
}

/** The tool list goes with most calls; it is one array per message, so this is computed once per message. */
export function toolsTokens(tools: LoopState["tools"]): number {
  let n = tokenMemo.get(tools);
  if (n === undefined) {
    n = Math.ceil(JSON.stringify(tools.map((t) => [t.name, t.description, t.parameters])).length / CHARS_PER_TOKEN);
    tokenMemo.set(tools, n);
  }
  return n;
}

const summaryMessages = new WeakMap<Compaction, ChatMessage>();

/** What the model is sent: the whole history, or after a compaction the system prompt, the summary and the kept turns. */
export function modelMessages(state: Pick<LoopState, "messages" | "history" | "compaction">): ChatMessage[] {
  const c = state.compaction;
  if (!c) return state.messages;
  let summary = summaryMessages.get(c);
  if (!summary) {
    // One object per compaction: the shell serializes each message object once (request-json.ts).
    summary = { role: "user", content: summaryMessageText(c) };
    summaryMessages.set(c, summary);
  }
  const system = systemMessage(state);
  const head = system ? [system] : [];
  const pinned = c.pinned !== null ? [messageAt(state, c.pinned)!] : [];
  return [...head, summary, ...pinned, ...state.messages.slice(c.upto - windowStart(state))];
}

/** Our estimate times what the provider reported for the last calls. */
function calibrated(state: LoopState, raw: number): number {
  return Math.ceil(raw * (state.token_ratio ?? 1));
}

/** Learn how far our estimate is from the provider's count; a smoothed ratio, within bounds. */
export function calibrate(state: LoopState, run: Run, usage: LlmTurn["usage"]): void {
  if (!usage || usage.prompt_tokens <= 0 || !run.estimate) return;
  const sample = usage.prompt_tokens / run.estimate;
  const prev = state.token_ratio;
  state.token_ratio = Math.min(4, Math.max(0.25, prev === undefined ? sample : prev * 0.5 + sample * 0.5));
}

/** A user message the loop wrote itself (a stop or correction note) does not start a turn. */
function startsTurn(m: ChatMessage): boolean {
  return m.role === "user" && !m.content.startsWith("[edgeloop]");
}

export type Cut = { upto: number; pinned: number | null };

/**
 * Where the summarized part ends. Start from the `keepTurns`-th latest turn; while what would be
 * kept is over `budget` tokens, move the cut forward to the next user or assistant message (a
 * `tool` message stays behind its call), keeping at least the last exchange. A cut inside the turn
 * being answered pins that turn's user message, so the model still reads what it was asked.
 * Null when nothing before the kept part is left to summarize.
 */
export function selectCut(
  messages: readonly ChatMessage[],
  opts: { from: number; keepTurns: number; budget: number },
): Cut | null {
  const turns: number[] = [];
  for (let i = opts.from; i < messages.length; i++) if (startsTurn(messages[i]!)) turns.push(i);
  // The turn being answered may have begun before `from` (pinned by the last compaction).
  let lastTurn: number | null = null;
  for (let i = messages.length - 1; i >= 0 && lastTurn === null; i--) if (startsTurn(messages[i]!)) lastTurn = i;
  let upto = turns.length > opts.keepTurns ? turns[turns.length - opts.keepTurns]! : opts.from;
  const lastSafe = lastSafeBoundary(messages, opts.from);
  const pinCost = (at: number) => (lastTurn !== null && at > lastTurn ? messageTokens(messages[lastTurn]!) : 0);
  while (upto < lastSafe && estimateTokens(messages, upto) + pinCost(upto) > opts.budget) {
    upto = nextSafeBoundary(messages, upto);
  }
  if (upto <= opts.from) return null;
  return { upto, pinned: lastTurn !== null && upto > lastTurn ? lastTurn : null };
}

/** A place the view may start: a user message, or an assistant message (its results follow it). */
function isSafeStart(m: ChatMessage): boolean {
  return m.role === "user" || m.role === "assistant";
}

function nextSafeBoundary(messages: readonly ChatMessage[], at: number): number {
  let i = at + 1;
  while (i < messages.length && !isSafeStart(messages[i]!)) i++;
  return i;
}

/** The start of the last exchange: the view always keeps at least that much. */
function lastSafeBoundary(messages: readonly ChatMessage[], from: number): number {
  for (let i = messages.length - 1; i > from; i--) if (isSafeStart(messages[i]!)) return i;
  return from;
}

/**
 * Run at the end of a step: if it asks for a model call whose estimated input passes the
 * threshold, hold the call back and ask for a summary first. Also records the call's estimate,
 * which the provider's reported usage calibrates.
 */
export function beforeModelCall(state: LoopState, effects: Effect[], event: LoopEvent): void {
  const run = state.run;
  if (!run?.awaiting_llm || run.compacting || event.type === "compacted" || event.type === "compaction_failed") return;
  const index = effects.findIndex((e) => e.type === "call_llm" && e.call_id === run.awaiting_llm);
  if (index < 0) return;
  const window = state.config.context_tokens;
  // No window, no compaction: not even the estimate is needed.
  if (window === null) return;
  const call = effects[index] as Extract<Effect, { type: "call_llm" }>;
  const tools = call.with_tools ? toolsTokens(state.tools) : 0;
  const raw = estimateTokens(modelMessages(state)) + tools;
  run.estimate = raw;
  const threshold = window * state.config.compact_at;
  if (calibrated(state, raw) <= threshold) return;
  const ratio = state.token_ratio ?? 1;
  const head = systemMessage(state);
  const system = head ? messageTokens(head) : 0;
  const from = state.compaction?.upto ?? (head ? 1 : 0);
  // The cut is chosen among the messages in memory, which start at or before `from`.
  const start = windowStart(state);
  const cut = selectCut(state.messages, {
    from: from - start,
    keepTurns: state.config.keep_recent_turns,
    budget: (threshold * KEEP_SHARE) / ratio - tools - system,
  });
  if (!cut) return;
  const upto = cut.upto + start;
  const pinned = cut.pinned === null ? null : cut.pinned + start;
  const call_id = `${call.call_id}.compact`;
  effects[index] = { type: "compact", call_id, from, upto, context_tokens: window };
  run.compacting = { call_id, upto, pinned, tokens_before: calibrated(state, raw), with_tools: call.with_tools };
}

/** The summary is in: the view shrinks, and the model call that waited goes ahead. */
export function onCompacted(
  state: LoopState,
  effects: Effect[],
  event: Extract<LoopEvent, { type: "compacted" }>,
  now: number,
): void {
  const run = state.run;
  const pending = run?.compacting;
  if (!run || !pending || pending.call_id !== event.call_id) return;
  run.compacting = null;
  const window = state.config.context_tokens ?? 0;
  const compaction: Compaction = {
    upto: pending.upto,
    pinned: pending.pinned,
    summary: composeSummary(event.summary, event.open_todos ?? [], window),
    at: now,
    tokens_before: pending.tokens_before,
    tokens_after: 0,
  };
  state.compaction = compaction;
  // What the view no longer shows leaves memory too; the pinned message is still shown.
  dropBefore(state, Math.min(pending.upto, pending.pinned ?? pending.upto));
  const raw = estimateTokens(modelMessages(state)) + (pending.with_tools ? toolsTokens(state.tools) : 0);
  run.estimate = raw;
  compaction.tokens_after = calibrated(state, raw);
  effects.push({
    type: "emit_event",
    event: {
      type: "compaction",
      messages_summarized: pending.upto - (systemMessage(state) ? 1 : 0),
      tokens_before: compaction.tokens_before,
      tokens_after: compaction.tokens_after,
    },
  });
  effects.push({ type: "call_llm", call_id: run.awaiting_llm!, with_tools: pending.with_tools });
}

/** No summary: the model call goes ahead with the whole view (the provider may still take it). */
export function onCompactionFailed(
  state: LoopState,
  effects: Effect[],
  event: Extract<LoopEvent, { type: "compaction_failed" }>,
): void {
  const run = state.run;
  const pending = run?.compacting;
  if (!run || !pending || pending.call_id !== event.call_id) return;
  run.compacting = null;
  effects.push({
    type: "emit_event",
    event: {
      type: "compaction",
      messages_summarized: 0,
      tokens_before: pending.tokens_before,
      tokens_after: pending.tokens_before,
      error: event.error,
    },
  });
  effects.push({ type: "call_llm", call_id: run.awaiting_llm!, with_tools: pending.with_tools });
}
