/**
 * Flags of the bench's own commands (`npm run bench`, `npm run soak`), checked like every other
 * command's: `node:util` parseArgs in strict mode finds unknown flags and missing values, zod
 * checks each value. Pure: takes argv, returns flags, usage or an error naming the flag.
 */
import { parseArgs } from "node:util";
import type { z } from "zod";

export type FlagSpec = {
  type: "string" | "boolean";
  /** the value's shape (strings only); its error names the flag */
  schema?: z.ZodType;
  /** one line for --help, default included */
  help: string;
  /** what --help shows as the value, e.g. DIR */
  value?: string;
};

export type FlagsOutcome<T> =
  | { kind: "run"; flags: T }
  | { kind: "help"; text: string }
  | { kind: "error"; message: string };

/** Exit code for a usage error, as the CLI's. */
export const EXIT_USAGE = 2;

export function usageText(command: string, summary: string, specs: Record<string, FlagSpec>): string {
  const rows = Object.entries(specs).map(([name, s]) => [`--${name}${s.value ? ` ${s.value}` : ""}`, s.help] as const);
  const width = Math.max(...rows.map(([left]) => left.length), "--help".length);
  return [
    `usage: ${command}`,
    `  ${summary}`,
    "",
    ...rows.map(([left, help]) => `  ${left.padEnd(width)}  ${help}`),
    `  ${"--help".padEnd(width)}  print this and exit`,
    "",
  ].join("\n");
}

/**
 * Parses argv against specs; values (booleans as given, strings as their schema made them, absent
 * flags left out) go to `build`, which applies defaults and may reject combinations with a message.
 */
export function parseFlags<T>(
  argv: string[],
  command: string,
  summary: string,
  specs: Record<string, FlagSpec>,
  build: (values: Record<string, unknown>) => T | string,
): FlagsOutcome<T> {
  const usage = usageText(command, summary, specs);
  let values: Record<string, unknown>;
  try {
    const options = Object.fromEntries(Object.entries(specs).map(([name, s]) => [name, { type: s.type }]));
    values = parseArgs({
      args: argv,
      options: { ...options, help: { type: "boolean", short: "h" } },
      strict: true,
      allowPositionals: false,
    }).values as Record<string, unknown>;
  } catch (e) {
    return { kind: "error", message: `${(e as Error).message}\n\n${usage}` };
  }
  if (values.help === true) return { kind: "help", text: usage };
  for (const [name, spec] of Object.entries(specs)) {
    const raw = values[name];
    if (spec.schema === undefined || raw === undefined) continue;
    const checked = spec.schema.safeParse(raw);
    if (!checked.success) {
      const why = checked.error.issues.map((i) => i.message).join("; ");
      return { kind: "error", message: `--${name} ${JSON.stringify(raw)}: ${why}\n\n${usage}` };
    }
    values[name] = checked.data;
  }
  const built = build(values);
  if (typeof built === "string") return { kind: "error", message: `${built}\n\n${usage}` };
  return { kind: "run", flags: built };
}

/**
 * What a command's entry point does with the outcome: usage to stdout and exit 0, an error to
 * stderr and exit 2, or the flags to run with.
 */
export function flagsOrExit<T>(outcome: FlagsOutcome<T>, name: string): T {
  if (outcome.kind === "run") return outcome.flags;
  if (outcome.kind === "help") {
    process.stdout.write(outcome.text);
    process.exit(0);
  }
  process.stderr.write(`${name}: ${outcome.message}`);
  process.exit(EXIT_USAGE);
}
