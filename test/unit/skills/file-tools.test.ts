// read, write, edit, glob, grep against a real temp workspace, including every way out of it.

import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { removeTempDirs, runTool, type ToolRun, tempDir } from "./skill-runner.js";

let workspace: string;
let outside: string;

// The outside dir is made per test, after it.each builds its table: swap this marker in at run time.
const OUTSIDE = "<outside>";
function resolveOutside(p: string | undefined): string | undefined {
  return p === OUTSIDE ? outside : p;
}

afterAll(removeTempDirs);

beforeEach(() => {
  const base = tempDir("files");
  workspace = path.join(base, "ws");
  outside = path.join(base, "outside");
  mkdirSync(path.join(workspace, "src", "deep"), { recursive: true });
  mkdirSync(outside);
  writeFileSync(path.join(outside, "secret.txt"), "TOP SECRET\n");
  writeFileSync(path.join(workspace, "notes.txt"), "alpha\nbeta\ngamma\ndelta\n");
  writeFileSync(path.join(workspace, "src", "main.ts"), "export const Alpha = 1;\n// alpha again\n");
  writeFileSync(path.join(workspace, "src", "deep", "util.js"), "function alpha() {}\n");
  writeFileSync(path.join(workspace, "blob.bin"), Buffer.from([0x89, 0x50, 0x00, 0x01, 0xff, 0x00]));
  symlinkSync(outside, path.join(workspace, "escape"));
  symlinkSync(path.join(outside, "secret.txt"), path.join(workspace, "secret-link"));
  symlinkSync(path.join(outside, "not-yet.txt"), path.join(workspace, "dangling-link"));
});

const dt = (binary: string, params: Record<string, unknown>): Promise<ToolRun> =>
  runTool("desktop-tools", binary, params, { workspace });

describe("workspace confinement", () => {
  const escapes = (): Record<string, string> => ({
    "relative traversal": "../etc/passwd",
    "deep traversal": "../../../../../../../../etc/passwd",
    "absolute path outside": path.join(outside, "secret.txt"),
    "system absolute path": "/etc/passwd",
    "symlinked folder": "escape/secret.txt",
    "symlinked file": "secret-link",
  });
  const cases = [
    "relative traversal",
    "deep traversal",
    "absolute path outside",
    "system absolute path",
    "symlinked folder",
    "symlinked file",
  ];

  it.each(cases)("read refuses %s with exit 77", async (name) => {
    const run = await dt("dt-read", { path: escapes()[name] });
    expect(run.code).toBe(77);
    expect(run.stdout).not.toContain("SECRET");
    expect(run.stdout).not.toContain("root:");
    expect(run.stderr).toMatch(/outside the workspace/);
  });

  it.each(cases)("write refuses %s with exit 77 and writes nothing", async (name) => {
    const run = await dt("dt-write", { path: escapes()[name], content: "pwned" });
    expect(run.code).toBe(77);
    expect(readFileSync(path.join(outside, "secret.txt"), "utf8")).toBe("TOP SECRET\n");
  });

  it("write refuses a dangling symlink whose target is outside, and does not create the target", async () => {
    const run = await dt("dt-write", { path: "dangling-link", content: "pwned" });
    expect(run.code).toBe(77);
    expect(existsSync(path.join(outside, "not-yet.txt"))).toBe(false);
  });

  it.each(cases)("edit refuses %s with exit 77", async (name) => {
    const run = await dt("dt-edit", { path: escapes()[name], old_string: "TOP", new_string: "PWNED" });
    expect(run.code).toBe(77);
    expect(readFileSync(path.join(outside, "secret.txt"), "utf8")).toBe("TOP SECRET\n");
  });

  const globEscapes: Array<[string, { pattern: string; path?: string }]> = [
    ["traversal path", { pattern: "*", path: "../outside" }],
    ["absolute path outside", { pattern: "*", path: OUTSIDE }],
    ["symlinked folder", { pattern: "*", path: "escape" }],
    ["pattern climbing out", { pattern: "../outside/*" }],
    ["absolute pattern", { pattern: "/etc/*" }],
  ];
  it.each(globEscapes)("glob refuses %s with exit 77", async (_name, params) => {
    const run = await dt("dt-glob", { ...params, path: resolveOutside(params.path) });
    expect(run.code).toBe(77);
    expect(run.stdout).not.toContain("secret");
  });

  it.each([
    ["traversal path", "../outside"],
    ["absolute path outside", OUTSIDE],
    ["symlinked folder", "escape"],
    ["symlinked file", "secret-link"],
  ] as const)("grep refuses %s with exit 77", async (_name, p) => {
    const run = await dt("dt-grep", { pattern: "SECRET", path: resolveOutside(p) });
    expect(run.code).toBe(77);
    expect(run.stdout).not.toContain("SECRET");
  });

  it("grep and glob over the workspace never follow a symlink out", async () => {
    const grep = await dt("dt-grep", { pattern: "SECRET" });
    expect(grep.code).toBe(0);
    expect(grep.stdout).toContain("No matches");
    const glob = await dt("dt-glob", { pattern: "**/*" });
    expect(glob.stdout).not.toMatch(/secret/);
  });

  it("allows an absolute path inside the workspace", async () => {
    const run = await dt("dt-read", { path: path.join(workspace, "notes.txt") });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("beta");
  });
});

