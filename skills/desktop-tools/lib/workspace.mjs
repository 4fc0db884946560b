// @ts-check
// Confines file tools to EDGELOOP_WORKSPACE. Paths are checked after resolving `..` and every
// symlink (including dangling ones, whose target a write would create), so a link inside the
// workspace cannot be used to reach files outside it.
import { lstatSync, readlinkSync, realpathSync } from "node:fs";
import path from "node:path";
import { permissionError } from "./exit.mjs";

const MAX_LINK_HOPS = 40;

/** The workspace root, fully resolved. Defaults to the cwd, which the agent sets to the workspace. */
export function workspaceRoot() {
  return realpathSync(process.env.EDGELOOP_WORKSPACE || process.cwd());
}

/**
 * Resolve a user-given path inside the workspace; exits 77 (via ToolError) when it escapes.
 * The target need not exist (write creates it).
 * @param {string} userPath relative to the workspace, or absolute inside it
 * @returns {{ real: string, display: string, root: string }}
 */
export function resolveInWorkspace(userPath) {
  const root = workspaceRoot();
  const real = realResolve(path.resolve(root, userPath), 0);
  if (!isInside(root, real)) throw permissionError(`path "${userPath}" is outside the workspace`);
  return { real, display: displayPath(root, real), root };
}

/**
 * @param {string} root @param {string} candidate both already resolved
 */
export function isInside(root, candidate) {
  const rel = path.relative(root, candidate);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

/** Workspace-relative form for output, so results can be fed straight back into file tools. */
/** @param {string} root @param {string} real */
export function displayPath(root, real) {
  return path.relative(root, real) || ".";
}

/**
 * realpath that also works for paths that do not exist yet.
 * @param {string} abs @param {number} hops
 * @returns {string}
 */
function realResolve(abs, hops) {
  try {
    return realpathSync(abs);
  } catch {
    // Either it does not exist, or it is a dangling symlink (lstat sees it, realpath does not).
  }
  if (hops > MAX_LINK_HOPS) throw permissionError(`too many symbolic links resolving "${abs}"`);
  let stat = null;
  try {
    stat = lstatSync(abs);
  } catch {
    stat = null;
  }
  if (stat?.isSymbolicLink()) {
    return realResolve(path.resolve(path.dirname(abs), readlinkSync(abs)), hops + 1);
  }
  const parent = path.dirname(abs);
  if (parent === abs) return abs;
  return path.join(realResolve(parent, hops), path.basename(abs));
}
