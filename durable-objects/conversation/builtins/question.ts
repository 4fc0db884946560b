import type { ToolSpec } from "@edgeloop/protocol";
import { BUILTIN_DEFAULT_TIMEOUT_MS, BUILTIN_MAX_TIMEOUT_MS } from "./tool-specs.js";

/**
 * `question` is handled by the loop core itself (it pauses the run until the user answers), so
 * there is no Builtin for it: only the spec the model is shown. Its timeouts are placeholders;
 * how long a question waits is the core's rule, not a tool timeout.
 */
export const questionToolSpec: ToolSpec = {
  name: "question",
  description:
    "Ask the user a question and wait for the answer. Use it when you cannot continue without their input. Offer options when the answer is a choice.",
  parameters: {
    type: "object",
    properties: {
      question: { type: "string", description: "The question to ask" },
      options: { type: "array", items: { type: "string" }, description: "Suggested answers to choose from" },
    },
    required: ["question"],
  },
  timeout_ms: BUILTIN_DEFAULT_TIMEOUT_MS,
  max_timeout_ms: BUILTIN_MAX_TIMEOUT_MS,
  kind: "builtin",
};
