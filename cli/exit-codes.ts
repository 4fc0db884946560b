/** Exit codes a script can act on. Documented in docs/operations.md; keep them stable. */
export const EXIT = {
  ok: 0,
  /** the operation failed: server error, unreachable worker, a conversation that failed, a conflict */
  failure: 1,
  /** bad flags, arguments or config — nothing was sent, or the server said the input was invalid */
  usage: 2,
  not_found: 3,
  /** missing, wrong or insufficient token */
  auth: 4,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** An error that knows how the process should exit. Anything else thrown exits 1. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode,
  ) {
    super(message);
  }
}

export const usageError = (message: string) => new CliError(message, EXIT.usage);
