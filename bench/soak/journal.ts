/**
 * The tools' own journals (`soak-journal.jsonl` in each agent's workspace, written by
 * bench/fixtures/soak-tools/bin/soak-step): every run of every call, as the device saw it.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

export type JournalRun = {
  agent_id: string;
  tag: string;
  request_id: string;
  tool: string;
  pid: number;
  started_at: number;
  ended_at: number | null;
};

export type Journals = {
  runs: JournalRun[];
  byRequest: Map<string, JournalRun[]>;
  byTag: Map<string, JournalRun[]>;
  /** lines that did not parse (there should be none: each line is one small append) */
  badLines: number;
};

export function readJournals(agents: { id: string; workspace: string }[]): Journals {
  const runs: JournalRun[] = [];
  let badLines = 0;
  for (const a of agents) {
    const file = join(a.workspace, "soak-journal.jsonl");
    if (!existsSync(file)) continue;
    const open = new Map<number, JournalRun>();
    for (const line of readFileSync(file, "utf8").split("\n")) {
      if (line.trim() === "") continue;
      let e: { ev: string; tag: string; request_id: string; tool: string; pid: number; at: number };
      try {
        e = JSON.parse(line);
      } catch {
        badLines++;
        continue;
      }
      if (e.ev === "start") {
        const run: JournalRun = {
          agent_id: a.id,
          tag: e.tag,
          request_id: e.request_id,
          tool: e.tool,
          pid: e.pid,
          started_at: e.at,
          ended_at: null,
        };
        runs.push(run);
        open.set(e.pid, run);
      } else if (e.ev === "end") {
        const run = open.get(e.pid);
        if (run) run.ended_at = e.at;
        open.delete(e.pid);
      } else badLines++;
    }
  }
  const group = (key: (r: JournalRun) => string) => {
    const m = new Map<string, JournalRun[]>();
    for (const r of runs) m.set(key(r), [...(m.get(key(r)) ?? []), r]);
    return m;
  };
  return { runs, byRequest: group((r) => r.request_id), byTag: group((r) => r.tag), badLines };
}
