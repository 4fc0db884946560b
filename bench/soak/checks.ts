/**
 * The soak's verdict, from what is stored at the end (each conversation's history, replies and
 * event log, the tools' journals, the schedules) and from what the clients saw on the way:
 * every accepted message got exactly one final reply; every tool call the history shows ran
 * exactly once on its device (at most once when its result says it was cut short, never when it
 * was denied); nothing ran that the history does not show; no conversation is left unfinished;
 * no result a device finished is dropped (docs/architecture.md#late-results).
 */
import type { SoakEvent } from "./event-follower.js";
import { type ConversationView, type HistoryCall, type Segment, segmentsOf } from "./history.js";
import type { JournalRun, Journals } from "./journal.js";
import { answerFor, finalReply } from "./model-script.js";
import type { ScheduleRecord, ScheduleView } from "./schedules.js";
import { approves, type ConversationRecord, type MessageRecord } from "./workload.js";

export type Audit = {
  conversation_id: string;
  agent_id: string;
  /** the workload's record; null for a conversation a schedule started */
  rec: ConversationRecord | null;
  view: ConversationView | null;
  events: SoakEvent[];
};

/** Which of the three headline numbers a failed check adds to (or none: still a failure). */
export type Bucket = "lost" | "duplicated" | "stuck" | "other";
export type Check = { id: string; what: string; bucket: Bucket; count: number; examples: string[] };

const DEVICE_TOOLS = new Set(["soak_step", "soak_guarded"]);
const FINAL = new Set(["completed", "failed", "cancelled"]);
/** Endings the hub gives a call without the device's result: a result may still come late. */
const HUB_ENDINGS = new Set(["not_sent", "outcome_unknown", "cancelled"]);

class Tally {
  readonly checks = new Map<string, Check>();
  add(id: string, what: string, bucket: Bucket): void {
    this.checks.set(id, { id, what, bucket, count: 0, examples: [] });
  }
  fail(id: string, example: string): void {
    const c = this.checks.get(id)!;
    c.count++;
    if (c.examples.length < 8) c.examples.push(example);
  }
}

export type ToolStats = {
  calls: number;
  runs: number;
  outcomes: Record<string, number>;
  startsWithoutEnd: number;
  /**
   * Calls the device ran to the end whose result came after the call had ended (the device, the
   * bridge or the runtime was down past the deadline): in the history as a late result.
   */
  lateResults: number;
};

