import type { ToolSpec } from "@edgeloop/protocol";
import type { Builtin } from "./types.js";

/** Timeouts for orchestrator tools, like a device's quick non-shell tools. */
export const BUILTIN_DEFAULT_TIMEOUT_MS = 10_000;
export const BUILTIN_MAX_TIMEOUT_MS = 60_000;

/** How the loop sees built-ins: same ToolSpec as device tools, kind "builtin", no evoclaw metadata. */
export function builtinToolSpecs(builtins: Builtin[]): ToolSpec[] {
  return builtins.map((b) => {
    const timeout_ms = b.timeout_ms ?? BUILTIN_DEFAULT_TIMEOUT_MS;
    return {
      name: b.name,
      description: b.description,
      parameters: b.parameters,
      timeout_ms,
      max_timeout_ms: Math.max(timeout_ms, BUILTIN_MAX_TIMEOUT_MS),
      kind: "builtin",
    };
  });
}
