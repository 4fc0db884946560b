import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { EQUIVALENTS } from "../../../scripts/docs/mutation-equivalents.js";
import {
  driftedFiles,
  expandMutate,
  GENERATED_MARK,
  type MutationRecord,
  measureFile,
  mergeReport,
  renderMutationDoc,
  score,
  sha256,
  unusedEquivalents,
  withGeneratedPart,
} from "../../../scripts/docs/mutation-report.js";
import { glob, MUTATION_DOC, mutatedFiles, readRecord, readSource } from "../../../scripts/docs/mutation-sources.js";

const root = resolve(import.meta.dirname, "../../..");
const doc = readFileSync(resolve(root, MUTATION_DOC), "utf8");
const record = readRecord(root);
const mutated = mutatedFiles(root);

describe("docs/mutation.md", () => {
  it("is what npm run docs:mutation writes from the record, the mutate list and the stated reasons", () => {
    const expected = withGeneratedPart(doc, renderMutationDoc(record, EQUIVALENTS, mutated));
    expect(doc === expected, `${MUTATION_DOC} is out of date: run npm run docs:mutation`).toBe(true);
  });

  it("lists exactly the files stryker.config.json mutates", () => {
    const listed = [...doc.slice(doc.indexOf(GENERATED_MARK)).matchAll(/^\| ([^ |]+\.ts) +\|/gm)].map((m) => m[1]);
    expect(listed).toEqual(mutated);
    expect(Object.keys(record).filter((file) => !mutated.includes(file))).toEqual([]);
  });

  it("describes the code as it is: every measured file still has the hash it was measured on", () => {
    const drifted = driftedFiles(record, (file) => readSource(root, file));
    expect(
      drifted,
      `changed since their mutation run: npx stryker run --mutate ${drifted.join(",")} --concurrency 1, then npm run docs:mutation`,
    ).toEqual([]);
  });

  it("states no reason for a survivor that is not there", () => {
    expect(unusedEquivalents(record, EQUIVALENTS)).toEqual([]);
  });
});

