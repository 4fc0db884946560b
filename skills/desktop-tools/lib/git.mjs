// @ts-check
// Runs git in the workspace for the git_* tools, with output made stable for an LLM to read
// (no pager, no colour, no prompts) and git's common failures mapped to exit codes.

import { failedError, notFoundError, usageError } from "./exit.mjs";
import { runCommand } from "./run-command.mjs";
import { workspaceRoot } from "./workspace.mjs";

/**
 * @param {string[]} args after `git`
 * @returns {Promise<import("./run-command.mjs").CommandResult>}
 */
export async function git(args) {
  const env = { ...process.env, GIT_PAGER: "cat", PAGER: "cat", GIT_TERMINAL_PROMPT: "0", LC_ALL: "C" };
  return runCommand("git", ["-c", "color.ui=false", "-c", "core.quotepath=false", ...args], {
    cwd: workspaceRoot(),
    env,
  });
}

/**
 * Run git and return stdout, or throw a ToolError built from git's own message.
 * @param {string[]} args
 */
export async function gitOrFail(args) {
  const result = await git(args);
  if (result.code !== 0) throw gitError(result);
  return result.stdout;
}

/** @param {import("./run-command.mjs").CommandResult} result */
export function gitError(result) {
  const message =
    (result.stderr.trim() || result.stdout.trim() || `git exited with ${result.code}`).split("\n")[0] ?? "";
  if (/not a git repository/i.test(message)) return notFoundError("the workspace is not a git repository");
  if (/unknown revision|bad revision|bad object|ambiguous argument/i.test(message)) return notFoundError(message);
  return failedError(message);
}

/**
 * Refuse revision names that git would parse as options (e.g. "--output=...").
 * @param {string} name @param {string} value
 */
export function checkRevision(name, value) {
  if (value.startsWith("-") || /\s/.test(value) || value === "")
    throw usageError(`parameter "${name}" is not a valid revision: ${JSON.stringify(value)}`);
  return value;
}
