import type { ParseArgsConfig } from "node:util";
import { z } from "zod";
import type { ApiClient } from "./api-client.js";
import { type ExitCode, usageError } from "./exit-codes.js";
import { parseSince } from "./output/format.js";
import type { Settings } from "./settings.js";

export type CommandInput = { values: Record<string, unknown>; positionals: string[] };
/** `name` is the name the command was invoked by (approve and deny share one command). */
export type CommandContext = CommandInput & { name: string; client: ApiClient; settings: Settings; json: boolean };

export type Command = {
  /** one name, or several for commands that share code (approve / deny) */
  names: string[];
  synopsis: string;
  summary: string;
  options: NonNullable<ParseArgsConfig["options"]>;
  run: (ctx: CommandContext) => Promise<ExitCode>;
};

/** Flags every command takes. */
export const GLOBAL_OPTIONS = {
  url: { type: "string" },
  token: { type: "string" },
  "admin-token": { type: "string" },
  config: { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const satisfies NonNullable<ParseArgsConfig["options"]>;

/** `--since`, as `logs` and `metrics` take it: a time in unix ms. */
export const SinceFlag = z.string().transform((s, ctx) => {
  const at = parseSince(s);
  if (at === null) {
    ctx.addIssue({ code: "custom", message: "an ISO date, unix ms, or like 30m, 2h, 7d" });
    return z.NEVER;
  }
  return at;
});

/** Validate a command's flags and arguments with its zod schema; a failure is a usage error (exit 2). */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, synopsis: string): z.infer<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const where = issue.path.length
    ? `${issue.path[0] === "values" ? "--" : ""}${issue.path.slice(issue.path[0] === "values" || issue.path[0] === "positionals" ? 1 : 0).join(".")}: `
    : "";
  throw usageError(`${where}${issue.message}\nusage: edgeloop ${synopsis}`);
}

/** Exactly these positional arguments (the last may be optional when `optional` says so). */
export function positionals(given: string[], names: string[], synopsis: string, optional = 0): string[] {
  const required = names.length - optional;
  if (given.length < required) throw usageError(`missing <${names[given.length]}>\nusage: edgeloop ${synopsis}`);
  if (given.length > names.length)
    throw usageError(`unexpected argument '${given[names.length]}'\nusage: edgeloop ${synopsis}`);
  return given;
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
