import type { ConversationView } from "./conversation-view.js";

/**
 * Placeholders a script may use in content and in string arguments:
 *   {{user}} {{last_tool_result}} {{tool_results}} {{tool_names}} {{match_1}}…{{match_9}}
 * Unknown placeholders stay as written, so a typo shows up in the answer.
 */
export type TemplateValues = ConversationView & { matchGroups: readonly string[] };

export function renderTemplate(text: string, values: TemplateValues): string {
  return text.replace(/\{\{\s*([a-z_0-9]+)\s*\}\}/g, (whole, name: string) => {
    switch (name) {
      case "user":
        return values.user;
      case "last_tool_result":
        return values.toolResults[values.toolResults.length - 1] ?? "";
      case "tool_results":
        return values.toolResults.join("\n---\n");
      case "tool_names":
        return values.toolNames.join(", ");
    }
    const group = /^match_([1-9])$/.exec(name);
    if (group) return values.matchGroups[Number(group[1]) - 1] ?? "";
    return whole;
  });
}

/** Strings inside argument objects are rendered; raw argument text is rendered as is. */
export function renderArguments(
  args: Record<string, unknown> | string,
  values: TemplateValues,
): Record<string, unknown> | string {
  if (typeof args === "string") return renderTemplate(args, values);
  return renderDeep(args, values) as Record<string, unknown>;
}

function renderDeep(value: unknown, values: TemplateValues): unknown {
  if (typeof value === "string") return renderTemplate(value, values);
  if (Array.isArray(value)) return value.map((v) => renderDeep(v, values));
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, renderDeep(v, values)]));
  }
  return value;
}
