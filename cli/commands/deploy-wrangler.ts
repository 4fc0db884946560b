import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { CliError, EXIT } from "../exit-codes.js";
import type { WranglerRun } from "./deploy-wrangler-output.js";

/**
 * Runs wrangler for `edgeloop deploy`: `--wrangler <path>` when given, else `wrangler` looked up
 * on PATH. `npx edgeloop deploy` and `npm run deploy` put the project's node_modules/.bin on PATH,
 * so from a clone that is the wrangler the project pins; a test puts a stand-in first on PATH.
 */
export type Wrangler = {
  command: string;
  /** `stdin` is written and closed (secrets go this way, never on argv); `echo` copies the output to stderr as it comes. */
  run(args: string[], opts?: { stdin?: string; echo?: boolean }): Promise<WranglerRun>;
};

export function wranglerIn(projectDir: string, command = "wrangler"): Wrangler {
  return {
    command,
    run: (args, opts = {}) =>
      new Promise((done, fail) => {
        const child = spawn(command, args, {
          cwd: projectDir,
          // Plain text to parse; wrangler colours its output even into a pipe otherwise.
          env: { ...process.env, FORCE_COLOR: "0" },
          stdio: [opts.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"],
          shell: process.platform === "win32",
        });
        let stdout = "";
        let stderr = "";
        child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
          stdout += chunk;
          if (opts.echo) process.stderr.write(chunk);
        });
        child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
          stderr += chunk;
          if (opts.echo) process.stderr.write(chunk);
        });
        child.stdin?.on("error", () => {}); // wrangler exiting before reading stdin shows in its exit code
        child.stdin?.end(opts.stdin);
        child.on("error", (e: NodeJS.ErrnoException) =>
          fail(
            e.code === "ENOENT"
              ? new CliError(
                  `wrangler not found (tried '${command}'${command === "wrangler" ? " on PATH" : ""}). ` +
                    "Run `npm install` in your clone of edgeloop and then `npx edgeloop deploy` there (it uses the " +
                    "project's wrangler), or pass --wrangler <path>. Nothing was changed.",
                  EXIT.usage,
                )
              : e,
          ),
        );
        child.on("close", (code, signal) => done({ code: code ?? (signal ? 128 : 1), stdout, stderr }));
      }),
  };
}

/** The folder holding wrangler.toml, from `start` upwards, as wrangler itself looks for it. */
export function findProjectDir(start: string): string {
  for (let dir = resolve(start); ; dir = dirname(dir)) {
    if (existsSync(join(dir, "wrangler.toml"))) return dir;
    if (dirname(dir) === dir)
      throw new CliError(
        `no wrangler.toml in ${resolve(start)} or above it: run edgeloop deploy in your clone of edgeloop, ` +
          "or pass --dir <the clone>",
        EXIT.usage,
      );
  }
}
