import { accessSync, constants, statSync } from "node:fs";
import { delimiter, join } from "node:path";

export type ExecutableCheck = { ok: true } | { ok: false; reason: "missing" | "not_executable" | "not_a_file" };

/** A file we could spawn: exists, is a regular file, and has an execute bit for us. */
export function checkExecutable(path: string): ExecutableCheck {
  let isFile: boolean;
  try {
    isFile = statSync(path).isFile();
  } catch {
    return { ok: false, reason: "missing" };
  }
  if (!isFile) return { ok: false, reason: "not_a_file" };
  try {
    accessSync(path, constants.X_OK);
    return { ok: true };
  } catch {
    return { ok: false, reason: "not_executable" };
  }
}

/** `which`: the first executable called `name` on PATH, or null. */
export function findOnPath(name: string, pathEnv = process.env.PATH ?? ""): string | null {
  if (name.includes("/")) return checkExecutable(name).ok ? name : null;
  for (const dir of pathEnv.split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    if (checkExecutable(candidate).ok) return candidate;
  }
  return null;
}
