import type { ToolOutcome } from "@edgeloop/protocol";
import { type BuiltinResult, success, toolError } from "./types.js";

/** Short ways to finish a built-in call, so each tool file reads as its logic and not plumbing. */

export function done(outcome: ToolOutcome): BuiltinResult {
  return { kind: "done", outcome };
}

export function doneText(tool: string, text: string): BuiltinResult {
  return done(success(tool, text));
}

/** Structured answers are pretty-printed JSON: models read it well and tests can parse it back. */
export function doneJson(tool: string, value: unknown): BuiltinResult {
  return done(success(tool, JSON.stringify(value, null, 2)));
}

export function doneError(tool: string, error: string, errorType?: Parameters<typeof toolError>[2]): BuiltinResult {
  return done(toolError(tool, error, errorType));
}
