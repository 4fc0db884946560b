import { createHash } from "node:crypto";

/**
 * docs/mutation.md's generated part, from Stryker's JSON reports (reports/mutation/mutation.json, not
 * committed). A run covers only the files it was given, so each file's figures are kept in a committed
 * record (scripts/docs/mutation-record.json) with the hash of the source they were measured on; a later
 * run replaces that file's entry. The doc is rendered from the record, the `mutate` list of
 * stryker.config.json and the stated reasons for equivalent mutants (mutation-equivalents.ts).
 */

/** A mutant no test killed, named without its position so a reason survives edits elsewhere in the file. */
export type Survivor = {
  status: "Survived" | "NoCoverage";
  mutator: string;
  /** The mutated source text, whitespace collapsed (long texts shortened in the middle). */
  original: string;
  replacement: string;
  /** The line it started on in the measured source, and that line's text (trimmed). */
  line: number;
  line_text: string;
};

export type FileMeasure = {
  /** sha256 of the measured source: the doc describes that text and no other. */
  sha256: string;
  /** When the report was written (UTC, minutes). */
  measured_at: string;
  killed: number;
  timeout: number;
  survived: number;
  no_coverage: number;
  /** Mutants Stryker did not count: compile or runtime errors, and ones a `Stryker disable` comment ignores. */
  not_counted: number;
  survivors: Survivor[];
};

export type MutationRecord = Record<string, FileMeasure>;

/** A stated reason why no input tells a survivor from the code. */
export type Equivalent = {
  file: string;
  mutator: string;
  original: string;
  replacement: string;
  /** Text the survivor's line contains, when the same mutation of the same text occurs more than once. */
  context?: string;
  reason: string;
  /**
   * Set when the mutant is not equivalent but Stryker cannot see the test that kills it: the test named here
   * fails with the mutation applied by hand, and `reason` says why Stryker's run misses it.
   */
  killed_by?: string;
};

type ReportMutant = {
  mutatorName: string;
  replacement?: string;
  status: string;
  location: { start: { line: number; column: number }; end: { line: number; column: number } };
};
export type StrykerReport = {
  files: Record<string, { source: string; mutants: ReportMutant[] }>;
  /** The run's configuration: `mutate` is what `--mutate` named, when it was given. */
  config?: { mutate?: string[] };
};

export function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

const MAX_TEXT = 100;

/** Whitespace collapsed; a long text keeps its start and end, which is what tells it apart. */
export function shortText(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= MAX_TEXT ? flat : `${flat.slice(0, 60)} … ${flat.slice(-35)}`;
}

/** The source text a mutant replaces (Stryker's lines and columns count from 1; the end is exclusive). */
export function mutatedText(source: string, location: ReportMutant["location"]): string {
  const lines = source.split("\n");
  const offset = (p: { line: number; column: number }) =>
    lines.slice(0, p.line - 1).reduce((n, l) => n + l.length + 1, 0) + p.column - 1;
  return source.slice(offset(location.start), offset(location.end));
}

/** One file of a report as the record keeps it. */
export function measureFile(file: { source: string; mutants: ReportMutant[] }, measuredAt: string): FileMeasure {
  const count = (status: string) => file.mutants.filter((m) => m.status === status).length;
  const lines = file.source.split("\n");
  const survivors = file.mutants
    .filter((m) => m.status === "Survived" || m.status === "NoCoverage")
    .map(
      (m): Survivor => ({
        status: m.status as Survivor["status"],
        mutator: m.mutatorName,
        original: shortText(mutatedText(file.source, m.location)),
        replacement: shortText(m.replacement ?? ""),
        line: m.location.start.line,
        line_text: shortText(lines[m.location.start.line - 1] ?? ""),
      }),
    )
    .sort(
      (a, b) => a.line - b.line || a.mutator.localeCompare(b.mutator) || a.replacement.localeCompare(b.replacement),
    );
  const killed = count("Killed");
  const timeout = count("Timeout");
  const survived = count("Survived");
  const noCoverage = count("NoCoverage");
  return {
    sha256: sha256(file.source),
    measured_at: measuredAt,
    killed,
    timeout,
    survived,
    no_coverage: noCoverage,
    not_counted: file.mutants.length - killed - timeout - survived - noCoverage,
    survivors,
  };
}

/**
 * The record after a run: the report's files replace their entries (unless nothing but the time changed); files
 * no longer mutated are dropped.
 */
export function mergeReport(
  record: MutationRecord,
  report: StrykerReport,
  measuredAt: string,
  mutated: readonly string[],
): MutationRecord {
  const next: MutationRecord = { ...record };
  for (const [file, data] of Object.entries(report.files)) {
    const measure = measureFile(data, measuredAt);
    // An incremental run's report also carries the files it did not re-run, unchanged: keep when they were measured.
    const before = record[file];
    const same =
      before && JSON.stringify({ ...before, measured_at: "" }) === JSON.stringify({ ...measure, measured_at: "" });
    next[file] = same ? before : measure;
  }
  return Object.fromEntries(
    mutated.filter((file) => next[file] !== undefined).map((file) => [file, next[file]!] as const),
  );
}

