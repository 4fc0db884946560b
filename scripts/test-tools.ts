/**
 * The system tools the test suite runs, where to look for them, and what to do when some are
 * missing. Pure decisions (no process is started here): scripts/provision-test-tools.ts acts on
 * them before `npm test`, and test/helpers/system-tools.ts uses the same list so that a test whose
 * tool is missing fails naming the package, never skips.
 */
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";

export type TestTool = {
  /** what the tests use it for, for messages */
  why: string;
  /** any one of these on the search path will do */
  commands: readonly string[];
  /** the Debian package that installs it */
  aptPackage: string;
};

export const TEST_TOOLS = {
  git: { why: "git tools", commands: ["git"], aptPackage: "git" },
  bwrap: { why: "the bash sandbox", commands: ["bwrap"], aptPackage: "bubblewrap" },
  chromium: {
    why: "the browser tool and the dashboard",
    commands: ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"],
    aptPackage: "chromium",
  },
  mosquitto: { why: "the MQTT bridge", commands: ["mosquitto"], aptPackage: "mosquitto" },
  openssl: { why: "https stand-ins' certificates", commands: ["openssl"], aptPackage: "openssl" },
} as const satisfies Record<string, TestTool>;
export type TestToolName = keyof typeof TEST_TOOLS;

/** Daemons such as mosquitto live in sbin, which a non-root PATH often leaves out. */
export const SBIN_DIRS = ["/usr/local/sbin", "/usr/sbin", "/sbin"];

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first of `commands` found in PATH (then `extraDirs`), as an absolute path; null if none. */
export function findCommand(
  commands: readonly string[],
  path: string | undefined,
  extraDirs: readonly string[] = SBIN_DIRS,
): string | null {
  const dirs = [...(path ?? "").split(delimiter).filter(Boolean), ...extraDirs];
  for (const command of commands) {
    for (const dir of dirs) {
      const candidate = join(dir, command);
      if (executable(candidate)) return candidate;
    }
  }
  return null;
}

/** How this machine could install packages: who we are and which helpers exist. */
export type Host = {
  root: boolean;
  /** `sudo -n true` succeeds: sudo without a password prompt */
  passwordlessSudo: boolean;
  aptGet: boolean;
};

export type Plan =
  | { kind: "ready" }
  | { kind: "install"; packages: string[]; commands: string[][] }
  | { kind: "stop"; line: string };

const packagesOf = (missing: readonly TestTool[]) => [...new Set(missing.map((t) => t.aptPackage))];
const names = (missing: readonly TestTool[]) => missing.map((t) => `${t.commands[0]} (${t.why})`).join(", ");

/**
 * What to do about the missing tools: nothing, install their Debian packages (as root, or with
 * passwordless sudo), or stop with one line that says what is missing and how to install it.
 */
export function planProvision(missing: readonly TestTool[], host: Host): Plan {
  if (missing.length === 0) return { kind: "ready" };
  const packages = packagesOf(missing);
  if (!host.aptGet)
    return {
      kind: "stop",
      line: `npm test needs ${names(missing)}; this machine has no apt-get, so install the equivalent of the Debian packages ${packages.join(", ")} with its package manager and run npm test again`,
    };
  if (!host.root && !host.passwordlessSudo)
    return {
      kind: "stop",
      line: `npm test needs ${names(missing)}; install them with: sudo apt-get update && sudo apt-get install -y ${packages.join(" ")}`,
    };
  const sudo = host.root ? [] : ["sudo", "-n"];
  return {
    kind: "install",
    packages,
    commands: [
      [...sudo, "apt-get", "update", "-qq"],
      [...sudo, "apt-get", "install", "-y", "-qq", ...packages],
    ],
  };
}
