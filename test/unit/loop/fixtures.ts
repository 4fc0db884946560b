import type { ToolOutcome, ToolSpec } from "@edgeloop/protocol";
import type { Effect, LlmTurn } from "../../../durable-objects/conversation/core/index.js";

export function spec(
  name: string,
  props: Record<string, { type: "string" | "integer" | "boolean" }> = {},
  required: string[] = [],
): ToolSpec {
  return {
    name,
    description: `${name} tool`,
    parameters: { type: "object", properties: props, required },
    timeout_ms: 30_000,
    max_timeout_ms: 300_000,
    kind: "device",
  };
}

export const TOOLS: ToolSpec[] = [
  spec("bash", { command: { type: "string" } }, ["command"]),
  spec("read", { path: { type: "string" }, offset: { type: "integer" }, limit: { type: "integer" } }, ["path"]),
  spec("git_log", { max_count: { type: "integer" } }),
];

export function text(content: string): LlmTurn {
  return { content, toolCalls: [] };
}

export function calls(...list: [name: string, args: unknown, id?: string][]): LlmTurn {
  return {
    content: null,
    toolCalls: list.map(([name, args, id], i) => ({
      id: id ?? `call_${name}_${i}`,
      name,
      arguments: typeof args === "string" ? args : JSON.stringify(args),
    })),
  };
}

export function ok(tool: string, result: string): ToolOutcome {
  return { status: "success", tool, result, stderr: "", exit_code: 0, elapsed_ms: 5 };
}

export function fail(
  tool: string,
  error: string,
  error_type: "execution_failed" | "timeout" = "execution_failed",
): ToolOutcome {
  return { status: "error", tool, error, error_type };
}

export function only<T extends Effect["type"]>(effects: Effect[], type: T): Extract<Effect, { type: T }>[] {
  return effects.filter((e): e is Extract<Effect, { type: T }> => e.type === type);
}
