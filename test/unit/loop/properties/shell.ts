/**
 * The property suite's shell (loop-properties.test.ts): it plays the random event sequences of
 * arbitraries.ts against the loop core the way conversation-do.ts does: it performs what the
 * effects ask for (model calls, dispatches, deadlines, summaries), keeps nothing but what effects and the state
 * tell it, and restarts from the state's serialized form. Each step is kept in a trace, and the
 * properties read the trace. Nothing here decides what the core should do: the invariants do.
 */
import type { ToolOutcome, ToolSpec } from "@edgeloop/protocol";
import type { ApprovalRuleMatch } from "@edgeloop/protocol/approval-rules";
import {
  type Advanced,
  advance,
  type Effect,
  initialState,
  type LoopEvent,
  type LoopState,
} from "../../../../durable-objects/conversation/core/index.js";
import { type Op, type Scenario, START } from "./arbitraries.js";

export type Step = {
  prev: LoopState;
  event: LoopEvent;
  now: number;
  next: LoopState;
  effects: Effect[];
  /** an approval the shell gave: the request id of the call it answered, and the rule, if any */
  approved?: { request_id: string; rule: ApprovalRuleMatch | null };
  /** the step was part of the drain: the shell ending what is open, as its deadlines would */
  drain: boolean;
};

export type Trace = {
  steps: Step[];
  /** what advance() threw, with the event it threw on */
  thrown: { error: unknown; event: LoopEvent } | null;
  /** message ids of user messages sent, and of direct calls the core started */
  messages: string[];
  /** the rules the shell handed the core (with messages, direct calls and approvals) */
  rules: ApprovalRuleMatch[];
  /** true when the drain ended with a run still open: nothing the shell holds can end it */
  stuck: boolean;
  final: LoopState;
};

/** Play a scenario, then drain: answer the model with text and fire every deadline until no run is left. */
export function play(s: Scenario, opts: { checkInput?: boolean } = {}): Trace {
  const shell = new Shell(s, opts.checkInput ?? false);
  for (const o of s.ops) if (!shell.apply(o)) break;
  if (!shell.trace.thrown) shell.drain();
  return shell.trace;
}

/** Frozen all the way down; what is frozen already (shared with an earlier state) is not walked again. */
function deepFreeze(value: unknown): void {
  if (value === null || typeof value !== "object" || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const v of Object.values(value)) deepFreeze(v);
}

class Shell {
  state: LoopState;
  now = START;
  tools: ToolSpec[];
  /** model calls asked for (call_llm), unanswered */
  llmCalls: string[] = [];
  llmAnswered: string[] = [];
  compacts: string[] = [];
  compactsDone: string[] = [];
  deadlines = new Map<string, number>();
  deadlinesGone: string[] = [];
  /** every call the core prepared, in the order it started them */
  calls: { id: string; request_id: string; name: string }[] = [];
  lateSent: { tool_call_id: string; request_id: string; outcome: ToolOutcome }[] = [];
  lastDirect: string | null = null;
  ids = 0;
  messages = 0;
  trace: Trace;

  constructor(
    s: Scenario,
    /** freeze each step's input, so that a step that changes it throws (only the property about it asks) */
    readonly checkInput: boolean,
  ) {
    this.state = initialState("conv-p", "pi-1", s.config);
    this.tools = s.tools;
    this.trace = { steps: [], thrown: null, messages: [], rules: [], stuck: false, final: this.state };
  }

  /** Feed one event; false when advance() threw (the trace says so). */
  step(event: LoopEvent, extra: Partial<Step> = {}, drain = false): boolean {
    const prev = this.state;
    if (this.checkInput) deepFreeze(prev);
    let out: Advanced;
    try {
      out = advance(prev, event, this.now);
    } catch (error) {
      this.trace.thrown = { error, event };
      return false;
    }
    this.trace.steps.push({
      prev,
      event,
      now: this.now,
      next: out.state,
      effects: out.effects,
      drain,
      ...extra,
    });
    this.state = out.state;
    this.trace.final = out.state;
    this.perform(out.effects);
    return true;
  }

