import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { parse as parseToml } from "smol-toml";
import { z } from "zod";
import { usageError } from "./exit-codes.js";

/** Where the CLI talks to and as whom. Flags win over the environment, which wins over the file. */
export type Settings = {
  url: string;
  /** no flag, variable or file named the URL: the local worker's is assumed */
  urlIsDefault?: boolean;
  token?: string;
  adminToken?: string;
  agent?: string;
  configPath: string | null;
};

export const DEFAULT_URL = "http://127.0.0.1:8787";

const ConfigFile = z
  .object({
    url: z.string().url(),
    token: z.string().min(1),
    admin_token: z.string().min(1),
    agent: z.string().min(1).max(128),
  })
  .partial()
  .strict();

const Url = z
  .string()
  .url()
  .refine((u) => /^https?:\/\//.test(u), "must be an http:// or https:// URL")
  .transform((u) => u.replace(/\/+$/, ""));

export type SettingSources = {
  flags: { url?: string; token?: string; "admin-token"?: string; config?: string; agent?: string };
  env: NodeJS.ProcessEnv;
};

export function defaultConfigPath(env: NodeJS.ProcessEnv): string {
  return join(env.XDG_CONFIG_HOME || join(homedir(), ".config"), "edgeloop", "cli.toml");
}

function readConfigFile(path: string, explicit: boolean): z.infer<typeof ConfigFile> {
  if (!existsSync(path)) {
    if (explicit) throw usageError(`config file ${path} does not exist`);
    return {};
  }
  let raw: unknown;
  try {
    raw = parseToml(readFileSync(path, "utf8"));
  } catch (e) {
    throw usageError(`config file ${path}: ${(e as Error).message.split("\n")[0]}`);
  }
  const parsed = ConfigFile.safeParse(raw);
  if (!parsed.success) {
    throw usageError(
      `config file ${path}: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(top)"}: ${i.message}`).join("; ")}`,
    );
  }
  return parsed.data;
}

export function resolveSettings({ flags, env }: SettingSources): Settings {
  const explicitPath = flags.config ?? env.EDGELOOP_CLI_CONFIG;
  const configPath = explicitPath ?? defaultConfigPath(env);
  const file = readConfigFile(configPath, explicitPath !== undefined);
  const pick = (...vals: (string | undefined)[]) => vals.find((v) => v !== undefined && v !== "");
  const givenUrl = pick(flags.url, env.EDGELOOP_URL, file.url);
  const rawUrl = givenUrl ?? DEFAULT_URL;
  const url = Url.safeParse(rawUrl);
  if (!url.success) throw usageError(`server URL '${rawUrl}': ${url.error.issues[0]!.message}`);
  const token = pick(flags.token, env.EDGELOOP_TOKEN, file.token);
  const adminToken = pick(flags["admin-token"], env.EDGELOOP_ADMIN_TOKEN, file.admin_token);
  const agent = pick(flags.agent, env.EDGELOOP_AGENT, file.agent);
  return {
    url: url.data,
    ...(givenUrl === undefined ? { urlIsDefault: true } : {}),
    configPath: existsSync(configPath) ? configPath : null,
    ...(token ? { token } : {}),
    ...(adminToken ? { adminToken } : {}),
    ...(agent ? { agent } : {}),
  };
}
