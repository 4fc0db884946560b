/**
 * The worker settings `npm start` and `npm run dev` run with on this machine, and the checks both
 * make before starting wrangler. Precedence (README, "Configuration"): a setting in the environment
 * wins over the same one in `.dev.vars`, which wins over the throwaway local tokens made here.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { parseEnv } from "node:util";
import { SETTINGS_SOURCES } from "./docs/settings-sources.js";

/** Every var the deployment reads (the same list docs/configuration.md is generated from). */
export const WORKER_SETTING_NAMES: readonly string[] = SETTINGS_SOURCES.flatMap((s) => Object.keys(s.schema.shape));

export type LocalSettings = {
  /** the merged settings: environment over `.dev.vars` */
  vars: Record<string, string>;
  /** what `.dev.vars` holds (wrangler dev reads it by itself) */
  devVars: Record<string, string>;
  /** settings names taken from the environment, to say so */
  fromEnvironment: string[];
};

export function readLocalSettings(root: string, env: NodeJS.ProcessEnv): LocalSettings {
  const path = join(root, ".dev.vars");
  const devVars = existsSync(path) ? (parseEnv(readFileSync(path, "utf8")) as Record<string, string>) : {};
  const vars: Record<string, string> = { ...devVars };
  const fromEnvironment: string[] = [];
  for (const name of WORKER_SETTING_NAMES) {
    const value = env[name];
    // An empty variable means "not set" (as `API_TOKEN= npm start` is usually meant).
    if (value === undefined || value === "") continue;
    vars[name] = value;
    fromEnvironment.push(name);
  }
  return { vars, devVars, fromEnvironment };
}

export const throwawayToken = (prefix: string) => `${prefix}-${randomBytes(12).toString("hex")}`;

/**
 * A local token made up once and kept beside the worker's storage (`<state dir>/edgeloop-local-tokens.json`,
 * owner-only), so a restart of `npm start` or `npm run dev` keeps the dashboard session and every
 * printed CLI line working, as the conversations and devices in that storage persist too.
 * Removing the state dir forgets them with everything else.
 */
export function keptLocalToken(stateDir: string, name: string, prefix: string): string {
  const file = join(stateDir, "edgeloop-local-tokens.json");
  let kept: Record<string, string> = {};
  try {
    kept = JSON.parse(readFileSync(file, "utf8")) as Record<string, string>;
  } catch {
    /* none yet, or unreadable: made again */
  }
  if (typeof kept[name] === "string" && kept[name]) return kept[name];
  kept[name] = throwawayToken(prefix);
  mkdirSync(stateDir, { recursive: true });
  writeFileSync(file, `${JSON.stringify(kept, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return kept[name];
}

/** The first device id DEVICE_TOKENS names, and its first token (`pi-1:secret,…`). */
export function firstDeviceToken(deviceTokens: string | undefined): { agentId: string; token: string } | null {
  const entry = (deviceTokens ?? "").split(",").find((e) => e.includes(":"));
  if (!entry) return null;
  const at = entry.indexOf(":");
  return { agentId: entry.slice(0, at).trim(), token: entry.slice(at + 1).trim() };
}

/** `--var NAME:value` for each setting wrangler would not otherwise see with this value. */
export function varFlags(vars: Record<string, string>, devVars: Record<string, string>): string[] {
  return Object.entries(vars)
    .filter(([k, v]) => devVars[k] !== v)
    .flatMap(([k, v]) => ["--var", `${k}:${v}`]);
}

/**
 * Whether the port is free on 127.0.0.1, checked before wrangler starts so a busy port is named
 * as such (wrangler would otherwise fail later, and look like something else failing).
 */
export function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

export function busyPortMessage(port: number, command: "npm start" | "npm run dev"): string {
  return (
    `port ${port} on 127.0.0.1 is already in use (another npm start, npm run dev or wrangler dev?). ` +
    `Stop it, or pick another port: PORT=${port + 1} ${command}`
  );
}