  /** What the shell keeps of the effects: the outbox and the deadlines. */
  perform(effects: Effect[]): void {
    for (const e of effects) {
      if (e.type === "call_llm") this.llmCalls.push(e.call_id);
      else if (e.type === "compact") this.compacts.push(e.call_id);
      else if (e.type === "set_deadline") this.deadlines.set(e.key, e.at);
      else if (e.type === "clear_deadline") {
        if (this.deadlines.delete(e.key)) this.deadlinesGone.push(e.key);
      } else if (e.type === "emit_event" && e.event.type === "tool_execution_start") {
        // A round whose calls were all refused is over in the same step: its request ids are gone.
        const { toolCallId: id, toolName: name } = e.event;
        const call = (this.state.run?.round ?? []).find(
          (c) => c.id === id && !this.calls.some((k) => k.request_id === c.request_id),
        );
        this.calls.push({ id, name, request_id: call?.request_id ?? `${id}.refused` });
      }
    }
  }

  fresh(prefix: string): string {
    this.ids += 1;
    return `${prefix}${this.ids}`;
  }

  apply(o: Op): boolean {
    const round = this.state.run?.round ?? [];
    const at = <T>(list: readonly T[], n: number): T | undefined => (list.length ? list[n % list.length] : undefined);
    switch (o.k) {
      case "message": {
        this.messages += 1;
        const message_id = `m${this.messages}`;
        this.trace.messages.push(message_id);
        if (o.rules) this.trace.rules.push(...o.rules);
        return this.step({
          type: "user_message",
          message_id,
          text: o.text,
          tools: this.tools,
          ...(o.config ? { config: o.config } : {}),
          ...(o.rules ? { approval_rules: o.rules } : {}),
        });
      }
      case "direct": {
        // A repeat is the shell's redelivery of the same call, while the core still knows it.
        const known =
          this.lastDirect !== null &&
          (this.state.run?.message_id === this.lastDirect ||
            this.state.replies.some((r) => r.message_id === this.lastDirect));
        const message_id = o.repeat && known ? this.lastDirect! : this.fresh("d");
        const busy = this.state.run !== null;
        if (o.rules) this.trace.rules.push(...o.rules);
        const ok = this.step({
          type: "tool_call",
          message_id,
          call: { id: `${message_id}.call`, name: o.name, arguments: o.arguments },
          tools: this.tools,
          ...(o.rules ? { approval_rules: o.rules } : {}),
        });
        // The core takes a direct call only when no run is under way (the shell answers 409 then).
        const started = this.trace.steps
          .at(-1)
          ?.effects.some(
            (e) => e.type === "emit_event" && e.event.type === "message_start" && e.event.message_id === message_id,
          );
        if (ok && started) this.trace.messages.push(message_id);
        if (!busy) this.lastDirect = message_id;
        return ok;
      }
      case "llm": {
        const call_id = o.stale ? (at(this.llmAnswered, this.ids) ?? "m0.llm9") : this.llmCalls.at(-1);
        if (!call_id) return true;
        const toolCalls = o.turn.toolCalls.map((c) => ({ ...c, id: c.id ?? this.fresh("t") }));
        if (!o.stale) this.answered(call_id);
        return this.step({ type: "llm_response", call_id, turn: { ...o.turn, toolCalls } });
      }
      case "llm_failed": {
        const call_id = o.stale ? (this.llmAnswered.at(-1) ?? "nope") : this.llmCalls.at(-1);
        if (!call_id) return true;
        if (!o.stale) this.answered(call_id);
        return this.step({ type: "llm_failed", call_id, error: "unreachable" });
      }
      case "result": {
        const call = o.stale
          ? at(this.calls, o.pick)
          : at(
              round.filter((c) => c.state === "dispatched"),
              o.pick,
            );
        if (!call) return true;
        const outcome = { ...o.outcome, tool: call.name } as ToolOutcome;
        return this.step({ type: "tool_result", tool_call_id: call.id, request_id: call.request_id, outcome });
      }
      case "late": {
        const sent = o.again ? at(this.lateSent, o.pick) : undefined;
        const call = at(this.calls, o.pick);
        const late =
          sent ??
          (call && {
            tool_call_id: call.id,
            request_id: call.request_id,
            outcome: { ...o.outcome, tool: call.name } as ToolOutcome,
          });
        if (!late) return true;
        this.lateSent.push(late);
        return this.step({ type: "late_tool_result", ...late, ...(o.stored ? { stored_tool: "bash" } : {}) });
      }
      case "approve": {
        const waiting = round.filter((c) => c.state === "awaiting_approval");
        const target = at(waiting, o.pick) ?? at(round, o.pick);
        if (!target) return true;
        // A rule always says what the decision says (approval-decision.ts makes it so).
        const effect = o.approve ? ("allow" as const) : ("deny" as const);
        const r = o.rule && { ...o.rule, effect, rule_id: `${effect}-${o.rule.rule_id.split("-")[1]}` };
        if (r) this.trace.rules.push(r);
        // The call the core will answer: the first of that id, when it is the one waiting.
        const first = round.find((c) => c.id === target.id);
        const approved =
          o.approve && first?.state === "awaiting_approval" ? { request_id: first.request_id, rule: r } : undefined;
        return this.step(
          {
            type: "approval",
            tool_call_id: target.id,
            approve: o.approve,
            ...(o.reason !== null ? { reason: o.reason } : {}),
            ...(r ? { rule: r } : {}),
          },
          approved ? { approved } : {},
        );
      }
      case "answer": {
        const call = at(round, o.pick);
        if (!call) return true;
        return this.step({ type: "answer", tool_call_id: call.id, text: o.text });
      }
      case "progress": {
        const call = at(round, o.pick);
        if (!call) return true;
        return this.step({ type: "tool_progress", tool_call_id: call.id, partial: { step: o.pick } });
      }
      case "cancel":
        return this.step({ type: "cancel", ...(o.reason !== null ? { reason: o.reason } : {}) });
      case "timer": {
        const keys = o.stale ? this.deadlinesGone : [...this.deadlines.keys()];
        const key = at(keys, o.pick);
        if (!key) return true;
        if (!o.stale) {
          this.now = Math.max(this.now, this.deadlines.get(key)!);
          this.deadlines.delete(key);
          this.deadlinesGone.push(key);
        }
        return this.step({ type: "deadline", key });
      }
      case "compaction": {
        const call_id = o.stale ? (this.compactsDone.at(-1) ?? "x.compact") : this.compacts.at(-1);
        if (!call_id) return true;
        if (!o.stale) {
          this.compacts = this.compacts.filter((c) => c !== call_id);
          this.compactsDone.push(call_id);
        }
        return this.step(
          o.ok
            ? { type: "compacted", call_id, summary: o.summary, open_todos: o.todos }
            : { type: "compaction_failed", call_id, error: "no summary" },
        );
      }
      case "burst":
        for (let i = 0; i < o.n; i++) {
          if (!this.apply({ k: "message", text: `turn ${i}`, config: null, rules: null })) return false;
          const run = this.state.run;
          if (run?.awaiting_llm && !run.compacting && this.llmCalls.includes(run.awaiting_llm)) {
            this.answered(run.awaiting_llm);
            const answer = { content: `answer ${i}`, toolCalls: [] };
            if (!this.step({ type: "llm_response", call_id: run.awaiting_llm, turn: answer })) return false;
          }
        }
        return true;
      case "late_burst":
        // Results for calls only storage still knows (the shell found their names there).
        for (let i = 0; i < o.n; i++) {
          const late = {
            tool_call_id: `old${i}`,
            request_id: this.fresh("old."),
            outcome: {
              status: "success",
              tool: "bash",
              result: "late",
              stderr: "",
              exit_code: 0,
              elapsed_ms: 1,
            } as const,
          };
          if (!this.step({ type: "late_tool_result", ...late, stored_tool: "bash" })) return false;
        }
        return true;
      case "restart":
        // What the object loads after a restart: the state as it was stored.
        this.state = JSON.parse(JSON.stringify(this.state)) as LoopState;
        return true;
      case "wait":
        this.now += o.ms;
        return true;
    }
  }

