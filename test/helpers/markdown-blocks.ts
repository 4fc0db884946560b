import { readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "./processes.js";

/** The fenced code blocks of a doc in this repository, so a test runs what the doc shows. */
export function codeBlocks(docPath: string): string[] {
  const text = readFileSync(join(REPO_ROOT, docPath), "utf8");
  return [...text.matchAll(/^```[a-z]*\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

/** The one block that contains `marker`: none or several is a doc that changed shape. */
export function blockWith(blocks: string[], marker: string): string {
  const found = blocks.filter((b) => b.includes(marker));
  if (found.length !== 1) throw new Error(`expected one code block with '${marker}', found ${found.length}`);
  return found[0]!;
}

/** The line of a block that contains `marker`, without a leading `sudo` (the test runs as itself). */
export function lineWith(block: string, marker: string): string {
  const line = block.split("\n").find((l) => l.includes(marker));
  if (!line) throw new Error(`no line with '${marker}' in:\n${block}`);
  return line.replace(/^sudo (-u \S+ )?/, "").trim();
}

/** `KEY=value` lines as an object (a settings file, or `env` arguments). */
export function envLines(text: string): Record<string, string> {
  return Object.fromEntries(
    [...text.matchAll(/\b([A-Z][A-Z0-9_]*)=(\S*)/g)].map((m) => [m[1]!, m[2]!] as [string, string]),
  );
}