export function runChecks(
  audits: Audit[],
  journals: Journals,
  schedules: { rec: ScheduleRecord; view: ScheduleView | null }[],
): { checks: Check[]; tools: ToolStats } {
  const t = new Tally();
  t.add("not_accepted", "messages never accepted (refused, or still failing when the client gave up)", "lost");
  t.add("no_reply", "accepted messages that never got a final reply, in a conversation that is not running", "lost");
  t.add("stuck", "conversations still running, waiting or queued after the drain period", "stuck");
  t.add("two_replies", "messages with more than one final reply (events, replies or history)", "duplicated");
  t.add("two_runs", "messages whose run started twice, or whose text is in the history twice", "duplicated");
  t.add("ran_twice", "tool calls the device ran more than once", "duplicated");
  t.add("unrecorded_runs", "tool runs on a device that no conversation's history shows", "duplicated");
  t.add("result_without_run", "calls the history shows as a success that never ran on the device", "lost");
  t.add("ran_elsewhere", "calls that ran on another device than their conversation's", "other");
  t.add("denied_but_ran", "calls a person denied that ran anyway", "other");
  t.add("decision_ignored", "approval decisions or answers the conversation did not act on", "other");
  t.add("client_missed_end", "replies a client following the event stream never saw", "other");
  t.add("client_saw_rolled_back", "events a client saw that the stored stream does not have", "other");
  t.add("history_mismatch", "histories whose user messages and message_start events disagree", "other");
  t.add("failed_runs", "messages whose run ended failed (the model is never down in the soak)", "other");
  t.add("schedule_runs", "schedules whose posted runs and conversations do not match", "other");
  t.add(
    "dropped_results",
    "calls a device finished that their conversation shows neither as the result nor as a late result",
    "lost",
  );

  const tools: ToolStats = {
    calls: 0,
    runs: journals.runs.length,
    outcomes: {},
    startsWithoutEnd: 0,
    lateResults: 0,
  };
  const seenRequests = new Set<string>();
  const seenTags = new Set<string>();

  for (const a of audits) {
    const label = a.conversation_id;
    if (!a.view) {
      if (a.rec?.messages.some((m) => m.message_id)) t.fail("no_reply", `${label}: the conversation does not exist`);
      continue;
    }
    const view = a.view;
    if (!FINAL.has(view.status) || view.pending_tool_calls.length > 0 || view.queued_messages > 0)
      t.fail(
        "stuck",
        `${label}: ${view.status}, ${view.pending_tool_calls.length} pending, ${view.queued_messages} queued`,
      );
    const { segments, mismatch } = segmentsOf(view, a.events);
    if (mismatch) t.fail("history_mismatch", `${label}: ${mismatch}`);
    checkMessages(t, a, segments);
    for (const seg of segments)
      for (const call of seg.calls) {
        if (!DEVICE_TOOLS.has(call.name)) continue;
        tools.calls++;
        const key = call.status === "error" ? `error:${call.error_type ?? "?"}` : (call.status ?? "no result");
        tools.outcomes[key] = (tools.outcomes[key] ?? 0) + 1;
        checkCall(t, a, seg, call, journals, seenRequests, seenTags);
        const finished = journals.byRequest.get(call.request_id)?.some((r) => r.ended_at !== null) ?? false;
        if (!finished || call.status !== "error" || !HUB_ENDINGS.has(call.error_type ?? "")) continue;
        // The device finished it but the call ended without its result: it must be there, late.
        const late = a.events.some((e) => e.type === "tool_late_result" && e.toolCallId === call.id);
        if (late) tools.lateResults++;
        // A device's own `cancelled` (it stopped the tool) ends its run too: only hub endings count.
        else if (call.error_type !== "cancelled")
          t.fail("dropped_results", `${a.conversation_id} ${call.name} (${call.request_id}): ${call.error_type}`);
      }
  }
  for (const run of journals.runs) {
    if (run.ended_at === null) tools.startsWithoutEnd++;
    if (!seenRequests.has(run.request_id))
      t.fail("unrecorded_runs", `${run.agent_id}: ${run.tool} ${run.tag} (request ${run.request_id})`);
  }
  checkSchedules(t, audits, schedules);
  return { checks: [...t.checks.values()], tools };
}

function checkMessages(t: Tally, a: Audit, segments: Segment[]): void {
  const view = a.view!;
  const ends = (id: string) => a.events.filter((e) => e.type === "conversation_end" && e.message_id === id);
  const starts = (id: string) => a.events.filter((e) => e.type === "message_start" && e.message_id === id);
  for (const seg of segments) {
    if (seg.message_id && starts(seg.message_id).length > 1)
      t.fail("two_runs", `${a.conversation_id}: ${seg.message_id} started ${starts(seg.message_id).length} times`);
    if (seg.finalTexts > 1)
      t.fail("two_replies", `${a.conversation_id}: "${seg.text}" has ${seg.finalTexts} final texts`);
  }
  const texts = segments.map((s) => s.text);
  for (const text of new Set(texts))
    if (a.rec && texts.filter((x) => x === text).length > 1)
      t.fail(
        "two_runs",
        `${a.conversation_id}: "${text}" is in the history ${texts.filter((x) => x === text).length} times`,
      );
  const messages: { m: MessageRecord | null; id: string; text: string }[] = a.rec
    ? a.rec.messages.flatMap((m) => {
        if (m.message_id) return [{ m, id: m.message_id, text: m.text }];
        if (m.refused) t.fail("not_accepted", `${a.conversation_id} ${m.msg}: ${m.refused.slice(0, 200)}`);
        return [];
      })
    : segments.flatMap((s) => (s.message_id ? [{ m: null, id: s.message_id, text: s.text }] : []));
  for (const { m, id, text } of messages) {
    const end = ends(id);
    const replies = view.replies.filter((r) => r.message_id === id);
    if (end.length === 0) {
      if (FINAL.has(view.status) && view.pending_tool_calls.length === 0 && view.queued_messages === 0)
        t.fail("no_reply", `${a.conversation_id}: "${text}" (${id})`);
      continue;
    }
    if (end.length > 1 || replies.length > 1)
      t.fail(
        "two_replies",
        `${a.conversation_id}: "${text}" ended ${end.length} times, ${replies.length} replies kept`,
      );
    const last = end[end.length - 1]!;
    if (last.status !== "completed")
      t.fail("failed_runs", `${a.conversation_id}: "${text}" ${last.status} (${last.stop_reason})`);
    if (!m) continue;
    if (m.end_seqs.length === 0) t.fail("client_missed_end", `${a.conversation_id}: "${text}"`);
    if (m.end_seqs.length > 1)
      t.fail("two_replies", `${a.conversation_id}: a client saw "${text}" end ${m.end_seqs.length} times`);
    const [conv, msg] = text.split(" ").slice(1, 3) as [string, string];
    if (last.status === "completed" && !String(last.reply ?? "").startsWith(finalReply(conv, msg)))
      t.fail("failed_runs", `${a.conversation_id}: "${text}" replied ${String(last.reply).slice(0, 80)}`);
  }
  if (a.rec) {
    const stored = new Map(a.events.map((e) => [e.seq, e]));
    for (const [seq, e] of a.rec.follower?.seen ?? []) {
      const s = stored.get(seq);
      if (!s || s.type !== e.type)
        t.fail("client_saw_rolled_back", `${a.conversation_id}: seq ${seq} ${e.type} is now ${s ? s.type : "absent"}`);
    }
  }
}