describe("the mutation doc's generator", () => {
  const source = 'export const a = (x: number) => x > 1 ? "big" : "small";\n';
  const at = (line: number, column: number) => ({ line, column });
  const report = {
    files: {
      "a.ts": {
        source,
        mutants: [
          {
            mutatorName: "EqualityOperator",
            replacement: "x >= 1",
            status: "Survived",
            location: { start: at(1, 33), end: at(1, 38) },
          },
          {
            mutatorName: "StringLiteral",
            replacement: '""',
            status: "Killed",
            location: { start: at(1, 41), end: at(1, 46) },
          },
          {
            mutatorName: "StringLiteral",
            replacement: '""',
            status: "Timeout",
            location: { start: at(1, 49), end: at(1, 56) },
          },
          {
            mutatorName: "ConditionalExpression",
            replacement: "true",
            status: "NoCoverage",
            location: { start: at(1, 33), end: at(1, 38) },
          },
          {
            mutatorName: "BooleanLiteral",
            replacement: "false",
            status: "CompileError",
            location: { start: at(1, 33), end: at(1, 38) },
          },
        ],
      },
    },
  };

  it("names a survivor by its text and replacement, and counts as Stryker does", () => {
    const m = measureFile(report.files["a.ts"], "2026-11-28 15:00");
    expect(m.survivors.map((s) => [s.status, s.mutator, s.original, s.replacement, s.line])).toEqual([
      ["NoCoverage", "ConditionalExpression", "x > 1", "true", 1],
      ["Survived", "EqualityOperator", "x > 1", "x >= 1", 1],
    ]);
    expect([m.killed, m.timeout, m.survived, m.no_coverage, m.not_counted]).toEqual([1, 1, 1, 1, 1]);
    expect(score(m)).toBe(50);
    expect(m.sha256).toBe(sha256(source));
  });

  it("keeps files a run did not cover, replaces the ones it did and drops files no longer mutated", () => {
    const old = measureFile({ source: "old", mutants: [] }, "2026-11-01 10:00");
    const merged = mergeReport({ "a.ts": old, "b.ts": old, "gone.ts": old }, report, "2026-11-28 15:00", [
      "a.ts",
      "b.ts",
    ]);
    expect(Object.keys(merged)).toEqual(["a.ts", "b.ts"]);
    expect(merged["a.ts"]!.measured_at).toBe("2026-11-28 15:00");
    expect(merged["b.ts"]).toBe(old);
    // The same figures again (a file an incremental run carried over): measured when they first were.
    expect(mergeReport(merged, report, "2026-11-29 09:00", ["a.ts"])["a.ts"]!.measured_at).toBe("2026-11-28 15:00");
  });

  it("finds a file changed since its run, and one that is gone", () => {
    const rec: MutationRecord = mergeReport({}, report, "2026-11-28 15:00", ["a.ts"]);
    expect(driftedFiles(rec, () => source)).toEqual([]);
    expect(driftedFiles(rec, () => `${source}// edited\n`)).toEqual(["a.ts"]);
    expect(driftedFiles(rec, () => null)).toEqual(["a.ts"]);
  });

  it("shows a file not measured without figures, a stated reason, and a survivor without one", () => {
    const rec = mergeReport({}, report, "2026-11-28 15:00", ["a.ts", "b.ts"]);
    const reason = {
      file: "a.ts",
      mutator: "EqualityOperator",
      original: "x > 1",
      replacement: "x >= 1",
      reason: "R.",
    };
    const text = renderMutationDoc(rec, [reason], ["a.ts", "b.ts"]);
    const cells = (line: string) => line.split("|").map((c) => c.trim());
    const row = (file: string) => cells(text.split("\n").find((l) => l.startsWith(`| ${file} `))!);
    expect(row("a.ts")).toEqual([
      "",
      "a.ts",
      "50.0%",
      "1",
      "1",
      "1",
      "1",
      "2026-11-28 15:00",
      sha256(source).slice(0, 12),
      "",
    ]);
    expect(row("b.ts")).toEqual(["", "b.ts", "not measured", "", "", "", "", "", "", ""]);
    expect(text).toContain("- line 1, EqualityOperator: `x > 1` → `x >= 1`. Equivalent: R.");
    expect(text).toContain("- line 1, ConditionalExpression (no coverage): `x > 1` → `true`. **No reason stated");
    expect(unusedEquivalents(rec, [reason])).toEqual([]);
    const byHand = renderMutationDoc(rec, [{ ...reason, killed_by: "t.test.ts" }], ["a.ts"]);
    expect(byHand).toContain(
      "`x > 1` → `x >= 1`. Not equivalent: killed by `t.test.ts` with the change made by hand; R.",
    );
    expect(unusedEquivalents(rec, [{ ...reason, context: "y >" }])).toHaveLength(1);
  });

  it("expands the mutate list's globs and leaves out the `!` ones", () => {
    const files: Record<string, string[]> = { "core/*.ts": ["core/a.ts", "core/types.ts"], "x.ts": ["x.ts"] };
    const glob = (p: string) => files[p] ?? (p === "core/types.ts" ? ["core/types.ts"] : []);
    expect(expandMutate(["x.ts", "core/*.ts", "!core/types.ts"], glob)).toEqual(["core/a.ts", "x.ts"]);
  });

  it("reads the `dir/*.ext` globs the list uses, and refuses others rather than match nothing", () => {
    const core = glob(root, "durable-objects/conversation/core/*.ts");
    expect(core).toContain("durable-objects/conversation/core/round.ts");
    expect(core.every((f) => /^durable-objects\/conversation\/core\/[^/]+\.ts$/.test(f))).toBe(true);
    expect(glob(root, "runtime/hmac-hex.ts")).toEqual(["runtime/hmac-hex.ts"]);
    expect(() => glob(root, "runtime/**/*.ts")).toThrow();
  });

  it("keeps the handwritten part above its mark", () => {
    expect(withGeneratedPart(`intro\n\n${GENERATED_MARK}\n\nold\n`, "new\n")).toBe(
      `intro\n\n${GENERATED_MARK}\n\nnew\n`,
    );
    expect(withGeneratedPart("intro\n", "new\n")).toBe(`intro\n\n${GENERATED_MARK}\n\nnew\n`);
  });
});
