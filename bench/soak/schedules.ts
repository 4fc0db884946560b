/**
 * The soak's schedules: a few `every_seconds` schedules, each posting a one-round tool message to
 * a new conversation on its device. Made before the chaos starts (creating one is not idempotent,
 * so it is not retried blindly), paused when the load stops; the checks then find every
 * conversation a schedule started and hold it to the same rules as the others.
 */
import type { SoakApi } from "./api-client.js";
import { scheduleText } from "./model-script.js";

export type ScheduleView = {
  schedule_id: string;
  agent_id: string;
  state: string;
  runs: number;
  skipped_overlap: number;
  missed: number;
  failures: number;
  last_run: { outcome: string; error: string | null } | null;
};

export type ScheduleRecord = { name: string; schedule_id: string; agent_id: string; every_seconds: number };

export async function createSchedules(api: SoakApi, agents: string[], everySeconds: number): Promise<ScheduleRecord[]> {
  const out: ScheduleRecord[] = [];
  for (const [i, agent_id] of agents.entries()) {
    const name = `s${i + 1}`;
    const a = await api.request("POST", "/v1/schedules", {
      agent_id,
      text: scheduleText(name),
      every_seconds: everySeconds,
    });
    if (a.status !== 201) throw new Error(`POST /v1/schedules answered ${a.status}: ${JSON.stringify(a.body)}`);
    const { schedule_id } = a.body as { schedule_id: string };
    out.push({ name, schedule_id, agent_id, every_seconds: everySeconds });
  }
  return out;
}

export async function pauseSchedules(api: SoakApi, schedules: ScheduleRecord[]): Promise<void> {
  for (const s of schedules) {
    const a = await api.request("POST", `/v1/schedules/${s.schedule_id}/pause`);
    if (a.status !== 200) throw new Error(`pause ${s.schedule_id} answered ${a.status}: ${JSON.stringify(a.body)}`);
  }
}

/** Conversations on the schedules' devices that the workload did not start: the schedules' runs. */
export async function scheduledConversations(
  api: SoakApi,
  schedules: ScheduleRecord[],
  known: Set<string>,
): Promise<{ conversation_id: string; agent_id: string }[]> {
  const found = new Map<string, string>();
  for (const agent of new Set(schedules.map((s) => s.agent_id))) {
    const body = await api.get<{ conversations: { conversation_id: string; agent_id: string }[] }>(
      `/v1/conversations?agent_id=${agent}&limit=1000`,
    );
    for (const c of body?.conversations ?? []) if (!known.has(c.conversation_id)) found.set(c.conversation_id, agent);
  }
  return [...found].map(([conversation_id, agent_id]) => ({ conversation_id, agent_id }));
}
