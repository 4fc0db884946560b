import { Identifier } from "@edgeloop/protocol/ids";
import { ScheduleView } from "@edgeloop/protocol/schedules";
import { z } from "zod";
import { type Command, parseInput, printJson } from "../command.js";
import { EXIT, usageError } from "../exit-codes.js";
import { localTime, oneLine } from "../output/format.js";
import { renderTable } from "../output/table.js";

const synopsis =
  "schedules create (--agent <id> | --pool <name>) --text <text> (--cron <expr> [--tz <zone>] | --every <seconds> | --at <date>) [--conversation <id>] | schedules list | schedules show|delete|pause|resume <schedule_id> [--json]";

const Created = z.looseObject({ schedule_id: z.string(), next_run_at: z.string().nullable(), schedule: ScheduleView });
const List = z.looseObject({ schedules: z.array(ScheduleView) });
const Deleted = z.looseObject({ schedule_id: z.string(), deleted: z.boolean() });

const CreateFlags = z.object({
  agent: Identifier.optional(),
  pool: Identifier.optional(),
  text: z.string().min(1, "--text is required"),
  cron: z.string().optional(),
  tz: z.string().optional(),
  every: z.coerce.number().int().positive().optional(),
  at: z.string().optional(),
  conversation: Identifier.optional(),
});

/** When a schedule runs, in a few words. */
function timing(s: ScheduleView): string {
  if (s.cron) return `cron ${s.cron} (${s.timezone ?? "UTC"})`;
  if (s.every_seconds) return `every ${s.every_seconds}s`;
  return `at ${localTime(s.at ?? "")}`;
}

/** Where its runs go: a device, a fleet's devices, or a pool (all of it in fleet mode). */
const target = (s: ScheduleView): string =>
  s.agent_id ?? s.agent_ids?.join(", ") ?? `pool ${s.pool}${s.mode === "fleet" ? " (fleet)" : ""}`;

function print(s: ScheduleView): void {
  console.log(`${s.schedule_id}  ${s.state}  ${timing(s)}  → ${target(s)}`);
  console.log(`  text: ${oneLine(s.text, 120)}`);
  console.log(
    `  next run: ${s.next_run_at ? localTime(s.next_run_at) : "none"}  conversation: ${s.conversation_id ?? "new each run"}`,
  );
  console.log(`  runs ${s.runs}, skipped (overlap) ${s.skipped_overlap}, missed ${s.missed}, failures ${s.failures}`);
  if (s.last_run)
    console.log(
      `  last: ${s.last_run.outcome} for ${localTime(s.last_run.tick)}${s.last_run.conversation_id ? ` in ${s.last_run.conversation_id}` : ""}${s.last_run.error ? ` (${s.last_run.error})` : ""}`,
    );
}

/** `schedules`: messages posted on a timer, through the same front door as `send`. */
export const schedulesCommand: Command = {
  names: ["schedules"],
  synopsis,
  summary: "create, list, show, pause, resume and delete schedules",
  options: {
    agent: { type: "string" },
    pool: { type: "string" },
    text: { type: "string" },
    cron: { type: "string" },
    tz: { type: "string" },
    every: { type: "string" },
    at: { type: "string" },
    conversation: { type: "string" },
  },
  async run({ client, json, values, positionals: args }) {
    const [action, id, ...rest] = args;
    if (rest.length > 0) throw usageError(`unexpected argument '${rest[0]}'\nusage: edgeloop ${synopsis}`);
    if (action === "create") {
      const f = parseInput(CreateFlags, values, synopsis);
      const body = {
        text: f.text,
        ...(f.agent ? { agent_id: f.agent } : {}),
        ...(f.pool ? { pool: f.pool } : {}),
        ...(f.cron ? { cron: f.cron } : {}),
        ...(f.tz ? { timezone: f.tz } : {}),
        ...(f.every ? { every_seconds: f.every } : {}),
        ...(f.at ? { at: /^\d+$/.test(f.at) ? Number(f.at) : f.at } : {}),
        ...(f.conversation ? { conversation_id: f.conversation } : {}),
      };
      const created = await client.json(Created, "/v1/schedules", { method: "POST", auth: "api", body });
      if (json) printJson(created);
      else print(created.schedule);
      return EXIT.ok;
    }
    if (action === "list") {
      if (id !== undefined) throw usageError(`unexpected argument '${id}'\nusage: edgeloop ${synopsis}`);
      const list = await client.json(List, "/v1/schedules", { auth: "api" });
      if (json) printJson(list);
      else if (list.schedules.length === 0) console.log("No schedules.");
      else
        console.log(
          renderTable(
            [
              { header: "schedule", value: (s) => s.schedule_id },
              { header: "state", value: (s) => s.state },
              { header: "when", value: timing },
              { header: "next run", value: (s) => (s.next_run_at ? localTime(s.next_run_at) : "-") },
              { header: "runs", value: (s) => String(s.runs) },
              { header: "skipped", value: (s) => String(s.skipped_overlap) },
              { header: "text", value: (s) => oneLine(s.text, 40) },
            ],
            list.schedules,
          ),
        );
      return EXIT.ok;
    }
    if (!action || !["show", "delete", "pause", "resume"].includes(action))
      throw usageError(`say create, list, show, delete, pause or resume\nusage: edgeloop ${synopsis}`);
    if (!id) throw usageError(`missing <schedule_id>\nusage: edgeloop ${synopsis}`);
    const path = `/v1/schedules/${encodeURIComponent(parseInput(Identifier, id, synopsis))}`;
    if (action === "delete") {
      const res = await client.json(Deleted, path, { method: "DELETE", auth: "api" });
      if (json) printJson(res);
      else console.log(`Deleted ${res.schedule_id}.`);
      return EXIT.ok;
    }
    const s =
      action === "show"
        ? await client.json(ScheduleView, path, { auth: "api" })
        : await client.json(ScheduleView, `${path}/${action}`, { method: "POST", auth: "api", body: {} });
    if (json) printJson(s);
    else print(s);
    return EXIT.ok;
  },
};
