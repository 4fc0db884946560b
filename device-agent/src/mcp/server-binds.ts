import { existsSync, realpathSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, relative, sep } from "node:path";
import { MASKED_DIRS } from "../sandbox/bubblewrap.js";

/**
 * What a sandboxed MCP server must still read besides its skill folder: the files its command
 * names, and the packages they load. The sandbox hides /home, /root and /tmp, where servers a user
 * installed (and the npm packages of a project checked out there) often live. For each absolute
 * path in the command that exists outside the workspace: inside a `node_modules` tree, the
 * outermost `node_modules` (Node resolves a package's dependencies by walking up through them);
 * otherwise a file's folder (or the folder itself) and the nearest `node_modules` above it. Never a
 * masked folder or a home folder as a whole (a script kept in ~ would otherwise show the whole
 * home, keys and all): there, only the file. Bound read-only, by their real paths, so symlinks
 * resolve inside; the workspace stays the only place the server can write.
 */
export function serverReadOnlyPaths(commandParts: readonly string[], workspace: string): string[] {
  const out = new Set<string>();
  const add = (path: string, fallback: string) => out.add(tooWide(path) ? fallback : path);
  for (const part of commandParts) {
    if (!isAbsolute(part) || !existsSync(part) || within(workspace, part)) continue;
    const real = realpathSync(part);
    const modules = outermostNodeModules(real);
    if (modules) {
      add(modules, real);
      continue;
    }
    const folder = isFile(real) ? dirname(real) : real;
    add(folder, real);
    const deps = nearestNodeModules(folder);
    if (deps) add(deps, real);
  }
  return [...out];
}

function outermostNodeModules(path: string): string | null {
  const parts = path.split(sep);
  const at = parts.indexOf("node_modules");
  return at > 0 ? parts.slice(0, at + 1).join(sep) : null;
}

function nearestNodeModules(from: string): string | null {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules");
    if (existsSync(candidate)) return realpathSync(candidate);
    if (dirname(dir) === dir) return null;
  }
}

/** The root, a masked folder itself, or a home folder (`/home/<user>`): never bound whole. */
function tooWide(dir: string): boolean {
  return dir === "/" || MASKED_DIRS.includes(dir) || dirname(dir) === "/home";
}

function within(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
