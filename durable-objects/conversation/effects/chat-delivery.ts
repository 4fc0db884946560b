import type { RunOutput } from "@edgeloop/protocol/run-output";
import { chatThreadFor } from "../../addresses.js";
import type { DurableObjectBindings } from "../../bindings.js";

/** A reply to a chat message goes to its thread's object, which sends it on through its own outbox. */
export async function deliverToChat(
  env: Pick<DurableObjectBindings, "CHAT_THREAD">,
  threadKey: string,
  id: string,
  payload: RunOutput,
): Promise<{ ok: true } | { ok: false; retryable: boolean; error: string }> {
  try {
    await chatThreadFor(env, threadKey).deliverReply(id, payload);
    return { ok: true };
  } catch (e) {
    return { ok: false, retryable: true, error: String(e) };
  }
}
