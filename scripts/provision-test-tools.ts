/**
 * `npm test`'s pretest step: git, bubblewrap, chromium and mosquitto must be on this machine
 * before the suite runs, since a test never skips for want of one. Missing ones are installed from
 * Debian's packages when this user can (root or passwordless sudo, with apt-get); otherwise it
 * stops with one line naming what is missing and the command that installs it.
 */
import { spawnSync } from "node:child_process";
import { pathToFileURL } from "node:url";
import { findCommand, type Host, planProvision, SBIN_DIRS, TEST_TOOLS, type TestTool } from "./test-tools.js";

export type ProvisionOptions = {
  env: NodeJS.ProcessEnv;
  /** effective user id; 0 is root */
  uid: number;
  /** searched after PATH (sbin, where daemons live) */
  extraDirs?: readonly string[];
  log?: (line: string) => void;
};

function missingTools(env: NodeJS.ProcessEnv, extraDirs: readonly string[]): TestTool[] {
  return Object.values(TEST_TOOLS).filter((t) => findCommand(t.commands, env.PATH, extraDirs) === null);
}

function hostOf(opts: ProvisionOptions, extraDirs: readonly string[]): Host {
  const sudo = findCommand(["sudo"], opts.env.PATH, extraDirs);
  return {
    root: opts.uid === 0,
    passwordlessSudo:
      opts.uid !== 0 &&
      sudo !== null &&
      spawnSync(sudo, ["-n", "true"], { env: opts.env, stdio: "ignore" }).status === 0,
    aptGet: findCommand(["apt-get"], opts.env.PATH, extraDirs) !== null,
  };
}

/** Returns the exit status: 0 when every tool is here (found or installed), 1 otherwise. */
export function provision(opts: ProvisionOptions): number {
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const extraDirs = opts.extraDirs ?? SBIN_DIRS;
  const missing = missingTools(opts.env, extraDirs);
  if (missing.length === 0) return 0; // the usual case: asks nothing of sudo or apt
  const plan = planProvision(missing, hostOf(opts, extraDirs));
  if (plan.kind === "ready") return 0;
  if (plan.kind === "stop") {
    log(plan.line);
    return 1;
  }
  log(`npm test: installing ${plan.packages.join(" ")} (Debian packages the suite needs)`);
  const env = { ...opts.env, DEBIAN_FRONTEND: "noninteractive" };
  for (const [command, ...args] of plan.commands) {
    const run = spawnSync(command!, args, { env, stdio: ["ignore", "ignore", "inherit"] });
    if (run.status !== 0) {
      log(`npm test: \`${[command, ...args].join(" ")}\` failed (${run.error?.message ?? `exit ${run.status}`})`);
      return 1;
    }
  }
  const still = missingTools(opts.env, extraDirs);
  if (still.length > 0) {
    log(`npm test: installed ${plan.packages.join(" ")}, yet ${still.map((t) => t.commands[0]).join(", ")} not found`);
    return 1;
  }
  return 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  process.exitCode = provision({ env: process.env, uid: process.getuid?.() ?? -1 });
}
