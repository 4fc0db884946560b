import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";

// The repository's shape rules (CONTRIBUTING.md): a front page that fits a screen's width and a
// short read, and source files small enough to hold one job.
const root = resolve(import.meta.dirname, "../../..");
const tracked = execFileSync("git", ["ls-files", "-z"], { cwd: root, encoding: "utf8" }).split("\0").filter(Boolean);
/** A text file's lines, without the empty string after its final newline. */
const lines = (path: string) => readFileSync(resolve(root, path), "utf8").replace(/\n$/, "").split("\n");

describe("house rules", () => {
  it("the README is at most 150 lines, none wider than 120 characters", () => {
    const readme = lines("README.md");
    expect(readme.length).toBeLessThanOrEqual(150);
    expect(readme.map((l, i) => [i + 1, [...l].length] as const).filter(([, n]) => n > 120)).toEqual([]);
  });

  it("no source file is over 400 lines", () => {
    const source = tracked.filter((p) => /\.(ts|js|mjs|css|html)$/.test(p) && !p.startsWith("bench/results/"));
    expect(source.length).toBeGreaterThan(100);
    const long = source.map((p) => [p, lines(p).length] as const).filter(([, n]) => n > 400);
    expect(long).toEqual([]);
  });
});
