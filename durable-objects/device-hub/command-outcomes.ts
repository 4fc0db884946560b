import type { ToolOutcome } from "@edgeloop/protocol";
import { log } from "../../runtime/log.js";
import { conversationFor } from "../addresses.js";
import type { AlarmSchedule } from "../alarm-schedule.js";
import type { DurableObjectBindings } from "../bindings.js";
import type { AuditLog } from "./audit-log.js";
import type { DeviceStore } from "./device-record.js";
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

  /** Record the outcome once and write the audit row; false if the command already had one. */
  complete(row: LedgerRow, outcome: ToolOutcome): boolean {
    if (!this.ledger.complete(row.request_id, outcome)) return false;
    this.audit.record({
      ts: Date.now(),
      agent_id: this.store.agentId() ?? "unknown",
      tool: row.tool,
      parameters: row.frame.payload.parameters,
      outcome,
      request_id: row.request_id,
      conversation_id: row.conversation_id,
      approval: row.approval ?? null,
    });
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
}