/** Killed or timed out, of all counted mutants, in percent with one decimal. */
export function score(m: FileMeasure): number {
  const counted = m.killed + m.timeout + m.survived + m.no_coverage;
  return counted === 0 ? 100 : Math.floor((1000 * (m.killed + m.timeout)) / counted) / 10;
}

export function matchesEquivalent(file: string, s: Survivor, e: Equivalent): boolean {
  return (
    e.file === file &&
    e.mutator === s.mutator &&
    e.original === s.original &&
    e.replacement === s.replacement &&
    (e.context === undefined || s.line_text.includes(e.context))
  );
}

/** Files whose source is no longer the text they were measured on. */
export function driftedFiles(record: MutationRecord, read: (file: string) => string | null): string[] {
  return Object.entries(record)
    .filter(([file, m]) => {
      const text = read(file);
      return text === null || sha256(text) !== m.sha256;
    })
    .map(([file]) => file);
}

/** Reasons that name no survivor of a file measured on its current source: left over, or mistyped. */
export function unusedEquivalents(record: MutationRecord, equivalents: readonly Equivalent[]): Equivalent[] {
  return equivalents.filter((e) => {
    const m = record[e.file];
    return m !== undefined && !m.survivors.some((s) => matchesEquivalent(e.file, s, e));
  });
}

/** A markdown table with its columns padded, as the formatter (biome) writes it. */
function table(head: string[], rows: string[][]): string[] {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`;
  return [line(head), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)];
}

const code = (text: string) => (text === "" ? "(empty)" : `\`${text.replaceAll("`", "'")}\``);

/** The generated part of docs/mutation.md. */
export function renderMutationDoc(
  record: MutationRecord,
  equivalents: readonly Equivalent[],
  mutated: readonly string[],
): string {
  const out: string[] = [];
  out.push("## Scores", "");
  out.push(
    "Killed or timed out, of the mutants Stryker counts, per file in the `mutate` list of stryker.config.json, as",
    "measured on the source whose sha256 is shown (its first 12 digits): a test fails when a file no longer has",
    "that hash, so a figure here always describes the code beside it. A file not measured since it was added or",
    "changed says so and shows no figure.",
    "",
  );
  const rows = mutated.map((file) => {
    const m = record[file];
    if (!m) return [file, "not measured", "", "", "", "", "", ""];
    const counts = [m.killed, m.timeout, m.survived, m.no_coverage].map(String);
    return [file, `${score(m).toFixed(1)}%`, ...counts, m.measured_at, m.sha256.slice(0, 12)];
  });
  out.push(
    ...table(
      ["file", "score", "killed", "timed out", "survived", "no coverage", "measured (UTC)", "source sha256"],
      rows,
    ),
  );
  out.push("");
  out.push("## Survivors", "");
  out.push(
    "Every mutant no test killed, with the reason it is equivalent (no input tells it from the code) where one is",
    "stated in scripts/docs/mutation-equivalents.ts. A survivor without a reason is a rule no test pins down yet.",
    "",
  );
  let any = false;
  for (const file of mutated) {
    const m = record[file];
    if (!m || m.survivors.length === 0) continue;
    any = true;
    out.push(`### ${file}`, "");
    for (const s of m.survivors) {
      const stated = equivalents.find((e) => matchesEquivalent(file, s, e));
      const what = `line ${s.line}, ${s.mutator}${s.status === "NoCoverage" ? " (no coverage)" : ""}: ${code(s.original)} → ${code(s.replacement)}`;
      const verdict = !stated
        ? "**No reason stated: not shown equivalent.**"
        : stated.killed_by
          ? `Not equivalent: killed by ${code(stated.killed_by)} with the change made by hand; ${stated.reason}`
          : `Equivalent: ${stated.reason}`;
      out.push(`- ${what}. ${verdict}`);
    }
    out.push("");
  }
  if (!any) out.push("None.", "");
  return `${out.join("\n").trimEnd()}\n`;
}

/** The line that separates the handwritten part of docs/mutation.md from the generated part. */
export const GENERATED_MARK =
  "<!-- Everything below is written by `npm run docs:mutation` (scripts/docs/mutation-report.ts); do not edit it. -->";

/** The doc with its generated part replaced. */
export function withGeneratedPart(doc: string, generated: string): string {
  const at = doc.indexOf(GENERATED_MARK);
  const handwritten = at < 0 ? `${doc.trimEnd()}\n\n` : doc.slice(0, at);
  return `${handwritten}${GENERATED_MARK}\n\n${generated}`;
}

/** Expands stryker's `mutate` patterns (globs, `!` to leave out) against the files that exist. */
export function expandMutate(patterns: readonly string[], glob: (pattern: string) => string[]): string[] {
  const files = new Set<string>();
  for (const p of patterns.filter((p) => !p.startsWith("!"))) for (const f of glob(p)) files.add(f);
  for (const p of patterns.filter((p) => p.startsWith("!"))) for (const f of glob(p.slice(1))) files.delete(f);
  return [...files].sort();
}
