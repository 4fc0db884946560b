import { z } from "zod";

/**
 * The five EvoClaw error types, plus `cancelled` (a cancel command stopped the tool) and
 * `unavailable` (the device was offline until the call's deadline).
 */
export const ErrorType = z.enum([
  "timeout",
  "not_found",
  "permission_denied",
  "invalid_params",
  "execution_failed",
  "cancelled",
  "unavailable",
]);
export type ErrorType = z.infer<typeof ErrorType>;
