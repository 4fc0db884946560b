/** `npm run bench`'s flags: pure, so a unit test can feed it argv. */
import { z } from "zod";
import { type FlagSpec, type FlagsOutcome, parseFlags } from "./flags.js";

export type BenchFlags = {
  quick: boolean;
  /** undefined: bench/results, or bench/results/quick for --quick */
  out: string | undefined;
  /** undefined: every scenario */
  only: string[] | undefined;
  inspector: boolean;
};

const SPECS: Record<string, FlagSpec> = {
  quick: { type: "boolean", help: "small sizes, for the test suite (default: off, the full run)" },
  out: {
    type: "string",
    value: "DIR",
    schema: z.string().min(1, "needs a folder"),
    help: "where latest.json and latest.md go (default: bench/results, or bench/results/quick with --quick)",
  },
  only: {
    type: "string",
    value: "ID,ID",
    schema: z.string().min(1, "needs scenario ids"),
    help: "run only these scenarios (default: all)",
  },
  inspector: {
    type: "boolean",
    help: "run the workers under `wrangler dev` with its DevTools inspector (default: off)",
  },
};

export function parseBenchFlags(argv: string[], scenarioIds: readonly string[]): FlagsOutcome<BenchFlags> {
  const summary = `Every scenario against the floor of the same machine. Scenarios: ${scenarioIds.join(", ")}.`;
  return parseFlags(argv, "npm run bench [-- flags]", summary, SPECS, (v) => {
    const only = typeof v.only === "string" ? v.only.split(",").map((id) => id.trim()) : undefined;
    const unknown = only?.filter((id) => !scenarioIds.includes(id)) ?? [];
    if (unknown.length > 0) return `--only: unknown scenario ${unknown.map((id) => `'${id}'`).join(", ")}`;
    return {
      quick: v.quick === true,
      out: typeof v.out === "string" ? v.out : undefined,
      only,
      inspector: v.inspector === true,
    };
  });
}
