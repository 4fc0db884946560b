/**
 * Where a device tool call's runtime time goes, from a DevTools CPU profile of the worker
 * (bench/profile-cpu.ts): each sample goes to the part of the innermost function on its stack that
 * names one (a model call runs inside a conversation's step and the step's commit inside the model
 * call's answer, a frame's parse inside the hub's handler). The parts are the issue's: front door and intake,
 * conversation step and commit, model call, hub dispatch and result, socket frames. SQLite's own
 * time (`exec`, the runtime's native code) is counted in the part that ran the statement, and
 * reported beside it.
 */
export type ProfileNode = {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
};
export type CpuProfile = { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };

/** `within`: counts only when one of these is on the stack too; `root`: also when the outermost frame is one of these. */
export const PARTS: { part: string; on: RegExp; within?: RegExp; root?: RegExp }[] = [
  {
    part: "model call (request, streamed answer, provider SDK)",
    on: /^(performModelCall|callLlm|byProvider|callOpenAi|callAnthropic|streamTurn\d*|iterSSEChunks|_iterSSEMessages\d*|readStream|makeRequest|buildRequest|fetchWithAuth|fetchWithTimeout)$/,
  },
  {
    part: "socket frames (parse, send)",
    on: /^(parseDeviceFrame|parseJsonPreferring|noteFrame|send)$/,
    within: /^(webSocketMessage|dispatchBatch|dispatch)$/,
  },
  {
    part: "hub: dispatch and result",
    on: /^(webSocketMessage|webSocketClose|dispatchBatch|dispatch|getSkills|isKnown|cancel|onResult|onProgress|deliver|touch)$/,
  },
  // `record` is also the hub's audit write (inside onResult), so only an entry of its own counts.
  { part: "metrics shards", on: /^(upsertConversation|runs|conversations)$/, root: /^record$/ },
  {
    part: "front door and intake (worker, limiters, routing)",
    on: /^(acceptMessage|admit|admitAgent|takeToken|routeMessage|fetch|__facade_invoke__|__facade_invokeChain__|dispatch2|compose)$/,
  },
  {
    part: "conversation: step and commit",
    on: /^(postMessage|deliverToolResult|waitForReply|commitStep|apply|advance|performOne|performAll|finishOutbox|settle|saveState|loadState|scheduleAlarm|nextDeadline|messageTools|messageDeviceTools|alarm|ConversationDO|ConversationStore)$/,
  },
];
export const RUNTIME = "runtime outside JS (program, GC)";
export const OTHER = "other JS";
const SQLITE = /^exec$/;

/** The part of the innermost frame (leaf first) that names one; a socket-frame function counts only in the hub. */
function partOf(stack: string[]): string {
  const outermost = stack.filter((f) => f !== "(root)").at(-1) ?? "";
  const root = PARTS.find((p) => p.root?.test(outermost));
  if (root) return root.part;
  for (const f of stack)
    for (const p of PARTS) if (p.on.test(f) && (!p.within || stack.some((g) => p.within!.test(g)))) return p.part;
  return OTHER;
}

export type Breakdown = { total_ms: number; idle_ms: number; parts: { part: string; ms: number; sqlite_ms: number }[] };

export function breakdown(profile: CpuProfile): Breakdown {
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  for (const [i, id] of profile.samples.entries())
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  const parts = new Map<string, { ms: number; sqlite_ms: number }>();
  let total = 0;
  let idle = 0;
  for (const [id, ms] of self) {
    total += ms;
    const stack: string[] = [];
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur))
      stack.push(byId.get(cur)?.callFrame.functionName ?? "");
    const leaf = stack[0] ?? "";
    if (leaf === "(idle)") {
      idle += ms;
      continue;
    }
    const part = leaf === "(program)" || leaf === "(garbage collector)" ? RUNTIME : partOf(stack);
    const t = parts.get(part) ?? { ms: 0, sqlite_ms: 0 };
    parts.set(part, t);
    t.ms += ms;
    if (SQLITE.test(leaf)) t.sqlite_ms += ms;
  }
  const order = [...PARTS.map((p) => p.part), OTHER, RUNTIME];
  return {
    total_ms: total,
    idle_ms: idle,
    parts: order.filter((p) => parts.has(p)).map((part) => ({ part, ...parts.get(part)! })),
  };
}
