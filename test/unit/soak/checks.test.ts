/**
 * The soak's checks must be able to fail: each kind of loss, duplicate or stranded conversation,
 * built by hand into an otherwise clean audit, is found and counted in the right bucket.
 */
import { describe, expect, it } from "vitest";
import { type Audit, runChecks } from "../../../bench/soak/checks.js";
import type { SoakEvent } from "../../../bench/soak/event-follower.js";
import type { ConversationView } from "../../../bench/soak/history.js";
import type { JournalRun, Journals } from "../../../bench/soak/journal.js";
import type { ConversationRecord } from "../../../bench/soak/workload.js";

const TEXT = "soak c1 m1 tools-b";
const TAG = "c1-m1-r1-0";

function clean(): { audit: Audit; journals: Journals } {
  const events: SoakEvent[] = [
    { seq: 1, at: 1, type: "message_start", message_id: "msg1", text: TEXT },
    { seq: 2, at: 2, type: "tool_execution_end", toolCallId: "call1", toolName: "soak_step", isError: false },
    { seq: 3, at: 3, type: "conversation_end", message_id: "msg1", status: "completed", reply: "done c1 m1\nran x" },
  ];
  const view: ConversationView = {
    conversation_id: "conv1",
    agent_id: "dev-1",
    status: "completed",
    messages: [
      { role: "user", content: TEXT },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "call1", function: { name: "soak_step", arguments: JSON.stringify({ tag: TAG, ms: 1 }) } }],
      },
      { role: "tool", tool_call_id: "call1", content: `ran ${TAG}` },
      { role: "assistant", content: "done c1 m1" },
    ],
    replies: [
      {
        message_id: "msg1",
        status: "completed",
        reply: "done c1 m1",
        tool_calls: [{ id: "call1", name: "soak_step", status: "success" }],
      },
    ],
    pending_tool_calls: [],
    queued_messages: 0,
  };
  const rec: ConversationRecord = {
    conv: "c1",
    conversation_id: "conv1",
    agent_id: "dev-1",
    error: null,
    follower: { connects: 1, repeats: 0, lastSeq: 3, seen: new Map(events.map((e) => [e.seq, e])) },
    messages: [
      {
        msg: "m1",
        kind: "tools-b",
        text: TEXT,
        key: "k",
        message_id: "msg1",
        posted_at: 1,
        accepted_at: 1,
        refused: null,
        end_seqs: [3],
        start_seqs: [1],
        ended_at: 3,
        status: "completed",
        reply: "done c1 m1",
        decisions: [],
        answers: [],
      },
    ],
  };
  const run: JournalRun = {
    agent_id: "dev-1",
    tag: TAG,
    request_id: "msg1.1.0",
    tool: "soak_step",
    pid: 1,
    started_at: 1,
    ended_at: 2,
  };
  return { audit: { conversation_id: "conv1", agent_id: "dev-1", rec, view, events }, journals: journalsOf([run]) };
}

function journalsOf(runs: JournalRun[]): Journals {
  const group = (key: (r: JournalRun) => string) => {
    const m = new Map<string, JournalRun[]>();
    for (const r of runs) m.set(key(r), [...(m.get(key(r)) ?? []), r]);
    return m;
  };
  return { runs, byRequest: group((r) => r.request_id), byTag: group((r) => r.tag), badLines: 0 };
}

function failures(audit: Audit, journals: Journals): Record<string, number> {
  const { checks } = runChecks([audit], journals, []);
  return Object.fromEntries(checks.filter((c) => c.count > 0).map((c) => [c.id, c.count]));
}

