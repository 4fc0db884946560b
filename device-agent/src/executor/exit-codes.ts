import type { ErrorType } from "@edgeloop/protocol";

/** docs/skills.md: sysexits-style codes let a binary say what kind of failure it was. */
export const EXIT_CODE_ERRORS: Readonly<Record<number, ErrorType>> = {
  64: "invalid_params", // EX_USAGE
  66: "not_found", // EX_NOINPUT
  77: "permission_denied", // EX_NOPERM
};

export function errorTypeForExit(code: number): ErrorType {
  return EXIT_CODE_ERRORS[code] ?? "execution_failed";
}

/**
 * The `error` text: for the sysexits codes the binary's first stderr line (it writes one
 * human-readable line first); otherwise the last few lines, where a crash usually says why.
 */
export function errorMessageFromStderr(stderr: string, code: number, fallback: string): string {
  const lines = stderr
    .split("\n")
    .map((l) => l.trimEnd())
    .filter((l) => l.trim().length > 0);
  if (lines.length === 0) return fallback;
  const picked = code in EXIT_CODE_ERRORS ? lines.slice(0, 1) : lines.slice(-5);
  const text = picked.join("\n");
  return text.length > 2000 ? `${text.slice(0, 2000)}…` : text;
}
