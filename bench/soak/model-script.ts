/**
 * What the scripted model answers in the soak. A message's text names its conversation, its
 * number and its kind (`soak <conv> <msg> <kind>`); the model answers with rounds of tool calls
 * whose `tag` is unique to the call (conversation, message, round, position), then a text reply.
 * The tags are how the checks match a call in the history to the runs in the tools' journals.
 */
import type { ScriptRuleInput } from "../../scripted-llm/script.js";

export const MESSAGE_KINDS = ["tools-a", "tools-b", "approve", "question"] as const;
export type MessageKind = (typeof MESSAGE_KINDS)[number];

export const messageText = (conv: string, msg: string, kind: MessageKind) => `soak ${conv} ${msg} ${kind}`;
export const scheduleText = (scheduleName: string) => `soak-sched ${scheduleName} run`;
/** The person's answer to the question a `question` message asks: tag-safe, and checked in the reply. */
export const answerFor = (conv: string, msg: string) => `ans-${conv}-${msg}`;
export const finalReply = (conv: string, msg: string) => `done ${conv} ${msg}`;

const step = (tag: string, ms: number, name = "soak_step") => ({ name, arguments: { tag, ms } });
const t = (suffix: string) => `{{match_1}}-{{match_2}}-${suffix}`;
const done = { content: "done {{match_1}} {{match_2}}\n{{tool_results}}" };

export const SOAK_RULES: ScriptRuleInput[] = [
  {
    match: "^soak (\\S+) (\\S+) tools-a$",
    turns: [
      { tool_calls: [step(t("r1-0"), 300), step(t("r1-1"), 900)] },
      { tool_calls: [step(t("r2-0"), 1500)] },
      { tool_calls: [step(t("r3-0"), 100), step(t("r3-1"), 400), step(t("r3-2"), 1200)] },
      done,
    ],
  },
  {
    match: "^soak (\\S+) (\\S+) tools-b$",
    turns: [
      { tool_calls: [step(t("r1-0"), 200)] },
      { tool_calls: [step(t("r2-0"), 700), step(t("r2-1"), 2500)] },
      done,
    ],
  },
  {
    match: "^soak (\\S+) (\\S+) approve$",
    turns: [{ tool_calls: [step(t("g"), 400, "soak_guarded"), step(t("s"), 300)] }, done],
  },
  {
    match: "^soak (\\S+) (\\S+) question$",
    turns: [
      { tool_calls: [{ name: "question", arguments: { question: "Which one, for {{match_1}} {{match_2}}?" } }] },
      { tool_calls: [step(t("q-{{last_tool_result}}"), 300)] },
      done,
    ],
  },
  {
    match: "^soak-sched (\\S+) run$",
    turns: [{ tool_calls: [step("sched-{{match_1}}", 300)] }, { content: "scheduled {{match_1}} done" }],
  },
];
