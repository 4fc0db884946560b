import { readFileSync, statSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { EQUIVALENTS } from "./docs/mutation-equivalents.js";
import {
  driftedFiles,
  mergeReport,
  renderMutationDoc,
  type StrykerReport,
  sha256,
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
  for (const [file, data] of Object.entries(report.files)) {
    if (!mutated.includes(file)) console.warn(`${path}: ${file} is not in stryker.config.json's mutate list, left out`);
    else if (readSource(root, file) !== null && sha256(data.source) !== sha256(readSource(root, file)!))
      console.warn(`${path}: ${file} changed since this run; its figures will show as drifted until it is re-run`);
  }
  record = mergeReport(record, report, at, mutated);
  console.log(`${path}: ${Object.keys(report.files).join(", ")}`);
}
writeFileSync(resolve(root, MUTATION_RECORD), `${JSON.stringify(record, null, 2)}\n`);
const doc = readFileSync(resolve(root, MUTATION_DOC), "utf8");
writeFileSync(resolve(root, MUTATION_DOC), withGeneratedPart(doc, renderMutationDoc(record, EQUIVALENTS, mutated)));
console.log(`wrote ${MUTATION_RECORD} and ${MUTATION_DOC}`);
const drifted = driftedFiles(record, (file) => readSource(root, file));
if (drifted.length > 0) console.warn(`changed since measured (re-run them): ${drifted.join(", ")}`);
