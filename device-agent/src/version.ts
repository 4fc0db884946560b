import { readFileSync } from "node:fs";
import { z } from "zod";

const PackageJson = z.object({ version: z.string().min(1).max(64) });

/**
 * The agent package's version, reported in `hello` and by `--version`. Its package.json is one
 * level above this module both in the repository (src/) and in the installed bundle (dist/).
 */
export function agentVersion(): string {
  try {
    const text = readFileSync(new URL("../package.json", import.meta.url), "utf8");
    const parsed = PackageJson.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data.version : "0.0.0";
  } catch {
    return "0.0.0";
  }
}
