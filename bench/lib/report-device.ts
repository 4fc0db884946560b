import { HubFrame, PROTOCOL_VERSION, parseJson } from "@edgeloop/protocol";
import type { ContentBlock } from "@edgeloop/protocol/content-blocks";
import WebSocket from "ws";
import type { ScriptRuleInput } from "../../scripted-llm/script.js";
import { ADMIN_TOKEN } from "../../test/helpers/local-worker.js";
import { waitUntil } from "../../test/helpers/wait.js";

/** What the device answers its `n`-th command with (from 1): the result text and any content blocks. */
/**
 * The scripted model of the long-conversation scenarios: each `turn N` message calls the device's
 * `report` tool once, and a compaction's summary request gets a short summary.
 */
export const REPORT_TURN_RULES: ScriptRuleInput[] = [
  {
    match: "^\\[edgeloop\\] Summarise",
    turns: [{ content: "Summary: the user asked for a disk report each turn; each came back 4 KB." }],
  },
  {
    match: "^turn (\\d+)",
    turns: [{ tool_calls: [{ name: "report", arguments: {} }] }, { content: "ok {{match_1}}" }],
  },
];

export type ReportAnswer = (n: number) => { result: string; content?: ContentBlock[] };

/**
 * A device with one tool, `report`, that answers every command at once (the long-conversation
 * scenarios' device: the cost under test is the conversation's, not a tool's).
 */
export async function connectReportDevice(
  url: string,
  agentId: string,
  token: string,
  answer: ReportAnswer,
): Promise<WebSocket> {
  const ws = new WebSocket(`${url.replace(/^http/, "ws")}/v1/devices/${agentId}/connect`, {
    headers: { authorization: `Bearer ${token}` },
    perMessageDeflate: false,
  });
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  let commands = 0;
  ws.on("message", (data) => {
    const frame = parseJson(HubFrame, data.toString());
    if (!frame.ok || frame.value.type !== "command" || frame.value.command !== "tool") return;
    const { request_id } = frame.value;
    const { result, content } = answer(++commands);
    ws.send(
      JSON.stringify({
        type: "result",
        request_id,
        status: "success",
        tool: "report",
        result,
        stderr: "",
        exit_code: 0,
        elapsed_ms: 1,
        ...(content ? { content } : {}),
      }),
    );
  });
  const tool = {
    name: "report",
    description: "A 4 KB disk report.",
    binary: "bin/report",
    category: "other",
    timeout_ms: 10_000,
    max_timeout_ms: 60_000,
    permissions: [],
    sandboxing: "none",
    requires: [],
    parameters: { type: "object", properties: {}, required: [] },
  };
  ws.send(
    JSON.stringify({
      type: "hello",
      protocol: PROTOCOL_VERSION,
      agent_id: agentId,
      version: "bench-report",
      capabilities: [],
      held: [],
      filtered: [],
      skills: [{ name: "bench-report", version: "1.0.0", tools: [tool] }],
    }),
  );
  await waitUntil(
    () =>
      fetch(`${url}/v1/devices/${agentId}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }).then(
        (r) => r.json() as Promise<{ online: boolean; skills?: unknown[] }>,
      ),
    (v) => v.online === true && (v.skills?.length ?? 0) > 0,
    { timeoutMs: 30_000, what: `the report device ${agentId} online` },
  );
  return ws;
}
