import { z } from "zod";

/**
 * The five EvoClaw error types, plus `cancelled` (a cancel command stopped the tool),
 * `unavailable` (a tool the orchestrator runs could not be reached), and the two endings the hub
 * gives a device call with no result by its deadline (docs/architecture.md#call-endings):
 * `not_sent` (the command never left edgeloop: safe to retry) and `outcome_unknown` (it reached
 * the device, or may have: it may have run). `timeout` is the device's own: it killed the tool.
 */
export const ErrorType = z.enum([
  "timeout",
  "not_found",
  "permission_denied",
  "invalid_params",
  "execution_failed",
  "cancelled",
  "unavailable",
  "not_sent",
  "outcome_unknown",
]);
export type ErrorType = z.infer<typeof ErrorType>;
