import type { ChatMessage, Compaction } from "./types.js";

/**
 * What the dedicated summary call sends, and how its answer is shown to the model afterwards.
 * Pure text building: the summary message, and the request of the `compact` effect. The prompt is documented in docs/long-lived.md.
 */

/** The summary request's user message starts with this, so a scripted model can answer it. */
export const SUMMARY_REQUEST_PREFIX = "[edgeloop] Summarise the conversation so far";

/** A summary never grows past this many characters, however large the window. */
const MAX_SUMMARY_CHARS = 16_000;
/** In the transcript the summary call reads, a tool result or argument list is cut to this. */
const TOOL_TEXT_CHARS = 1_500;
const MESSAGE_TEXT_CHARS = 6_000;

export function summarySystemPrompt(maxWords: number): string {
  return [
    "You write the memory of a long-running conversation between a user and an assistant that works on the",
    "user's devices through tools. The older part of the conversation is about to be removed from the",
    "assistant's context and replaced by your summary: the summary is all the assistant will know of it.",
    "Keep: the user's goals, standing instructions and preferences; facts learned about the devices and",
    "their state (names, paths, values, versions); what was done with which tools and what came of it,",
    "errors included; decisions people made (approvals, denials, answers to questions); open tasks,",
    "promises and anything still pending. Drop small talk, repetition and raw tool output that no longer",
    `matters. Never invent anything. Plain text, at most ${maxWords} words.`,
  ].join(" ");
}

/** The longest summary kept for a window of `contextTokens`: a tenth of it, within bounds. */
export function maxSummaryChars(contextTokens: number): number {
  return Math.max(800, Math.min(MAX_SUMMARY_CHARS, Math.floor(contextTokens * 0.1 * 4)));
}

/**
 * The summary call: the previous summary and `messages[from, upto)` as a transcript. The
 * transcript is held to about half the window (tool output cut first, then the oldest lines), so
 * the summary call itself always fits.
 */
export function summaryRequest(
  messages: readonly ChatMessage[],
  from: number,
  upto: number,
  previous: string | null,
  contextTokens: number,
): ChatMessage[] {
  const lines: string[] = [];
  for (let i = from; i < upto; i++) {
    const line = transcriptLine(messages[i]!);
    if (line) lines.push(line);
  }
  const budget = Math.max(2_000, Math.floor(contextTokens * 0.5 * 4));
  let used = 0;
  let first = lines.length;
  while (first > 0 && used + lines[first - 1]!.length + 1 <= budget) used += lines[--first]!.length + 1;
  const omitted = first > 0 ? `[${first} older lines omitted: they did not fit the summary call]\n` : "";
  const words = Math.floor(maxSummaryChars(contextTokens) / 6);
  const user = [
    `${SUMMARY_REQUEST_PREFIX}, for your own memory.`,
    previous ? `\nThe summary so far:\n${previous}` : "",
    `\nThe conversation since${previous ? " that summary" : " the start"} (oldest first):\n${omitted}${lines.slice(first).join("\n")}`,
    "\nWrite the new summary: it replaces the summary so far, so keep what still matters from it.",
  ].join("\n");
  return [
    { role: "system", content: summarySystemPrompt(words) },
    { role: "user", content: user },
  ];
}

function transcriptLine(m: ChatMessage): string | null {
  switch (m.role) {
    case "system":
      return null;
    case "user":
      return `USER: ${cut(m.content, MESSAGE_TEXT_CHARS)}`;
    case "assistant": {
      const parts = m.content ? [`ASSISTANT: ${cut(m.content, MESSAGE_TEXT_CHARS)}`] : [];
      for (const c of m.tool_calls ?? [])
        parts.push(`ASSISTANT called ${c.function.name} ${cut(c.function.arguments, TOOL_TEXT_CHARS)}`);
      return parts.join("\n") || null;
    }
    case "tool":
      return `TOOL RESULT: ${cut(m.content, TOOL_TEXT_CHARS)}`;
  }
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)} […${text.length - max} characters cut]`;
}

/** The model's summary, held to its size, with the todos still open written out word for word. */
export function composeSummary(summary: string, openTodos: readonly string[], contextTokens: number): string {
  const max = maxSummaryChars(contextTokens);
  const text = summary.trim().length > max ? `${summary.trim().slice(0, max)} […]` : summary.trim();
  const todos = openTodos.length
    ? `\n\nOpen todos (from todowrite):\n${openTodos.map((t) => `- ${t}`).join("\n")}`
    : "";
  return `${text || "(the model wrote no summary)"}${todos}`;
}

/** How the summary appears in the model's view: one user message after the system prompt. */
export function summaryMessageText(c: Pick<Compaction, "summary" | "upto">): string {
  return `[edgeloop] The earlier part of this conversation was replaced by this summary to save context (the full history is kept outside your view):\n${c.summary}`;
}