function checkCall(
  t: Tally,
  a: Audit,
  seg: Segment,
  call: HistoryCall,
  journals: Journals,
  seenRequests: Set<string>,
  seenTags: Set<string>,
): void {
  seenRequests.add(call.request_id);
  const tag = String(call.args.tag ?? "");
  const runs = journals.byRequest.get(call.request_id) ?? [];
  const where = `${a.conversation_id} ${call.name} ${tag} (${call.request_id})`;
  const elsewhere = runs.filter((r: JournalRun) => r.agent_id !== a.agent_id);
  if (elsewhere.length > 0) t.fail("ran_elsewhere", `${where} ran on ${elsewhere.map((r) => r.agent_id).join(", ")}`);
  if (runs.length > 1)
    t.fail("ran_twice", `${where} ran ${runs.length} times (${call.status} ${call.error_type ?? ""})`);
  // Workload tags are unique per call: the same tag under another request id is a second run too.
  if (a.rec && !seenTags.has(tag)) {
    seenTags.add(tag);
    const byTag = journals.byTag.get(tag) ?? [];
    const others = byTag.filter((r) => r.request_id !== call.request_id);
    if (others.length > 0) t.fail("ran_twice", `${where} also ran as ${others.map((r) => r.request_id).join(", ")}`);
  }
  if (call.status === "success" && runs.length === 0) t.fail("result_without_run", where);
  if (call.status === "success" && !String(call.result ?? "").includes(`ran ${tag}`))
    t.fail("result_without_run", `${where}: result ${String(call.result).slice(0, 80)}`);
  if (call.status === "blocked" && runs.length > 0) t.fail("denied_but_ran", where);
  if (!a.rec) return;
  const [conv, msg] = seg.text.split(" ").slice(1, 3) as [string, string];
  if (call.name === "soak_guarded") {
    const approved = approves(a.conversation_id, msg);
    if (approved === (call.status === "blocked"))
      t.fail(
        "decision_ignored",
        `${where}: the script ${approved ? "approved" : "denied"}, the call is ${call.status}`,
      );
  }
  if (tag.includes("-q-") && !tag.endsWith(`-q-${answerFor(conv, msg)}`))
    t.fail("decision_ignored", `${where}: the answer was ${answerFor(conv, msg)}`);
}

function checkSchedules(
  t: Tally,
  audits: Audit[],
  schedules: { rec: ScheduleRecord; view: ScheduleView | null }[],
): void {
  for (const { rec, view } of schedules) {
    if (!view) {
      t.fail("schedule_runs", `${rec.schedule_id}: gone`);
      continue;
    }
    const started = audits.flatMap((a) =>
      a.rec ? [] : a.events.filter((e) => e.type === "message_start" && e.schedule_id === rec.schedule_id),
    );
    if (started.length !== view.runs)
      t.fail("schedule_runs", `${rec.schedule_id}: ${view.runs} runs posted, ${started.length} messages started`);
  }
}
