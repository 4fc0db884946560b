/**
 * The real, unmodified `openclaw` package for end-to-end tests: installed on first use with Node 24
 * (pinned-node.ts) into the test tools cache, never by the project's `npm install`. A node host started
 * here runs as its users start it (`openclaw node run …` / `openclaw connect …`), with its own
 * state directory and HOME, so it neither reads nor writes the machine's ~/.openclaw.
 */
import { join } from "node:path";
import { nodeWithPackages } from "./pinned-node.js";
import { type Child, startChild } from "./processes.js";
import { tempDir } from "./temp-dir.js";

/** Pinned: the version the protocol was written from and checked against. */
export const OPENCLAW = "openclaw@2026.9.6";

export type OpenClawNode = { child: Child; stateDir: string; stop: () => Promise<void> };

/** Node 24 and the package, installed now if they are not yet (minutes on a fresh machine: call it from a hook). */
export function provisionOpenClaw(): void {
  nodeWithPackages([OPENCLAW]);
}

/** `openclaw <args…>` as a user types it (the words after `openclaw` in the line edgeloop printed). */
export function startOpenClaw(
  args: string[],
  opts: { stateDir?: string; env?: Record<string, string> } = {},
): OpenClawNode {
  const tools = nodeWithPackages([OPENCLAW]);
  const stateDir = opts.stateDir ?? tempDir("openclaw-state-");
  const child = startChild(tools.node, [join(tools.modules, "openclaw", "openclaw.mjs"), ...args], {
    name: "openclaw",
    cwd: stateDir,
    env: {
      HOME: stateDir,
      OPENCLAW_STATE_DIR: join(stateDir, "state"),
      OPENCLAW_NO_AUTO_UPDATE: "1",
      NO_COLOR: "1",
      ...opts.env,
    },
  });
  return { child, stateDir, stop: () => child.stop() };
}

/** The words of a printed `openclaw …` line, without the program name. */
export function openclawArgs(line: string): string[] {
  const words = line.trim().split(/\s+/);
  if (words[0] !== "openclaw") throw new Error(`not an openclaw line: ${line}`);
  return words.slice(1);
}
