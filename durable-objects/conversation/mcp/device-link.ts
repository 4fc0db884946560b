import { hubFor } from "../../addresses.js";
import type { DurableObjectBindings } from "../../bindings.js";
import type { LoopState } from "../core/index.js";
import type { DeviceLink } from "./server-questions.js";

/**
 * How a conversation's device server questions reach their device: the answer through the
 * device's hub (the one the question came from), and a question's life tied to its call, which
 * must still be running in the current round.
 */
export function deviceLink(env: Pick<DurableObjectBindings, "DEVICE_HUB">, state: () => LoopState | null): DeviceLink {
  return {
    isRunning: (toolCallId) =>
      state()?.run?.round?.some((c) => c.id === toolCallId && c.state === "dispatched") ?? false,
    toDevice: (device, reply) =>
      hubFor(env, device.agent_id).answerElicitation(device.request_id, device.elicitation_id, reply),
  };
}
