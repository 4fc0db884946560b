import { readFileSync, statSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { EQUIVALENTS } from "./docs/mutation-equivalents.js";
import {
  driftedFiles,
  mergeReport,
  renderMutationDoc,
  type StrykerReport,
  withGeneratedPart,
} from "./docs/mutation-report.js";
import { MUTATION_DOC, MUTATION_RECORD, mutatedFiles, readRecord, readSource } from "./docs/mutation-sources.js";

// `npm run docs:mutation [report.json …]`: takes the files of Stryker's JSON reports (by default the last
// run's, reports/mutation/mutation.json) into scripts/docs/mutation-record.json and writes docs/mutation.md's
// generated part from it. Without a report it only re-renders (after editing mutation-equivalents.ts).
const root = resolve(import.meta.dirname, "..");
const args = process.argv.slice(2);
const reports = args.length > 0 ? args : ["reports/mutation/mutation.json"];
const mutated = mutatedFiles(root);
let record = readRecord(root);
for (const path of reports) {
  let report: StrykerReport;
  try {
    report = JSON.parse(readFileSync(resolve(root, path), "utf8")) as StrykerReport;
  } catch {
    if (args.length > 0) throw new Error(`${path}: no Stryker JSON report there`);
    console.log(`${path}: no report, re-rendering the record as it is`);
    continue;
  }
  const at = `${statSync(resolve(root, path)).mtime.toISOString().slice(0, 16).replace("T", " ")}`;
  // Only figures for the code as it is now, from the files the run mutated: an incremental run's report also
  // carries earlier runs' results for other files, and a file changed since the run is not taken.
  const ran = report.config?.mutate;
  const current: StrykerReport = { files: {} };
  for (const [file, data] of Object.entries(report.files)) {
    if (ran && !ran.includes(file)) continue;
    if (!mutated.includes(file)) console.warn(`${path}: ${file} is not in stryker.config.json's mutate list, left out`);
    else if (data.source !== readSource(root, file)) console.warn(`${path}: ${file} changed since this run, not taken`);
    else current.files[file] = data;
  }
  record = mergeReport(record, current, at, mutated);
  console.log(`${path}: ${Object.keys(report.files).join(", ")}`);
}
// A file changed since its figures were taken is shown as not measured until it is run again.
const drifted = driftedFiles(record, (file) => readSource(root, file));
if (drifted.length > 0)
  console.warn(`changed since measured, now shown as not measured (re-run them): ${drifted.join(", ")}`);
record = Object.fromEntries(Object.entries(record).filter(([file]) => !drifted.includes(file)));
writeFileSync(resolve(root, MUTATION_RECORD), `${JSON.stringify(record, null, 2)}\n`);
const doc = readFileSync(resolve(root, MUTATION_DOC), "utf8");
writeFileSync(resolve(root, MUTATION_DOC), withGeneratedPart(doc, renderMutationDoc(record, EQUIVALENTS, mutated)));
console.log(`wrote ${MUTATION_RECORD} and ${MUTATION_DOC}`);
