import { setTimeout as sleep } from "node:timers/promises";
import { Identifier, ToolName } from "@edgeloop/protocol/ids";
import { z } from "zod";
import type { ApiClient } from "../api-client.js";
import { type AuditEntry, AuditPage } from "../api-schemas.js";
import { type Command, parseInput, positionals, printJson, SinceFlag } from "../command.js";
import { EXIT } from "../exit-codes.js";
import { duration, localTime, oneLine } from "../output/format.js";
import { renderTable } from "../output/table.js";

const Flags = z.object({
  filter: ToolName.optional(),
  agent: Identifier.optional(),
  since: SinceFlag.optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(50),
  follow: z.boolean().optional(),
  interval: z.coerce.number().min(0.5).max(300).default(2),
});
type Flags = z.infer<typeof Flags>;

/**
 * The audit log: every finished tool call, from each device's hub. `--follow` polls the audit
 * endpoint (every --interval seconds) rather than a conversation's SSE stream: the audit spans
 * every device and conversation, and there is no global event stream to subscribe to.
 */
export const logsCommand: Command = {
  names: ["logs"],
  synopsis: "logs [--filter tool] [--agent id] [--since 1h] [--limit n] [--follow [--interval s]] [--json]",
  summary: "the audit log of tool calls; --follow keeps printing new ones",
  options: {
    filter: { type: "string" },
    agent: { type: "string" },
    since: { type: "string" },
    limit: { type: "string" },
    follow: { type: "boolean" },
    interval: { type: "string" },
  },
  async run({ client, json, values, positionals: args }) {
    positionals(args, [], this.synopsis);
    const flags = parseInput(Flags, values, this.synopsis);
    const first = (await fetchEntries(client, flags, flags.since)).reverse(); // oldest first, like a log
    if (!flags.follow) {
      if (json) printJson({ entries: first });
      else if (first.length === 0) console.log("No tool calls in the audit log for that filter.");
      else console.log(renderTable(COLUMNS, first));
      return EXIT.ok;
    }
    const seen = new Set<string>();
    let since = flags.since ?? Date.now();
    const emit = (rows: AuditEntry[]) => {
      for (const e of rows) {
        const key = `${e.request_id}|${e.timestamp}`;
        if (seen.has(key)) continue;
        seen.add(key);
        since = Math.max(since, Date.parse(e.timestamp));
        process.stdout.write(json ? `${JSON.stringify(e)}\n` : `${line(e)}\n`);
      }
    };
    emit(first);
    const stop = new AbortController();
    process.once("SIGINT", () => stop.abort());
    process.once("SIGTERM", () => stop.abort());
    while (!stop.signal.aborted) {
      await sleep(flags.interval * 1000, undefined, { signal: stop.signal }).catch(() => undefined);
      if (stop.signal.aborted) break;
      // `since` is inclusive; rows already printed are skipped by their key.
      emit((await fetchEntries(client, { ...flags, limit: 1000 }, since)).reverse());
    }
    return EXIT.ok;
  },
};

async function fetchEntries(client: ApiClient, flags: Flags, since: number | undefined): Promise<AuditEntry[]> {
  const q = new URLSearchParams({ limit: String(flags.limit) });
  if (flags.agent) q.set("agent_id", flags.agent);
  if (flags.filter) q.set("tool", flags.filter);
  if (since !== undefined) q.set("since", String(since));
  return (await client.json(AuditPage, `/v1/audit?${q}`, { auth: "admin" })).entries;
}

const outcome = (e: AuditEntry) => (e.result === "success" ? "ok" : (e.error_type ?? "error"));

const COLUMNS = [
  { header: "time", value: (e: AuditEntry) => localTime(e.timestamp) },
  { header: "agent", value: (e: AuditEntry) => e.agent_id },
  { header: "tool", value: (e: AuditEntry) => e.tool },
  { header: "result", value: outcome },
  { header: "took", value: (e: AuditEntry) => duration(e.elapsed_ms), align: "right" as const },
  { header: "conversation", value: (e: AuditEntry) => e.conversation_id ?? "-", min: 12 },
  { header: "parameters", value: (e: AuditEntry) => oneLine(e.parameters), flex: true },
];

function line(e: AuditEntry): string {
  return `${localTime(e.timestamp)}  ${e.agent_id}  ${e.tool}  ${outcome(e)}  ${duration(e.elapsed_ms)}  ${e.conversation_id ?? "-"}  ${oneLine(e.parameters, 160)}`;
}