describe("read", () => {
  it("returns the file text", async () => {
    const run = await dt("dt-read", { path: "notes.txt" });
    expect(run).toMatchObject({ code: 0, stdout: "alpha\nbeta\ngamma\ndelta\n" });
  });

  it("returns a line window and says where to continue", async () => {
    const run = await dt("dt-read", { path: "notes.txt", offset: 2, limit: 2 });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("beta\ngamma\n[showing lines 2-3 of 4; read on with offset=4]\n");
  });

  it("falls back to argv when stdin is empty", async () => {
    const run = await runTool(
      "desktop-tools",
      "dt-read",
      {},
      { workspace, stdinText: "", args: ["--path", "notes.txt", "--offset", "4"] },
    );
    expect(run).toMatchObject({ code: 0, stdout: "delta\n" });
  });

  it("refuses a binary file unless binary=true, then returns base64", async () => {
    const refused = await dt("dt-read", { path: "blob.bin" });
    expect(refused.code).toBe(64);
    expect(refused.stderr).toMatch(/binary/);
    const run = await dt("dt-read", { path: "blob.bin", binary: true });
    expect(run.code).toBe(0);
    expect(Buffer.from(run.stdout.trim(), "base64")).toEqual(Buffer.from([0x89, 0x50, 0x00, 0x01, 0xff, 0x00]));
  });

  it("exits 66 for a missing file and 64 for bad params", async () => {
    expect((await dt("dt-read", { path: "nope.txt" })).code).toBe(66);
    expect((await dt("dt-read", { path: 42 })).code).toBe(64);
    expect((await dt("dt-read", { path: "notes.txt", offset: 0 })).code).toBe(64);
    expect((await runTool("desktop-tools", "dt-read", {}, { workspace, stdinText: "{not json" })).code).toBe(64);
  });
});

describe("write", () => {
  it("creates parent folders and the file", async () => {
    const run = await dt("dt-write", { path: "new/dir/file.md", content: "# hi\n" });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Created new/dir/file.md");
    expect(readFileSync(path.join(workspace, "new", "dir", "file.md"), "utf8")).toBe("# hi\n");
  });

  it("overwrites an existing file", async () => {
    const run = await dt("dt-write", { path: "notes.txt", content: "replaced" });
    expect(run.stdout).toContain("Overwrote notes.txt");
    expect(readFileSync(path.join(workspace, "notes.txt"), "utf8")).toBe("replaced");
  });

  it("refuses to write over a folder", async () => {
    expect((await dt("dt-write", { path: "src", content: "x" })).code).toBe(64);
  });
});

