// @ts-check
// Exit codes and failure reporting, per docs/skills.md: sysexits codes tell the agent which
// error_type to report, and the first stderr line becomes the error message the LLM sees.

export const EX_OK = 0;
export const EX_FAILED = 1;
export const EX_USAGE = 64;
export const EX_NOINPUT = 66;
export const EX_NOPERM = 77;

/** A failure a tool expects and can explain: its message is shown to the LLM as-is. */
export class ToolError extends Error {
  /** @param {number} code @param {string} message */
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

/** @param {string} message */
export const usageError = (message) => new ToolError(EX_USAGE, message);
/** @param {string} message */
export const notFoundError = (message) => new ToolError(EX_NOINPUT, message);
/** @param {string} message */
export const permissionError = (message) => new ToolError(EX_NOPERM, message);
/** @param {string} message */
export const failedError = (message) => new ToolError(EX_FAILED, message);

/**
 * Run a tool's main function and turn its outcome into stdout + exit code. Unexpected exceptions
 * exit 1 with their message so the agent still gets a one-line error, not a stack trace first.
 * @param {() => Promise<string | void>} main resolves to the result text
 */
export async function runTool(main) {
  try {
    const text = await main();
    if (typeof text === "string") await writeStdout(text.endsWith("\n") || text === "" ? text : `${text}\n`);
    process.exitCode = EX_OK;
  } catch (err) {
    if (err instanceof ToolError) {
      // An empty message means the failing program already wrote its own stderr (bash).
      if (err.message) process.stderr.write(`${oneLine(err.message)}\n`);
      process.exitCode = err.code;
    } else {
      const message = err instanceof Error ? err.message : String(err);
      process.stderr.write(`${oneLine(message)}\n`);
      if (process.env.EDGELOOP_DEBUG && err instanceof Error && err.stack) process.stderr.write(`${err.stack}\n`);
      process.exitCode = EX_FAILED;
    }
  }
}

/** @param {string} message */
function oneLine(message) {
  return message.replace(/\s*\n\s*/g, " ").trim() || "failed";
}

/**
 * Large results must be fully flushed before exit; a pipe write can be partial.
 * @param {string} text
 */
export function writeStdout(text) {
  return new Promise((resolve, reject) => {
    process.stdout.write(text, (err) => (err ? reject(err) : resolve(undefined)));
  });
}
