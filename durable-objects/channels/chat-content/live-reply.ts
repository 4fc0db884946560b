/**
 * The message a run grows while it works: a compact line per tool call, then the answer's text
 * as it streams. Pure; the thread object decides when to send it (platform edit limits).
 */
export type ToolLine = { id: string; tool: string; agentId: string; state: "running" | "ok" | "error" };

const MARK: Record<ToolLine["state"], string> = { running: "…", ok: "✓", error: "✗" };

export function renderLive(tools: ToolLine[], text: string, maxLength: number): string {
  const lines = tools.map((t) => `\`${t.tool}\` on ${t.agentId} ${MARK[t.state]}`).join("\n");
  const body = [lines, text.trim()].filter(Boolean).join("\n\n");
  if (body.length <= maxLength) return body || "…";
  // The whole answer comes split into parts when the run ends; while it streams, its start shows.
  return `${body.slice(0, maxLength - 2)} …`;
}
