import type { Logger } from "@edgeloop/edge-client/log";
import { ResultFrame } from "@edgeloop/protocol";
import type { ReportOutcome } from "@edgeloop/protocol/mqtt-payloads";
import type { DeviceState, Outstanding } from "./device-state.js";
import type { BridgeStats } from "./stats.js";

/**
 * The outstanding command a device's report answers, and the report as the hub's `result` frame
 * (with the command's tool name); null for a repeat or a report for no command of ours, counted
 * and logged. A report without a request id is matched to the oldest outstanding command for its
 * tool: a guess, said so.
 */
export function matchReport(
  agentId: string,
  state: DeviceState,
  deps: { log: Logger; stats: BridgeStats },
  requestId: string | undefined,
  tool: string | undefined,
  outcome: ReportOutcome,
): { cmd: Outstanding; result: ResultFrame } | null {
  const match = state.match(requestId, tool);
  if (!match.found) {
    if (match.duplicate) {
      deps.stats.duplicateReports++;
      deps.log.info("duplicate report dropped", { agent_id: agentId, request_id: requestId });
    } else {
      // Another orchestrator on the same broker, or a command long expired: not ours to deliver.
      deps.stats.unmatchedReports++;
      deps.log.debug("report for no command of ours ignored", {
        agent_id: agentId,
        request_id: requestId,
        tool,
      });
    }
    return null;
  }
  const cmd = match.found;
  if (match.guessed) {
    deps.stats.guessedReports++;
    deps.log.warn("report without request_id: matched to the oldest outstanding command (a guess)", {
      agent_id: agentId,
      request_id: cmd.request_id,
      tool: cmd.tool,
    });
  }
  if (tool !== undefined && tool !== cmd.tool) {
    deps.log.warn("report names another tool than its command; using the command's", {
      agent_id: agentId,
      request_id: cmd.request_id,
      report_tool: tool,
      tool: cmd.tool,
    });
  }
  let parsed = ResultFrame.safeParse({ ...outcome, type: "result", request_id: cmd.request_id, tool: cmd.tool });
  if (!parsed.success) {
    // Still an answer: the call must not hang because the device wrote something odd.
    deps.stats.badPayloads++;
    deps.log.warn("bad report payload ignored", { agent_id: agentId, error: parsed.error.issues[0]?.message });
    parsed = ResultFrame.safeParse({
      type: "result",
      request_id: cmd.request_id,
      tool: cmd.tool,
      status: "error",
      error: "the device's report could not be read",
      error_type: "execution_failed",
    });
  }
  const result = parsed.data!;
  return { cmd, result };
}
