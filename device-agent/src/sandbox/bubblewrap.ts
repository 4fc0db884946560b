import { spawnSync } from "node:child_process";
import { existsSync, realpathSync, statSync } from "node:fs";
import { dirname, isAbsolute, relative } from "node:path";
import { findOnPath } from "../skills/find-executable.js";

export type BwrapStatus = { usable: true; path: string } | { usable: false; reason: string };

/**
 * bwrap on PATH is not enough: kernels or AppArmor profiles that forbid unprivileged user
 * namespaces (Ubuntu 24.04 by default) make every run fail, and inside many containers a sandbox
 * can be made but its own /proc cannot be mounted. Run a no-op sandbox with the same mounts a
 * tool gets (see sandboxArgs) once to know.
 */
export function probeBwrap(pathEnv = process.env.PATH ?? ""): BwrapStatus {
  const path = findOnPath("bwrap", pathEnv);
  if (!path) return { usable: false, reason: "bwrap is not installed (apt install bubblewrap)" };
  const mounts = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"];
  const probe = spawnSync(path, [...mounts, "--unshare-all", "--die-with-parent", "--", "true"], {
    timeout: 5_000,
    encoding: "utf8",
  });
  if (probe.status === 0) return { usable: true, path };
  const why = (probe.stderr || probe.error?.message || `exit ${probe.status}`).trim().split("\n")[0];
  return { usable: false, reason: `bwrap is installed but cannot create a sandbox: ${why}` };
}

export type BwrapPlan = {
  workspace: string;
  skillDir: string;
  network: boolean;
  /** paths that must not be readable inside (the agent's state dir, its config file) */
  hide: string[];
  /** more paths the program needs, bound read-only (an MCP server's own files: see mcp/server-binds.ts) */
  readOnly?: string[];
};

/** Folders that hold other users' files, secrets and sockets: replaced by empty tmpfs. */
export const MASKED_DIRS = ["/home", "/root", "/run", "/etc/edgeloop", "/var/lib/edgeloop"];

function inside(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/**
 * The bwrap arguments that come before `-- binary args`. Mount order matters: later mounts go on
 * top, so the masks come first and what the tool needs is bound back on top of them.
 */
export function bwrapArgs(plan: BwrapPlan): string[] {
  const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"];
  for (const dir of MASKED_DIRS) if (existsSync(dir)) args.push("--tmpfs", dir);
  // Bind back what the tool needs to run: node (for #!/usr/bin/env node tools) and its skill folder.
  const nodePrefix = dirname(dirname(process.execPath));
  if (MASKED_DIRS.some((m) => inside(m, nodePrefix)) || inside("/tmp", nodePrefix)) {
    args.push("--ro-bind", nodePrefix, nodePrefix);
  }
  args.push("--ro-bind", plan.skillDir, plan.skillDir);
  for (const path of plan.readOnly ?? []) args.push("--ro-bind", path, path);
  // /run is masked, but /etc/resolv.conf often links into it (systemd-resolved, NetworkManager).
  const resolver = plan.network ? resolvConfTarget() : null;
  if (resolver) args.push("--ro-bind", resolver, resolver);
  args.push("--bind", plan.workspace, plan.workspace);
  for (const path of plan.hide) {
    if (!existsSync(path)) continue;
    // A file is hidden by binding /dev/null over it, a folder by an empty tmpfs.
    args.push(...(isDirectory(path) ? ["--tmpfs", path] : ["--ro-bind", "/dev/null", path]));
  }
  args.push("--unshare-all");
  if (plan.network) args.push("--share-net");
  args.push("--die-with-parent", "--new-session", "--chdir", plan.workspace);
  return args;
}

function resolvConfTarget(): string | null {
  try {
    const target = realpathSync("/etc/resolv.conf");
    return MASKED_DIRS.some((m) => inside(m, target)) ? target : null;
  } catch {
    return null;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
