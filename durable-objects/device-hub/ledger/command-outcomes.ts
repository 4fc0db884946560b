import type { ToolOutcome } from "@edgeloop/protocol";
import { log } from "../../../runtime/log.js";
import { conversationFor } from "../../addresses.js";
import type { AlarmSchedule } from "../../alarm-schedule.js";
import type { DurableObjectBindings } from "../../bindings.js";
import type { AuditLog } from "../storage/audit-log.js";
import type { DeviceStore } from "../storage/device-record.js";
import type { Ledger, LedgerRow } from "./ledger.js";

/** How soon an outcome the conversation did not take is offered again. */
export const REDELIVER_MS = 5_000;

/**
 * A command's outcome, from whichever source ends it (the device's result, a cancel, an expired
 * deadline): recorded once in the ledger with its audit row, then handed to the conversation, and
 * handed again by the alarm until the conversation has taken it.
 */
export class CommandOutcomes {
  constructor(
    private readonly env: Pick<DurableObjectBindings, "CONVERSATION">,
    private readonly ledger: Ledger,
    private readonly audit: AuditLog,
    private readonly store: DeviceStore,
    private readonly alarms: AlarmSchedule,
  ) {}

  /**
   * Record the outcome once and write the audit row; false if the command already had one.
   * `endedByHub`: the hub ended it (deadline, cancel), so the device's result may still come late.
   */
  complete(row: LedgerRow, outcome: ToolOutcome, endedByHub = false): boolean {
    if (!this.ledger.complete(row.request_id, outcome, endedByHub)) return false;
    this.writeAudit(row, outcome, row.request_id);
    return true;
  }

  /**
   * A device result for a call the hub had ended (docs/architecture.md#late-results): handed to
   * the conversation first, then recorded once with its audit row. False if the conversation
   * could not be told (the device is not acknowledged, so it sends the result again) or the
   * call was not ended by the hub.
   */
  async late(row: LedgerRow, outcome: ToolOutcome): Promise<boolean> {
    if (!row.ended_by_hub || row.late) return false;
    try {
      await conversationFor(this.env, row.conversation_id).deliverLateResult(row.tool_call_id, row.request_id, outcome);
    } catch (e) {
      log("warn", "late result not delivered; the device will send it again", {
        request_id: row.request_id,
        error: String(e),
      });
      return false;
    }
    if (!this.ledger.recordLate(row.request_id)) return false;
    this.store.count("late_results");
    log("info", "late tool result kept", {
      conversation_id: row.conversation_id,
      request_id: row.request_id,
      tool: row.tool,
      status: outcome.status,
      ending: row.outcome?.status === "error" ? row.outcome.error_type : undefined,
    });
    this.writeAudit(row, outcome, `${row.request_id}.late`);
    return true;
  }

  /** Hand a finished command's outcome to its conversation; on failure the alarm tries again. */
  async deliver(row: LedgerRow): Promise<void> {
    if (!row.outcome) return;
    try {
      await conversationFor(this.env, row.conversation_id).deliverToolResult(
        row.tool_call_id,
        row.request_id,
        row.outcome,
      );
      this.ledger.markDeliveredLater(row.request_id);
    } catch (e) {
      // Left undelivered: the alarm retries until the conversation takes it.
      log("warn", "result not delivered, will retry", { request_id: row.request_id, error: String(e) });
      await this.alarms.atMost(Date.now() + REDELIVER_MS);
    }
  }

  /** The audit row of a command's outcome (`requestId` tells a late result's row from the first). */
  private writeAudit(row: LedgerRow, outcome: ToolOutcome, requestId: string): void {
    this.audit.record({
      ts: Date.now(),
      agent_id: this.store.agentId() ?? "unknown",
      tool: row.tool,
      parameters: row.frame.payload.parameters,
      outcome,
      request_id: requestId,
      conversation_id: row.conversation_id,
      approval: row.approval ?? null,
    });
  }
}
