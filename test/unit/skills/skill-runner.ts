// Spawns a real skill binary the way the device agent does (docs/skills.md): parameters as JSON
// on stdin, cwd = workspace, EDGELOOP_* env. Async spawn on purpose: several tests serve HTTP
// from this same process, which a blocking spawnSync would starve.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));
export const SKILLS_DIR = path.join(REPO_ROOT, "skills");
export const FIXTURE_BIN_DIR = path.join(REPO_ROOT, "test", "fixtures", "bin");

export type ToolRun = { code: number; stdout: string; stderr: string };

export type RunOptions = {
  workspace: string;
  /** Added to (or, with undefined values, removed from) the base environment. */
  env?: Record<string, string | undefined>;
  /** Raw stdin instead of JSON params. */
  stdinText?: string;
  args?: string[];
  /** Called once the binary is running, e.g. to signal it. */
  onSpawn?: (child: ChildProcess) => void;
};

const createdDirs: string[] = [];

/** A fresh, fully resolved temp dir (macOS's /tmp is a symlink). Remove with removeTempDirs. */
export function tempDir(prefix: string): string {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), `edgeloop-${prefix}-`)));
  createdDirs.push(dir);
  return dir;
}

/** For afterAll: deletes every dir tempDir made in this test file. */
export function removeTempDirs(): void {
  for (const dir of createdDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export function binaryPath(skill: "desktop-tools" | "pi-tools", binary: string): string {
  return path.join(SKILLS_DIR, skill, "bin", binary);
}

export function runTool(
  skill: "desktop-tools" | "pi-tools",
  binary: string,
  params: Record<string, unknown>,
  options: RunOptions,
): Promise<ToolRun> {
  // Only what a tool needs: keeps host settings (a real EDGELOOP_WEBFETCH_ALLOW, git config)
  // from changing results.
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: options.workspace,
    LANG: "C.UTF-8",
    GIT_CONFIG_NOSYSTEM: "1",
    EDGELOOP_WORKSPACE: options.workspace,
    EDGELOOP_REQUEST_ID: "req-test-1",
    EDGELOOP_TOOL: binary,
    EDGELOOP_TIMEOUT_MS: "15000",
  };
  for (const [key, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return new Promise((resolve, reject) => {
    const child = spawn(binaryPath(skill, binary), options.args ?? [], {
      cwd: options.workspace,
      env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (b: Buffer) => out.push(b));
    child.stderr.on("data", (b: Buffer) => err.push(b));
    child.on("error", reject);
    child.on("close", (code) => {
      resolve({
        code: code ?? -1,
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
      });
    });
    child.stdin.end(options.stdinText ?? JSON.stringify(params));
    options.onSpawn?.(child);
  });
}

/** The parsed stdout of an output = "content" tool. */
export type ContentResult = {
  result: string;
  content: Array<{ type: "text"; text: string } | { type: "image"; data: string; mimeType: string }>;
};
