/**
 * After the drain: what is stored for each conversation (its view and its whole event stream),
 * for the workload's conversations and the ones the schedules started; read a few at a time.
 */
import { readWholeHistory } from "@edgeloop/protocol/history-page";
import type { SoakApi } from "./api-client.js";
import type { Audit } from "./checks.js";
import { readAllEvents } from "./event-follower.js";
import type { ConversationView } from "./history.js";
import type { ConversationRecord } from "./workload.js";

export async function collectAudits(
  api: SoakApi,
  workload: ConversationRecord[],
  scheduled: { conversation_id: string; agent_id: string }[],
): Promise<Audit[]> {
  const todo: Omit<Audit, "view" | "events">[] = [
    ...workload.map((rec) => ({ conversation_id: rec.conversation_id, agent_id: rec.agent_id, rec })),
    ...scheduled.map((s) => ({ ...s, rec: null })),
  ];
  const out: Audit[] = [];
  const next = async (): Promise<void> => {
    for (let item = todo.shift(); item; item = todo.shift()) {
      const view = await readWholeHistory((query) =>
        api.get<ConversationView>(`/v1/conversations/${item.conversation_id}${query}`),
      );
      const events = view
        ? await readAllEvents(
            api.url,
            item.conversation_id,
            1_000,
            item.rec?.follower ? item.rec.follower.lastSeq : undefined,
          )
        : [];
      out.push({ ...item, view, events });
    }
  };
  await Promise.all(Array.from({ length: 12 }, next));
  return out;
}
