// apply_patch: multi-file unified diffs, all or nothing.

import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { removeTempDirs, runTool, tempDir } from "./skill-runner.js";

afterAll(removeTempDirs);

let workspace: string;
const read = (name: string) => readFileSync(path.join(workspace, name), "utf8");
const patch = (text: string) => runTool("desktop-tools", "dt-apply-patch", { patch: text }, { workspace });

beforeEach(() => {
  workspace = tempDir("patch");
  writeFileSync(path.join(workspace, "a.txt"), "one\ntwo\nthree\n");
  writeFileSync(path.join(workspace, "b.txt"), "red\ngreen\nblue\n");
});

describe("apply_patch", () => {
  it("applies a git-style multi-file patch: modify, create, delete", async () => {
    const run = await patch(
      [
        "diff --git a/a.txt b/a.txt",
        "--- a/a.txt",
        "+++ b/a.txt",
        "@@ -1,3 +1,3 @@",
        " one",
        "-two",
        "+TWO",
        " three",
        "diff --git a/docs/new.md b/docs/new.md",
        "new file mode 100644",
        "--- /dev/null",
        "+++ b/docs/new.md",
        "@@ -0,0 +1,2 @@",
        "+# New",
        "+text",
        "diff --git a/b.txt b/b.txt",
        "deleted file mode 100644",
        "--- a/b.txt",
        "+++ /dev/null",
        "@@ -1,3 +0,0 @@",
        "-red",
        "-green",
        "-blue",
        "",
      ].join("\n"),
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("patched a.txt\ncreated docs/new.md\ndeleted b.txt\n");
    expect(read("a.txt")).toBe("one\nTWO\nthree\n");
    expect(read("docs/new.md")).toBe("# New\ntext\n");
    expect(existsSync(path.join(workspace, "b.txt"))).toBe(false);
  });

  it("applies a plain (no a/ b/ prefix) patch", async () => {
    const run = await patch(["--- b.txt", "+++ b.txt", "@@ -2 +2 @@", "-green", "+GREEN", ""].join("\n"));
    expect(run.code).toBe(0);
    expect(read("b.txt")).toBe("red\nGREEN\nblue\n");
  });

  it("changes nothing when one file's hunk does not apply", async () => {
    const run = await patch(
      [
        "--- a/a.txt",
        "+++ b/a.txt",
        "@@ -1,3 +1,3 @@",
        " one",
        "-two",
        "+TWO",
        " three",
        "--- /dev/null",
        "+++ b/created.txt",
        "@@ -0,0 +1 @@",
        "+should not exist",
        "--- a/b.txt",
        "+++ b/b.txt",
        "@@ -1,3 +1,3 @@",
        " red",
        "-purple",
        "+violet",
        " blue",
        "",
      ].join("\n"),
    );
    expect(run.code).toBe(64);
    expect(run.stderr).toMatch(/does not apply to b\.txt.*no files were changed/);
    expect(read("a.txt")).toBe("one\ntwo\nthree\n");
    expect(read("b.txt")).toBe("red\ngreen\nblue\n");
    expect(existsSync(path.join(workspace, "created.txt"))).toBe(false);
  });

  it("refuses a patch touching a file outside the workspace with 77", async () => {
    const run = await patch(["--- a/../escape.txt", "+++ b/../escape.txt", "@@ -0,0 +1 @@", "+x", ""].join("\n"));
    expect(run.code).toBe(77);
  });

  it("exits 66 when the file to modify does not exist", async () => {
    const run = await patch(["--- a/missing.txt", "+++ b/missing.txt", "@@ -1 +1 @@", "-a", "+b", ""].join("\n"));
    expect(run.code).toBe(66);
  });

  it("rejects text that is not a diff with 64", async () => {
    expect((await patch("just some words")).code).toBe(64);
  });
});
