import { existsSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { LOG_LEVELS, type LogLevel } from "@edgeloop/edge-client/log";
import type { BrokerConfig } from "@edgeloop/edge-client/mqtt-options";
import { Identifier } from "@edgeloop/protocol/ids";
import type { Result } from "@edgeloop/protocol/result";
import { z } from "zod";
import { BUNDLED_SKILLS_DIR } from "./bundled-skills.js";
import { SETTINGS, type SettingKey } from "./config-settings.js";
import { type Layer, parseArgs, readConfigFile, readEnv, type Sourced } from "./config-sources.js";
import { defaultStateDir, defaultWorkspace } from "./default-dirs.js";
import { defaultAgentId, defaultSettingsFile } from "./settings-file.js";

export type { BrokerConfig };

export type SandboxMode = "auto" | "required" | "none";
/** Which transport the agent is set to use: the hub's WebSocket, or a broker's topics behind the bridge. */
export type TransportKind = "websocket" | "mqtt";

export type AgentConfig = {
  transport: TransportKind;
  /** "" with the MQTT transport (the bridge holds the WebSocket) */
  url: string;
  agentId: string;
  token: string;
  /** absolute skill folders */
  skills: string[];
  workspace: string;
  /** null: not restricted, the agent grants every permission its loaded tools use */
  capabilities: string[] | null;
  maxConcurrent: number;
  outputCapBytes: number;
  stateDir: string;
  logLevel: LogLevel;
  sandboxing: SandboxMode;
  /** device-wide ceiling on any tool's timeout; null: only the tools' own max_timeout_ms */
  toolTimeoutCeilingMs: number | null;
  killGraceMs: number;
  heartbeatMs: number;
  reconnectMinMs: number;
  reconnectMaxMs: number;
  shutdownGraceMs: number;
  resultTtlMs: number;
  resultMax: number;
  bashDeny: string[];
  bashDenyDefaults: boolean;
  /** `[tools.env]`: extra environment for tool binaries (API keys and tool settings) */
  toolEnv: Record<string, string>;
  configFile: string | null;
  /** set with the MQTT transport */
  broker: BrokerConfig | null;
};

export const DEFAULTS = {
  maxConcurrent: 5,
  // 256 KiB a stream: even all-escaped JSON (6×) of both streams stays under the hub's 4 MiB frame limit.
  outputCapBytes: 256 * 1024,
  logLevel: "info",
  sandboxing: "auto",
  killGraceMs: 2_000,
  heartbeatMs: 20_000,
  reconnectMinMs: 500,
  reconnectMaxMs: 30_000,
  shutdownGraceMs: 10_000,
  resultTtlMs: 24 * 60 * 60 * 1000,
  resultMax: 1000,
  bashDenyDefaults: true,
} as const;

/** Flags and env give text, TOML gives typed values: accept both, then hold them to one rule. */
const int = (min: number) =>
  z.preprocess(
    (v) => (typeof v === "string" && /^\s*-?\d+\s*$/.test(v) ? Number(v) : v),
    z.number({ error: "expected an integer" }).int("expected an integer").min(min, `must be at least ${min}`),
  );
const BOOL_TEXT: Record<string, boolean> = { true: true, "1": true, yes: true, false: false, "0": false, no: false };
const bool = z.preprocess(
  (v) => (typeof v === "string" && v.toLowerCase() in BOOL_TEXT ? BOOL_TEXT[v.toLowerCase()] : v),
  z.boolean({ error: "expected true or false" }),
);
const list = z.array(z.string().min(1));
const regexList = z.array(
  z.string().refine((s) => {
    try {
      new RegExp(s);
      return true;
    } catch {
      return false;
    }
  }, "not a valid regular expression"),
);

const SETTING_SCHEMAS: Record<SettingKey, z.ZodType> = {
  url: z
    .string()
    .url("expected a URL")
    .refine((u) => /^(https?|wss?):\/\//.test(u), "expected an http(s):// or ws(s):// URL"),
  agentId: Identifier,
  token: z.string().min(1, "must not be empty"),
  skills: list.min(1, "give at least one skill folder"),
  workspace: z.string().min(1),
  capabilities: list,
  maxConcurrent: int(1),
  outputCapBytes: int(1024),
  stateDir: z.string().min(1),
  logLevel: z.enum(LOG_LEVELS as [LogLevel, ...LogLevel[]]),
  sandboxing: z.enum(["auto", "required", "none"]),
  toolTimeoutCeilingMs: int(1),
  killGraceMs: int(0),
  heartbeatMs: int(50),
  reconnectMinMs: int(1),
  reconnectMaxMs: int(1),
  shutdownGraceMs: int(0),
  resultTtlMs: int(1000),
  resultMax: int(1),
  bashDeny: regexList,
  bashDenyDefaults: bool,
  transport: z.enum(["websocket", "mqtt"]),
  broker: z
    .string()
    .url("expected a URL")
    .refine((u) => /^(mqtts?|wss?|tcp|ssl|tls):\/\//.test(u), "expected an mqtt://, mqtts://, ws:// or wss:// URL"),
  brokerUsername: z.string().min(1, "must not be empty"),
  brokerPassword: z.string(),
  brokerCa: z.string().min(1),
  brokerCert: z.string().min(1),
  brokerKey: z.string().min(1),
};

const REQUIRED: SettingKey[] = ["url", "agentId", "token"];
/** Over MQTT the bridge holds the hub's URL and the device's token; the agent needs the broker. */
const REQUIRED_MQTT: SettingKey[] = ["agentId", "broker"];
/** Pairing brings the token; the id defaults to the host's name. */
const REQUIRED_PAIR: SettingKey[] = ["url"];

export type LoadedArgs =
  | { command: "help" }
  | { command: "version" }
  | { command: "run" | "doctor" | "pair"; config: AgentConfig; noRun?: boolean };

function describe(key: SettingKey): string {
  const def = SETTINGS.find((s) => s.key === key)!;
  return `${def.flag}, ${def.env} or [${def.toml[0]}] ${def.toml[1]}`;
}

/** Precedence: flags > environment > config file > defaults. Errors name the one bad setting. */
export function loadConfig(argv: string[], env: NodeJS.ProcessEnv, cwd = process.cwd()): Result<LoadedArgs> {
  const args = parseArgs(argv);
  if (!args.ok) return args;
  const command = args.value.command;
  if (command === "help" || command === "version") return { ok: true, value: { command } };
  const envLayer = readEnv(env);
  const pairing = command === "pair";
  const configFile =
    args.value.configFile ??
    (env.EDGELOOP_CONFIG ? resolve(cwd, env.EDGELOOP_CONFIG) : pairing ? defaultSettingsFile(env) : undefined);
  let fileLayer: Layer = {};
  let toolEnv: Record<string, string> = {};
  // Pairing writes the file it names: it need not exist yet.
  if (configFile && !(pairing && !existsSync(configFile))) {
    const file = readConfigFile(configFile);
    if (!file.ok) return file;
    fileLayer = file.value.layer;
    toolEnv = file.value.toolEnv;
  }
  const merged: Layer = { ...fileLayer, ...envLayer, ...args.value.layer };

  const values: Partial<Record<SettingKey, unknown>> = {};
  for (const key of Object.keys(merged) as SettingKey[]) {
    const sourced = merged[key] as Sourced;
    const parsed = SETTING_SCHEMAS[key].safeParse(sourced.value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const where = issue.path.length > 0 ? ` (item ${issue.path.join(".")})` : "";
      return { ok: false, error: `invalid setting ${sourced.source}${where}: ${issue.message}` };
    }
    values[key] = parsed.data;
  }
  const transport = (values.transport as TransportKind | undefined) ?? "websocket";
  if (pairing) {
    if (transport === "mqtt")
      return { ok: false, error: "pair is for the WebSocket transport (over MQTT the bridge pairs)" };
    values.agentId ??= defaultAgentId();
  }
  for (const key of pairing ? REQUIRED_PAIR : transport === "mqtt" ? REQUIRED_MQTT : REQUIRED) {
    if (values[key] === undefined) return { ok: false, error: `missing setting ${describe(key)}` };
  }
  const rel = (p: string) => (isAbsolute(p) ? p : resolve(cwd, p));
  // Not the current folder: default-dirs.ts says why.
  const workspace = rel((values.workspace as string | undefined) ?? defaultWorkspace(env));
  const config: AgentConfig = {
    transport,
    url: (values.url as string | undefined) ?? "",
    agentId: values.agentId as string,
    token: (values.token as string | undefined) ?? "",
    skills: ((values.skills as string[] | undefined) ?? [BUNDLED_SKILLS_DIR]).map(rel),
    workspace,
    capabilities: (values.capabilities as string[] | undefined) ?? null,
    maxConcurrent: (values.maxConcurrent as number | undefined) ?? DEFAULTS.maxConcurrent,
    outputCapBytes: (values.outputCapBytes as number | undefined) ?? DEFAULTS.outputCapBytes,
    stateDir: rel(
      (values.stateDir as string | undefined) ??
        (values.workspace === undefined ? defaultStateDir(env) : join(workspace, ".edgeloop")),
    ),
    logLevel: (values.logLevel as LogLevel | undefined) ?? DEFAULTS.logLevel,
    sandboxing: (values.sandboxing as SandboxMode | undefined) ?? DEFAULTS.sandboxing,
    toolTimeoutCeilingMs: (values.toolTimeoutCeilingMs as number | undefined) ?? null,
    killGraceMs: (values.killGraceMs as number | undefined) ?? DEFAULTS.killGraceMs,
    heartbeatMs: (values.heartbeatMs as number | undefined) ?? DEFAULTS.heartbeatMs,
    reconnectMinMs: (values.reconnectMinMs as number | undefined) ?? DEFAULTS.reconnectMinMs,
    reconnectMaxMs: (values.reconnectMaxMs as number | undefined) ?? DEFAULTS.reconnectMaxMs,
    shutdownGraceMs: (values.shutdownGraceMs as number | undefined) ?? DEFAULTS.shutdownGraceMs,
    resultTtlMs: (values.resultTtlMs as number | undefined) ?? DEFAULTS.resultTtlMs,
    resultMax: (values.resultMax as number | undefined) ?? DEFAULTS.resultMax,
    bashDeny: (values.bashDeny as string[] | undefined) ?? [],
    bashDenyDefaults: (values.bashDenyDefaults as boolean | undefined) ?? DEFAULTS.bashDenyDefaults,
    toolEnv,
    configFile: configFile ?? null,
    broker:
      transport === "mqtt"
        ? {
            url: values.broker as string,
            username: values.brokerUsername as string | undefined,
            password: values.brokerPassword as string | undefined,
            ca: values.brokerCa === undefined ? undefined : rel(values.brokerCa as string),
            cert: values.brokerCert === undefined ? undefined : rel(values.brokerCert as string),
            key: values.brokerKey === undefined ? undefined : rel(values.brokerKey as string),
          }
        : null,
  };
  if ((config.broker?.cert === undefined) !== (config.broker?.key === undefined)) {
    return {
      ok: false,
      error: `invalid setting ${describe(config.broker?.cert ? "brokerKey" : "brokerCert")}: a client certificate needs both --broker-cert and --broker-key`,
    };
  }
  if (config.reconnectMaxMs < config.reconnectMinMs) {
    return { ok: false, error: `invalid setting ${describe("reconnectMaxMs")}: must be at least reconnect_min_ms` };
  }
  return { ok: true, value: { command, config, noRun: args.value.noRun ?? false } };
}

export const HELP = `edgeloop-agent [run|doctor] [flags]   (--version, --help)
edgeloop-agent pair <worker URL> [--agent-id <id>] [--config <file>] [--no-run] [flags]

Runs tools for an edgeloop hub on this device. Settings come from flags, EDGELOOP_* environment
variables or a TOML file (--config); flags win over env, env over the file.

${SETTINGS.map((s) => `  ${s.flag.padEnd(22)} ${s.env}`).join("\n")}
  --config               EDGELOOP_CONFIG (TOML file, see docs/device-agent.md)

  doctor                 check skills, sandbox and the server connection, then exit
  pair <worker URL>      show a code, wait for an admin to approve it (npx edgeloop devices approve
                         <code>), save the URL, id and this device's own token to the settings
                         file (--config, default ${"$"}{XDG_CONFIG_HOME:-~/.config}/edgeloop/agent.toml,
                         mode 0600), then run as usual (--no-run: exit instead); the id
                         defaults to the host's name

Without --skills the agent loads the skills that ship with it (${BUNDLED_SKILLS_DIR}).
`;
