import type { ScriptRuleInput } from "./script.js";

/** What the bundled model says first to anything it has no rule for; the README's "Models" says the same. */
export const BUNDLED_MODEL_INTRO =
  "I'm the bundled scripted model, not a real LLM; I understand: `echo: <text>`, `read <path>`, " +
  "`commits` (git log + diff); anything else runs `uname && uptime` on the device. " +
  "Configure a real model: README.md → Models, or docs/providers.md.";

/**
 * The bundled model `npm start` uses when no real LLM is configured: enough to see the whole
 * loop work (a tool runs on the device, its output comes back into the answer) without a key.
 * Rules are tried in order; the catch-all comes last.
 */
export const defaultRules: ScriptRuleInput[] = [
  // Smoke tests: "echo: hello" answers "hello", no tools.
  { match: "^\\s*echo:\\s*(.*?)\\s*$", turns: [{ content: "{{match_1}}" }] },
  {
    match: "\\bcommits?\\b|\\bgit log\\b",
    turns: [
      { content: "Let me look at the history.", tool_calls: [{ name: "git_log", arguments: { max_count: 5 } }] },
      { tool_calls: [{ name: "git_diff", arguments: { commit: "HEAD" } }] },
      { content: "Here are the latest commits and what the last one changed:\n\n{{tool_results}}" },
    ],
  },
  {
    // "read notes/todo.md", "please read /etc/hostname." (trailing punctuation is not the path)
    match: "\\bread\\s+(?:the\\s+file\\s+)?([^\\s,;!?'\"`]*[^\\s,;!?'\"`.])",
    turns: [
      { tool_calls: [{ name: "read", arguments: { path: "{{match_1}}" } }] },
      { content: "Here is {{match_1}}:\n\n{{last_tool_result}}" },
    ],
  },
  {
    // Anything else: say what is understood (it is not a real model), then show the loop anyway.
    turns: [
      {
        content: "Let me check the device.",
        tool_calls: [{ name: "bash", arguments: { command: "uname -srm && uptime" } }],
      },
      { content: `${BUNDLED_MODEL_INTRO}\n\nYour device says:\n\n{{last_tool_result}}` },
    ],
  },
];

/** Same rules, constant-style name. */
export const DEFAULT_RULES = defaultRules;