describe("the soak's checks", () => {
  it("find nothing in a clean conversation whose one call ran once", () => {
    const { audit, journals } = clean();
    expect(failures(audit, journals)).toEqual({});
    expect(runChecks([audit], journals, []).tools).toMatchObject({
      calls: 1,
      runs: 1,
      outcomes: { success: 1 },
      lateResults: 0,
    });
  });

  it("count a call that ended outcome_unknown although its device finished it, when its late result is there", () => {
    const { audit, journals } = clean();
    const reply = audit.view?.replies[0];
    if (reply) reply.tool_calls = [{ id: "call1", name: "soak_step", status: "error", error_type: "outcome_unknown" }];
    audit.events.push({ seq: 4, at: 4, type: "tool_late_result", toolCallId: "call1", toolName: "soak_step" });
    const { checks, tools } = runChecks([audit], journals, []);
    expect(checks.filter((c) => c.count > 0).map((c) => c.id)).toEqual([]);
    expect(tools).toMatchObject({ calls: 1, runs: 1, lateResults: 1, outcomes: { "error:outcome_unknown": 1 } });
  });

  it("find a result the device finished that the conversation dropped (no result, no late result)", () => {
    for (const ending of ["outcome_unknown", "not_sent"]) {
      const { audit, journals } = clean();
      const reply = audit.view?.replies[0];
      if (reply) reply.tool_calls = [{ id: "call1", name: "soak_step", status: "error", error_type: ending }];
      expect(failures(audit, journals)).toEqual({ dropped_results: 1 });
    }
    // A run the device did not finish (killed at its timeout, or cut short) has no result to drop.
    const { audit, journals } = clean();
    const reply = audit.view?.replies[0];
    if (reply) reply.tool_calls = [{ id: "call1", name: "soak_step", status: "error", error_type: "outcome_unknown" }];
    expect(failures(audit, journalsOf([{ ...journals.runs[0]!, ended_at: null }]))).toEqual({});
  });

  it("find a call that ran twice, under the same request id or another one", () => {
    const { audit, journals } = clean();
    const once = journals.runs[0]!;
    expect(failures(audit, journalsOf([once, { ...once, pid: 2 }]))).toEqual({ ran_twice: 1 });
    // The same tag under a request id no history shows: a second run, and an unrecorded one.
    expect(failures(audit, journalsOf([once, { ...once, pid: 2, request_id: "msg1.2.0" }]))).toEqual({
      ran_twice: 1,
      unrecorded_runs: 1,
    });
  });

  it("find a success that never ran, and a run nobody asked for", () => {
    const { audit } = clean();
    expect(failures(audit, journalsOf([]))).toEqual({ result_without_run: 1 });
    const { journals } = clean();
    const stray = { ...journals.runs[0]!, request_id: "other.1.0", tag: "x" };
    expect(failures(audit, journalsOf([...journals.runs, stray]))).toEqual({ unrecorded_runs: 1 });
  });

  it("find a second final reply, and a message that never got one", () => {
    const { audit, journals } = clean();
    audit.events.push({ ...audit.events[2]!, seq: 4 });
    expect(failures(audit, journals)).toMatchObject({ two_replies: 1 });
    const fresh = clean();
    fresh.audit.events.splice(2, 1);
    fresh.audit.rec!.messages[0]!.end_seqs = [];
    fresh.audit.rec!.follower!.seen.delete(3);
    expect(failures(fresh.audit, fresh.journals)).toEqual({ no_reply: 1 });
  });

  it("find a conversation left waiting, and a message the front door never took", () => {
    const { audit, journals } = clean();
    audit.view!.status = "running";
    audit.view!.pending_tool_calls = [{ id: "call2", name: "soak_guarded", state: "awaiting_approval" }];
    audit.events.splice(2, 1);
    audit.rec!.follower!.seen.delete(3);
    expect(failures(audit, journals)).toEqual({ stuck: 1 });
    const fresh = clean();
    fresh.audit.rec!.messages.push({
      ...fresh.audit.rec!.messages[0]!,
      msg: "m2",
      message_id: null,
      refused: "gave up",
    });
    expect(failures(fresh.audit, fresh.journals)).toEqual({ not_accepted: 1 });
  });

  it("find an event a client saw that the store no longer has", () => {
    const { audit, journals } = clean();
    audit.rec!.follower!.seen.set(9, { seq: 9, at: 9, type: "approval_required" });
    expect(failures(audit, journals)).toEqual({ client_saw_rolled_back: 1 });
  });
});
