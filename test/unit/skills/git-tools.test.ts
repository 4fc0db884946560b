// git_status, git_diff, git_commit, git_log, git_branch on a real repository in a temp dir.

import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removeTempDirs, runTool, tempDir } from "./skill-runner.js";

afterAll(removeTempDirs);

const GIT_ENV = {
  GIT_AUTHOR_NAME: "Ada Tester",
  GIT_AUTHOR_EMAIL: "ada@example.test",
  GIT_COMMITTER_NAME: "Ada Tester",
  GIT_COMMITTER_EMAIL: "ada@example.test",
  GIT_AUTHOR_DATE: "2025-02-13T10:00:00Z",
  GIT_COMMITTER_DATE: "2025-02-13T10:00:00Z",
};

let repo: string;
const tool = (binary: string, params: Record<string, unknown> = {}, env: Record<string, string> = GIT_ENV) =>
  runTool("desktop-tools", binary, params, { workspace: repo, env });
const git = (...args: string[]) =>
  execFileSync("git", args, {
    cwd: repo,
    env: { ...process.env, ...GIT_ENV, HOME: repo, GIT_CONFIG_NOSYSTEM: "1" },
    encoding: "utf8",
  });
const write = (name: string, text: string) => writeFileSync(path.join(repo, name), text);

// One repository, built up in order by the tests below (they depend on each other's commits).
beforeAll(() => {
  repo = tempDir("git");
  git("init", "-q", "-b", "main");
  write("main.go", "package main\n");
  git("add", "main.go");
  git("commit", "-q", "-m", "Initial commit");
});

describe("git tools", () => {
  it("git_status reports a clean tree, then changes", async () => {
    const clean = await tool("dt-git-status");
    expect(clean).toMatchObject({ code: 0, stdout: "## main\nnothing to commit, working tree clean\n" });
    write("main.go", "package main\nfunc fix() {}\n");
    write("notes.md", "todo\n");
    const dirty = await tool("dt-git-status");
    expect(dirty.stdout).toBe("## main\n M main.go\n?? notes.md\n");
  });

  it("git_diff shows unstaged changes, and staged ones with staged=true", async () => {
    const unstaged = await tool("dt-git-diff");
    expect(unstaged.code).toBe(0);
    expect(unstaged.stdout).toContain("--- a/main.go\n+++ b/main.go");
    expect(unstaged.stdout).toContain("+func fix() {}");
    const staged = await tool("dt-git-diff", { staged: true });
    expect(staged.stdout).toBe("No staged changes\n");
  });

  it("git_commit commits only the given paths", async () => {
    const run = await tool(
      "dt-git-commit",
      { message: "Fix bug", paths: ["main.go"] },
      { ...GIT_ENV, GIT_AUTHOR_DATE: "2025-02-15T10:00:00Z", GIT_COMMITTER_DATE: "2025-02-15T10:00:00Z" },
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^\[main [0-9a-f]+\] Fix bug/);
    expect(git("status", "--short")).toBe("?? notes.md\n");
  });

  it("git_commit with all=true picks up new files", async () => {
    const run = await tool("dt-git-commit", { message: "Add notes", all: true });
    expect(run.code).toBe(0);
    expect(git("status", "--short")).toBe("");
    expect(git("log", "-1", "--format=%s")).toBe("Add notes\n");
  });

  it("git_commit with nothing to commit fails with a clear message", async () => {
    const run = await tool("dt-git-commit", { message: "Empty" });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/nothing to commit/);
  });

  it("git_log prints its short format, newest first, honouring max_count and path", async () => {
    const head = git("rev-parse", "--short", "HEAD").trim();
    const run = await tool("dt-git-log", { max_count: 2 });
    expect(run.code).toBe(0);
    const fix = git("rev-parse", "--short", "HEAD~1").trim();
    expect(run.stdout).toBe(
      `commit ${head} (HEAD -> main)\nAuthor: Ada Tester\nDate:   2025-02-13\n    Add notes\n\ncommit ${fix}\nAuthor: Ada Tester\nDate:   2025-02-15\n    Fix bug\n`,
    );
    const onlyMain = await tool("dt-git-log", { path: "main.go" });
    expect(onlyMain.stdout.match(/^commit /gm)).toHaveLength(2);
    expect(onlyMain.stdout).not.toContain("Add notes");
  });

  it("git_diff with commit shows what that commit changed", async () => {
    const run = await tool("dt-git-diff", { commit: "HEAD~1" });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("+func fix() {}");
    expect(run.stdout).not.toContain("notes.md");
  });

  it("git_diff rejects option-like or unknown revisions", async () => {
    expect((await tool("dt-git-diff", { commit: "--output=/tmp/x" })).code).toBe(64);
    expect((await tool("dt-git-diff", { commit: "0123456789abcdef" })).code).toBe(66);
  });

  it("git_branch lists branches and creates one", async () => {
    const list = await tool("dt-git-branch");
    expect(list).toMatchObject({ code: 0, stdout: "* main\n" });
    const created = await tool("dt-git-branch", { create: "feature/x" });
    expect(created.stdout).toBe("Created branch feature/x\n  feature/x\n* main\n");
    expect(git("branch", "--list", "feature/x")).toContain("feature/x");
    expect((await tool("dt-git-branch", { create: "bad..name" })).code).toBe(64);
  });

  it("exits 66 when the workspace is not a repository", async () => {
    const run = await runTool(
      "desktop-tools",
      "dt-git-status",
      {},
      { workspace: tempDir("nogit"), env: { GIT_CEILING_DIRECTORIES: path.dirname(repo) } },
    );
    expect(run.code).toBe(66);
    expect(run.stderr).toMatch(/not a git repository/);
  });
});
