/**
 * `edgeloop`, the CLI, as a user runs it: a process of its own that sees only the
 * environment given here (PATH, and a HOME of the test's, so no settings of this machine leak in).
 * The one way the end-to-end tests run a CLI command to its end; the CLI is the run's build of
 * its package (package-bundles.ts), as installed.
 */
import { spawn } from "node:child_process";
import { ADMIN_TOKEN, API_TOKEN } from "./local-worker.js";
import { packageBin } from "./package-bundles.js";
import { REPO_ROOT } from "./processes.js";

export const CLI_BIN = packageBin("cli");

export type CliRun = { code: number | null; stdout: string; stderr: string };

/** An operator's settings: this worker, with the admin token. */
export const asAdmin = (workerUrl: string) => ({ EDGELOOP_URL: workerUrl, EDGELOOP_ADMIN_TOKEN: ADMIN_TOKEN });

/** A client's settings: this worker, with the API token. */
export const asClient = (workerUrl: string) => ({ EDGELOOP_URL: workerUrl, EDGELOOP_TOKEN: API_TOKEN });

/**
 * Runs `edgeloop ...args` to its end. `env` goes over a PATH of this process's and HOME=/nonexistent;
 * give HOME (and XDG_CONFIG_HOME) a folder where a test reads or writes the CLI's settings.
 */
export function runCli(args: readonly string[], env: Record<string, string> = {}, cwd = REPO_ROOT): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_BIN, ...args], {
      cwd,
      env: { PATH: process.env.PATH!, HOME: "/nonexistent", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}
