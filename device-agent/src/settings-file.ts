import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir, hostname } from "node:os";
import { dirname, join } from "node:path";
import { Identifier } from "@edgeloop/protocol/ids";
import { parse as parseToml, stringify as stringifyToml } from "smol-toml";

/** Where `pair` keeps the agent's settings unless told otherwise: `$XDG_CONFIG_HOME/edgeloop/agent.toml`. */
export function defaultSettingsFile(env: NodeJS.ProcessEnv): string {
  return join(env.XDG_CONFIG_HOME || join(homedir(), ".config"), "edgeloop", "agent.toml");
}

/** The host's name as a device id (`Pi 4.local` → `pi-4.local`), or `edgeloop-agent` if nothing usable is left. */
export function defaultAgentId(host: string = hostname()): string {
  const id = host
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, "-")
    .replace(/^[^a-z0-9]+/, "")
    .slice(0, 64);
  return Identifier.safeParse(id).success ? id : "edgeloop-agent";
}

/**
 * Write the paired device's URL, id and token into the settings file's `[agent]` section, keeping
 * everything else in it. The file holds a credential: it is written to a temporary file made
 * owner-only (0600) and renamed over the old one, so it is never readable by others, not even
 * half-written; a folder made for it is owner-only (0700) too.
 */
export function saveAgentSettings(file: string, agent: { url: string; id: string; token: string }): void {
  const dir = dirname(file);
  if (!existsSync(dir)) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
  }
  const current = existsSync(file) ? (parseToml(readFileSync(file, "utf8")) as Record<string, unknown>) : {};
  const section = (current.agent ?? {}) as Record<string, unknown>;
  const next = { ...current, agent: { ...section, url: agent.url, id: agent.id, token: agent.token } };
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${stringifyToml(next)}\n`, { mode: 0o600 });
  chmodSync(temp, 0o600);
  renameSync(temp, file);
}