  answered(call_id: string): void {
    this.llmCalls = this.llmCalls.filter((c) => c !== call_id);
    this.llmAnswered.push(call_id);
  }

  /**
   * End what is open the way time would: each summary fails, the model answers with text, and
   * deadlines fire in order. A run that none of this ends is stuck.
   */
  drain(): void {
    for (let i = 0; i < 300 && this.state.run; i++) {
      const run = this.state.run;
      let event: LoopEvent | null = null;
      const compact = this.compacts.at(-1);
      if (run.compacting && compact) {
        this.compacts.pop();
        this.compactsDone.push(compact);
        event = { type: "compaction_failed", call_id: compact, error: "drain" };
      } else if (run.awaiting_llm && this.llmCalls.includes(run.awaiting_llm)) {
        this.answered(run.awaiting_llm);
        event = { type: "llm_response", call_id: run.awaiting_llm, turn: { content: "done", toolCalls: [] } };
      } else {
        const next = [...this.deadlines.entries()].sort((a, b) => a[1] - b[1])[0];
        if (!next) break;
        const [key, at] = next;
        this.now = Math.max(this.now, at);
        this.deadlines.delete(key);
        this.deadlinesGone.push(key);
        event = { type: "deadline", key };
      }
      if (!this.step(event, {}, true)) return;
    }
    this.trace.stuck = this.state.run !== null;
  }
}
