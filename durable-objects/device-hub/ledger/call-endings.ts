import type { ToolOutcome } from "@edgeloop/protocol";
import type { LedgerRow } from "./ledger.js";

/**
 * How the hub ends a call that has no result by its deadline, from what it knows of the command
 * (docs/architecture.md#call-endings): never written to a live socket is `not_sent` (it did not
 * run: safe to retry); written, or taken by the device or its broker, is `outcome_unknown` (it may
 * have run). `timeout` is left to the device, which reports it when it kills the tool itself.
 */
export function endingAtDeadline(
  row: Pick<LedgerRow, "tool" | "state" | "frame">,
  offlineReason: string | null = null,
): ToolOutcome {
  const timeoutMs = row.frame.payload.timeout_ms;
  if (row.state === "queued")
    return {
      status: "error",
      tool: row.tool,
      error:
        `the command was not sent: the device was offline until the call's deadline (${timeoutMs}ms)` +
        (offlineReason ? `: ${offlineReason}` : ""),
      error_type: "not_sent",
    };
  const reached =
    row.state === "accepted"
      ? "the device took the command"
      : "the command was written to the device's connection (the device did not confirm it)";
  return {
    status: "error",
    tool: row.tool,
    error: `${reached}, but no result came back within ${timeoutMs}ms`,
    error_type: "outcome_unknown",
  };
}

/** A command that reached the device, or may have: a cancel is worth sending. */
export function mayBeOnDevice(row: Pick<LedgerRow, "state">): boolean {
  return row.state === "sent" || row.state === "accepted";
}