describe("edit", () => {
  it("replaces exactly one match, keeping $ patterns literal", async () => {
    const run = await dt("dt-edit", { path: "notes.txt", old_string: "beta", new_string: "$& BETA $1" });
    expect(run.code).toBe(0);
    expect(readFileSync(path.join(workspace, "notes.txt"), "utf8")).toBe("alpha\n$& BETA $1\ngamma\ndelta\n");
  });

  it("refuses an ambiguous match with 64 and changes nothing", async () => {
    writeFileSync(path.join(workspace, "dup.txt"), "x = 1\nx = 1\n");
    const run = await dt("dt-edit", { path: "dup.txt", old_string: "x = 1", new_string: "x = 2" });
    expect(run.code).toBe(64);
    expect(run.stderr).toMatch(/matches 2 times/);
    expect(readFileSync(path.join(workspace, "dup.txt"), "utf8")).toBe("x = 1\nx = 1\n");
  });

  it("replaces every match with replace_all", async () => {
    writeFileSync(path.join(workspace, "dup.txt"), "x = 1\nx = 1\n");
    const run = await dt("dt-edit", { path: "dup.txt", old_string: "x = 1", new_string: "x = 2", replace_all: true });
    expect(run.stdout).toContain("Replaced 2 occurrences");
    expect(readFileSync(path.join(workspace, "dup.txt"), "utf8")).toBe("x = 2\nx = 2\n");
  });

  it("refuses a missing match with 64", async () => {
    const run = await dt("dt-edit", { path: "notes.txt", old_string: "omega", new_string: "z" });
    expect(run.code).toBe(64);
    expect(run.stderr).toMatch(/not found/);
  });

  it("exits 66 for a missing file", async () => {
    expect((await dt("dt-edit", { path: "gone.txt", old_string: "a", new_string: "b" })).code).toBe(66);
  });
});

describe("glob", () => {
  it("lists matching files as sorted workspace-relative paths", async () => {
    const run = await dt("dt-glob", { pattern: "**/*.{ts,js}" });
    expect(run).toMatchObject({ code: 0, stdout: "src/deep/util.js\nsrc/main.ts\n" });
  });

  it("searches under path but prints workspace-relative paths", async () => {
    const run = await dt("dt-glob", { pattern: "*.js", path: "src/deep" });
    expect(run.stdout).toBe("src/deep/util.js\n");
  });

  it("says when nothing matched", async () => {
    const run = await dt("dt-glob", { pattern: "**/*.py" });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/No files match/);
  });

  it("exits 66 when the folder does not exist", async () => {
    expect((await dt("dt-glob", { pattern: "*", path: "missing" })).code).toBe(66);
  });
});

describe("grep", () => {
  it("prints file:line:text for each match", async () => {
    const run = await dt("dt-grep", { pattern: "alpha" });
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split("\n")).toEqual([
      "notes.txt:1:alpha",
      "src/deep/util.js:1:function alpha() {}",
      "src/main.ts:2:// alpha again",
    ]);
  });

  it("honours case_insensitive, glob and max_results", async () => {
    const ci = await dt("dt-grep", { pattern: "^export const alpha", case_insensitive: true });
    expect(ci.stdout.trim()).toBe("src/main.ts:1:export const Alpha = 1;");
    const filtered = await dt("dt-grep", { pattern: "alpha", glob: "*.js" });
    expect(filtered.stdout.trim()).toBe("src/deep/util.js:1:function alpha() {}");
    const capped = await dt("dt-grep", { pattern: "a", max_results: 2 });
    const lines = capped.stdout.trim().split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[2]).toMatch(/stopped after 2 matches/);
  });

  it("searches a single file", async () => {
    const run = await dt("dt-grep", { pattern: "a$", path: "notes.txt" });
    expect(run.stdout.trim().split("\n")).toEqual([
      "notes.txt:1:alpha",
      "notes.txt:2:beta",
      "notes.txt:3:gamma",
      "notes.txt:4:delta",
    ]);
  });

  it("rejects an invalid regex with 64", async () => {
    expect((await dt("dt-grep", { pattern: "(unclosed" })).code).toBe(64);
  });
});
