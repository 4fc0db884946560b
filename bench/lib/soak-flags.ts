/** `npm run soak`'s flags: pure, so a unit test can feed it argv. */
import { z } from "zod";
import { type FlagSpec, type FlagsOutcome, parseFlags } from "./flags.js";

export type SoakFlags = {
  quick: boolean;
  /** how long the load runs */
  minutes: number;
  /** undefined: a random seed, printed first */
  seed: number | undefined;
  /** undefined: bench/results, or bench/results/quick for --quick */
  out: string | undefined;
  keep: boolean;
  noChaos: boolean;
};

const SPECS: Record<string, FlagSpec> = {
  minutes: {
    type: "string",
    value: "N",
    schema: z.coerce
      .number()
      .positive("must be a number of minutes above 0")
      .max(24 * 60, "at most a day"),
    help: "how long the load runs (default: 10, or 1 with --quick)",
  },
  quick: { type: "boolean", help: "the test suite's short soak, about 2 minutes in all (default: off)" },
  seed: {
    type: "string",
    value: "S",
    schema: z.coerce
      .number()
      .int("must be a whole number")
      .min(0)
      .max(2 ** 31 - 1),
    help: "replay the chaos and timing of an earlier run (default: random, printed first)",
  },
  out: {
    type: "string",
    value: "DIR",
    schema: z.string().min(1, "needs a folder"),
    help: "where soak.json and soak.md go (default: bench/results, or bench/results/quick with --quick)",
  },
  keep: { type: "boolean", help: "keep the run's logs even when it passed (default: off)" },
  "no-chaos": { type: "boolean", help: "the same load without any fault, a diagnosis aid (default: off)" },
};

const SUMMARY =
  "The chaos soak: 20 device agents, conversations, approvals and schedules while parts are killed and restarted.";

export function parseSoakFlags(argv: string[]): FlagsOutcome<SoakFlags> {
  return parseFlags(argv, "npm run soak [-- flags]", SUMMARY, SPECS, (v) => {
    const quick = v.quick === true;
    return {
      quick,
      minutes: typeof v.minutes === "number" ? v.minutes : quick ? 1 : 10,
      seed: typeof v.seed === "number" ? v.seed : undefined,
      out: typeof v.out === "string" ? v.out : undefined,
      keep: v.keep === true,
      noChaos: v["no-chaos"] === true,
    };
  });
}
