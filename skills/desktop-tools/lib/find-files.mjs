// @ts-check
// File listing for glob and grep: tinyglobby without following symlinks, then every hit's real
// path re-checked so a symlink inside the workspace never exposes a file outside it.
import { realpathSync, statSync } from "node:fs";
import path from "node:path";
import { glob } from "tinyglobby";
import { permissionError, usageError } from "./exit.mjs";
import { displayPath, isInside } from "./workspace.mjs";

/**
 * Refuse patterns that climb out of the search folder or start elsewhere.
 * @param {string} pattern
 */
export function checkPattern(pattern) {
  if (pattern.trim() === "") throw usageError("pattern must not be empty");
  if (path.isAbsolute(pattern) || pattern.split(/[\\/]/).includes("..")) {
    throw permissionError(
      `pattern "${pattern}" reaches outside the search folder; use a relative pattern and the path parameter`,
    );
  }
  return pattern;
}

/**
 * @param {{ root: string, dir: string, patterns: string[], ignore?: string[] }} options
 *   root: the resolved workspace; dir: the resolved folder to search in
 * @returns {Promise<{ real: string, display: string }[]>} sorted by display path
 */
export async function findFiles({ root, dir, patterns, ignore = [] }) {
  const hits = await glob(patterns, {
    cwd: dir,
    dot: true,
    onlyFiles: true,
    followSymbolicLinks: false,
    absolute: true,
    ignore: ["**/.git/**", ...ignore],
    expandDirectories: false,
  });
  /** @type {{ real: string, display: string }[]} */
  const files = [];
  for (const hit of hits) {
    let real;
    try {
      real = realpathSync(hit);
      if (!statSync(real).isFile()) continue;
    } catch {
      continue; // dangling link, or removed while listing
    }
    if (!isInside(root, real)) continue;
    files.push({ real, display: displayPath(root, hit) });
  }
  return files.sort((a, b) => (a.display < b.display ? -1 : a.display > b.display ? 1 : 0));
}
