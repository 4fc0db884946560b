// The pretest step that provisions the suite's system tools: its decisions, and the real script run
// against stub `apt-get` and `sudo` executables on a PATH made for the test (nothing is installed).

import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { provision } from "../../../scripts/provision-test-tools.js";
import { findCommand, planProvision, TEST_TOOLS } from "../../../scripts/test-tools.js";
import { tempDir } from "../../helpers/temp-dir.js";

describe("planProvision", () => {
  it("does nothing when every tool is present", () => {
    expect(planProvision([], { root: false, passwordlessSudo: false, aptGet: false })).toEqual({ kind: "ready" });
  });

  it("as root with apt-get: updates, then installs exactly the missing packages", () => {
    const plan = planProvision([TEST_TOOLS.bwrap, TEST_TOOLS.chromium], {
      root: true,
      passwordlessSudo: false,
      aptGet: true,
    });
    expect(plan).toEqual({
      kind: "install",
      packages: ["bubblewrap", "chromium"],
      commands: [
        ["apt-get", "update", "-qq"],
        ["apt-get", "install", "-y", "-qq", "bubblewrap", "chromium"],
      ],
    });
  });

  it("as a user with passwordless sudo: the same through sudo -n", () => {
    const plan = planProvision([TEST_TOOLS.mosquitto], { root: false, passwordlessSudo: true, aptGet: true });
    expect(plan.kind === "install" && plan.commands).toEqual([
      ["sudo", "-n", "apt-get", "update", "-qq"],
      ["sudo", "-n", "apt-get", "install", "-y", "-qq", "mosquitto"],
    ]);
  });

  it("as a user without sudo: one line naming what is missing and the command to run", () => {
    const plan = planProvision([TEST_TOOLS.bwrap, TEST_TOOLS.chromium], {
      root: false,
      passwordlessSudo: false,
      aptGet: true,
    });
    expect(plan.kind).toBe("stop");
    const line = plan.kind === "stop" ? plan.line : "";
    expect(line).not.toContain("\n");
    expect(line).toContain("bwrap (the bash sandbox), chromium (the browser tool and the dashboard)");
    expect(line).toContain("sudo apt-get update && sudo apt-get install -y bubblewrap chromium");
  });

  it("without apt-get: one line naming the packages to install some other way", () => {
    const plan = planProvision([TEST_TOOLS.git], { root: true, passwordlessSudo: false, aptGet: false });
    expect(plan).toMatchObject({ kind: "stop", line: expect.stringContaining("no apt-get") });
    expect(plan.kind === "stop" && plan.line).toContain("git");
  });
});

/** A PATH with stub executables: `apt-get install` "installs" a package by creating its command. */
function stubMachine(opts: { sudo: boolean; aptGet: boolean; aptFails?: boolean; present?: string[] }) {
  const root = tempDir("provision-");
  const bin = join(root, "bin");
  const installed = join(root, "installed");
  const log = join(root, "calls.log");
  const script = (dir: string, name: string, body: string) => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, name), `#!/bin/sh\n${body}\n`);
    chmodSync(join(dir, name), 0o755);
  };
  mkdirSync(bin, { recursive: true });
  mkdirSync(installed, { recursive: true });
  if (opts.aptGet)
    script(
      bin,
      "apt-get",
      [
        'echo "apt-get $*" >> "$STUB_LOG"',
        '[ "$DEBIAN_FRONTEND" = noninteractive ] || exit 3',
        '[ "$1" = install ] || exit 0',
        opts.aptFails ? "exit 100" : "",
        'for p in "$@"; do',
        '  case "$p" in -*|install) continue ;; bubblewrap) c=bwrap ;; *) c="$p" ;; esac',
        `  printf '#!/bin/sh\\n' > "$STUB_INSTALLED/$c"; /bin/chmod +x "$STUB_INSTALLED/$c"`,
        "done",
      ].join("\n"),
    );
  if (opts.sudo)
    script(
      bin,
      "sudo",
      ['echo "sudo $*" >> "$STUB_LOG"', '[ "$1" = -n ] && shift', '[ "$1" = true ] && exit 0', 'exec "$@"'].join("\n"),
    );
  for (const c of opts.present ?? []) script(installed, c, "exit 0");
  const env = { PATH: `${bin}:${installed}`, STUB_LOG: log, STUB_INSTALLED: installed };
  const lines: string[] = [];
  return {
    run: (uid: number) => provision({ env, uid, extraDirs: [], log: (l) => lines.push(l) }),
    lines,
    calls: () => (existsSync(log) ? readFileSync(log, "utf8").trim().split("\n") : []),
    has: (c: string) => findCommand([c], env.PATH, []) !== null,
  };
}

describe("provision (stub apt-get and sudo on PATH)", () => {
  it("as root: installs what is missing, and then finds it", () => {
    const m = stubMachine({ sudo: false, aptGet: true, present: ["git", "openssl"] });
    expect(m.run(0)).toBe(0);
    expect(m.calls()).toEqual(["apt-get update -qq", "apt-get install -y -qq bubblewrap chromium mosquitto"]);
    expect(["bwrap", "chromium", "mosquitto"].every(m.has)).toBe(true);
    expect(m.lines).toEqual(["npm test: installing bubblewrap chromium mosquitto (Debian packages the suite needs)"]);
  });

  it("with everything present: calls nothing", () => {
    const m = stubMachine({
      sudo: true,
      aptGet: true,
      present: ["git", "bwrap", "chromium-browser", "mosquitto", "openssl"],
    });
    expect(m.run(1000)).toBe(0);
    expect(m.calls()).toEqual([]);
    expect(m.lines).toEqual([]);
  });

  it("as a user with passwordless sudo: installs through sudo -n", () => {
    const m = stubMachine({ sudo: true, aptGet: true, present: ["git", "bwrap", "mosquitto", "openssl"] });
    expect(m.run(1000)).toBe(0);
    expect(m.calls()).toEqual([
      "sudo -n true",
      "sudo -n apt-get update -qq",
      "apt-get update -qq",
      "sudo -n apt-get install -y -qq chromium",
      "apt-get install -y -qq chromium",
    ]);
  });

  it("as a user without sudo: stops with one line and installs nothing", () => {
    const m = stubMachine({ sudo: false, aptGet: true, present: ["git", "mosquitto", "openssl"] });
    expect(m.run(1000)).toBe(1);
    expect(m.calls()).toEqual([]);
    expect(m.lines).toHaveLength(1);
    expect(m.lines[0]).toContain("sudo apt-get update && sudo apt-get install -y bubblewrap chromium");
  });

  it("when apt-get fails: says which command failed", () => {
    const m = stubMachine({
      sudo: false,
      aptGet: true,
      aptFails: true,
      present: ["git", "bwrap", "chromium", "openssl"],
    });
    expect(m.run(0)).toBe(1);
    expect(m.lines.at(-1)).toBe("npm test: `apt-get install -y -qq mosquitto` failed (exit 100)");
  });
});
