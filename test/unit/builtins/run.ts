// Runs a built-in and unwraps its outcome, failing loudly when the result is not what the test expects.

import type { ToolOutcome } from "@edgeloop/protocol";
import type { Builtin, BuiltinContext } from "../../../durable-objects/conversation/builtins/types.js";

export async function outcomeOf(
  builtin: Builtin,
  args: Record<string, unknown>,
  ctx: BuiltinContext,
): Promise<ToolOutcome> {
  const result = await builtin.run(args, ctx);
  if (result.kind !== "done") throw new Error(`${builtin.name} returned ${result.kind}, expected done`);
  return result.outcome;
}

export async function successText(
  builtin: Builtin,
  args: Record<string, unknown>,
  ctx: BuiltinContext,
): Promise<string> {
  const outcome = await outcomeOf(builtin, args, ctx);
  if (outcome.status !== "success") throw new Error(`${builtin.name} failed: ${outcome.error_type}: ${outcome.error}`);
  return outcome.result;
}

export async function successJson<T = unknown>(
  builtin: Builtin,
  args: Record<string, unknown>,
  ctx: BuiltinContext,
): Promise<T> {
  return JSON.parse(await successText(builtin, args, ctx)) as T;
}

export async function errorOf(
  builtin: Builtin,
  args: Record<string, unknown>,
  ctx: BuiltinContext,
): Promise<{ error: string; error_type: string }> {
  const outcome = await outcomeOf(builtin, args, ctx);
  if (outcome.status !== "error") throw new Error(`${builtin.name} succeeded, expected an error: ${outcome.result}`);
  return { error: outcome.error, error_type: outcome.error_type };
}
