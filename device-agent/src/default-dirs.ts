import { existsSync, mkdirSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";

/**
 * Where the agent keeps its files when not told: a folder of its own under the XDG data home
 * (`$XDG_DATA_HOME/edgeloop`, else `~/.local/share/edgeloop`), never the folder it was started
 * from: started in a clone, that made the repository the place write, bash and apply_patch change.
 */
export function agentDataHome(env: NodeJS.ProcessEnv): string {
  return join(env.XDG_DATA_HOME || join(homedir(), ".local", "share"), "edgeloop");
}

export const defaultWorkspace = (env: NodeJS.ProcessEnv) => join(agentDataHome(env), "workspace");
export const defaultStateDir = (env: NodeJS.ProcessEnv) => join(agentDataHome(env), "state");

/** Makes the default workspace when it is missing, owner-only: tools read and write what is in it. */
export function ensureOwnFolder(dir: string): void {
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
}

/**
 * Why a workspace is a risky one, or null: a git repository (the tools can rewrite its files and
 * history) or a home directory (every file of the user's, keys and shell start-up files included).
 */
export function riskyWorkspace(workspace: string, home: string = homedir()): string | null {
  let dir: string;
  try {
    dir = realpathSync(workspace);
  } catch {
    return null;
  }
  const homes = new Set([home, "/root"].flatMap((h) => (existsSync(h) ? [realpathSync(h)] : [])));
  if (homes.has(dir) || dirname(dir) === "/home")
    return `workspace ${workspace} is a home directory: tools may change any file in it; give the agent a folder of its own`;
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(join(d, ".git")))
      return `workspace ${workspace} is inside the git repository ${d}: tools may rewrite its files; give the agent a folder of its own`;
    if (dirname(d) === d) return null;
  }
}
