import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { expandMutate, type MutationRecord } from "./mutation-report.js";

/** Where the mutation doc's inputs live; shared by `npm run docs:mutation` and the test that compares. */
export const MUTATION_DOC = "docs/mutation.md";
export const MUTATION_RECORD = "scripts/docs/mutation-record.json";

/** The files stryker.config.json's `mutate` list names, sorted. */
export function mutatedFiles(root: string): string[] {
  const config = JSON.parse(readFileSync(resolve(root, "stryker.config.json"), "utf8")) as { mutate: string[] };
  return expandMutate(config.mutate, (pattern) => glob(root, pattern));
}

/**
 * The files a pattern names: a path, or `*` in its last segment (all the list uses). Node 20's types have no
 * `fs.globSync`; a pattern this does not understand throws rather than match nothing.
 */
export function glob(root: string, pattern: string): string[] {
  if (!pattern.includes("*")) return existsSync(resolve(root, pattern)) ? [pattern] : [];
  const dir = dirname(pattern);
  const name = pattern.slice(dir.length + 1);
  if (dir.includes("*") || /\*\*|[?[{]/.test(name))
    throw new Error(`${pattern}: only \`dir/*.ext\` globs are read here`);
  const re = new RegExp(
    `^${name
      .split("*")
      .map((part) => part.replace(/[.+^$()|\\]/g, "\\$&"))
      .join("[^/]*")}$`,
  );
  return readdirSync(resolve(root, dir))
    .filter((f) => re.test(f))
    .map((f) => `${dir}/${f}`);
}

export function readRecord(root: string): MutationRecord {
  const path = resolve(root, MUTATION_RECORD);
  return existsSync(path) ? (JSON.parse(readFileSync(path, "utf8")) as MutationRecord) : {};
}

/** A file's current text, or null when it is gone. */
export function readSource(root: string, file: string): string | null {
  const path = resolve(root, file);
  return existsSync(path) ? readFileSync(path, "utf8") : null;
}
