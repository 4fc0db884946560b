// @ts-check
// Finds executables on PATH, for tools that can use one of several system commands.
import { accessSync, constants, statSync } from "node:fs";
import path from "node:path";

/**
 * @param {string} name
 * @returns {string | null} absolute path, or null when not on PATH
 */
export function which(name) {
  if (name.includes("/")) return isExecutableFile(name) ? name : null;
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return null;
}

/** @param {string} file */
function isExecutableFile(file) {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}
