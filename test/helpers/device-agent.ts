import { join } from "node:path";
import { ADMIN_TOKEN } from "./local-worker.js";
import { packageBin } from "./package-bundles.js";
import { type Child, REPO_ROOT, startChild } from "./processes.js";
import { tempDir } from "./temp-dir.js";
import { waitUntil } from "./wait.js";

export const BUNDLED_SKILLS = [join(REPO_ROOT, "skills/desktop-tools"), join(REPO_ROOT, "skills/pi-tools")];

export type AgentProcess = {
  child: Child;
  workspace: string;
  stateDir: string;
  stop: () => Promise<void>;
  kill: () => Promise<void>;
};

/**
 * A real `edgeloop-agent` child process; resolves once the hub reports it online. By default the
 * run's build of the package (package-bundles.ts); `bin` runs another one (an installed package's) from `cwd`.
 * `skills: []` gives no --skills, so the agent loads the skills that ship with it.
 */
export async function startAgent(opts: {
  url: string;
  bin?: string;
  /** the Node that runs it (default: the suite's own) */
  node?: string;
  cwd?: string;
  agentId: string;
  token: string;
  skills?: string[];
  workspace?: string;
  stateDir?: string;
  extraArgs?: string[];
  env?: Record<string, string>;
}): Promise<AgentProcess> {
  const workspace = opts.workspace ?? tempDir("edgeloop-ws-");
  const stateDir = opts.stateDir ?? tempDir("edgeloop-agent-state-");
  const args = [
    opts.bin ?? packageBin("device-agent"),
    "--url",
    opts.url,
    "--agent-id",
    opts.agentId,
    "--token",
    opts.token,
    "--workspace",
    workspace,
    "--state-dir",
    stateDir,
    ...(opts.skills ?? BUNDLED_SKILLS).flatMap((s) => ["--skills", s]),
    ...(opts.extraArgs ?? []),
  ];
  const child = startChild(opts.node ?? process.execPath, args, {
    name: `agent ${opts.agentId}`,
    env: opts.env ?? {},
    ...(opts.cwd ? { cwd: opts.cwd } : {}),
  });
  try {
    await waitUntil(
      () =>
        fetch(`${opts.url}/v1/devices/${opts.agentId}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }).then(
          (r) => r.json() as Promise<{ online: boolean }>,
        ),
      (v) => v.online === true,
      { timeoutMs: 30_000, what: `agent ${opts.agentId} online` },
    );
  } catch (e) {
    await child.stop();
    throw new Error(`${(e as Error).message}\n--- agent output ---\n${child.output()}`);
  }
  return { child, workspace, stateDir, stop: () => child.stop("SIGTERM"), kill: () => child.stop("SIGKILL") };
}
