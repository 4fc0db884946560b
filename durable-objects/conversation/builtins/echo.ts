import { z } from "zod";
import { parseArgs } from "./args.js";
import { doneText } from "./outcome.js";
import type { Builtin } from "./types.js";

const NAME = "echo";

const Args = z.object({ text: z.string() });

/** Returns its input unchanged; useful for testing the loop end to end. */
export const echo: Builtin = {
  name: NAME,
  description: "Returns the given text unchanged (for testing).",
  parameters: {
    type: "object",
    properties: { text: { type: "string", description: "Text to echo back" } },
    required: ["text"],
  },
  async run(args) {
    const parsed = parseArgs(NAME, Args, args);
    if (!parsed.ok) return parsed.result;
    return doneText(NAME, parsed.value.text);
  },
};
