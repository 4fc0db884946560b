import type { ToolCommandFrame } from "@edgeloop/protocol";
import type { DispatchCommand } from "../device-hub-rpc.js";

/** The frame a dispatched command goes to its device in (docs/protocol.md); kept in the ledger for redelivery. */
export function commandFrame(cmd: DispatchCommand): ToolCommandFrame {
  const { tool, parameters, timeout_ms, request_id, traceparent, image_limits } = cmd;
  const frame: ToolCommandFrame = {
    type: "command",
    command: "tool",
    request_id,
    payload: { tool, parameters, timeout_ms, request_id },
  };
  if (traceparent) frame.payload.traceparent = traceparent;
  if (image_limits) frame.payload.image_limits = image_limits;
  return frame;
}
