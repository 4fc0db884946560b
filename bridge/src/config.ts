import { readFileSync } from "node:fs";
import { homedir, hostname } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { LOG_LEVELS, type LogLevel } from "@edgeloop/edge-client/log";
import type { BrokerConfig } from "@edgeloop/edge-client/mqtt-options";
import { tomlIssue } from "@edgeloop/edge-client/toml-issue";
import { Identifier } from "@edgeloop/protocol";
import type { Result } from "@edgeloop/protocol/result";
import { parse as parseToml } from "smol-toml";
import { z } from "zod";

export type BridgeConfig = {
  url: string;
  broker: BrokerConfig;
  /** agent id → device token; discovered devices without one are skipped */
  devices: Map<string, string>;
  bridgeId: string;
  stateDir: string;
  logLevel: LogLevel;
  /** a device not heard from for this long is offline (EvoClaw heartbeats every 30 s) */
  staleMs: number;
  /** ping interval on each device's hub socket */
  heartbeatMs: number;
  /** discovered devices without a token ask to pair (device-pairing.ts) */
  pairDevices: boolean;
};

type Key =
  | "url"
  | "broker"
  | "devices"
  | "bridgeId"
  | "stateDir"
  | "logLevel"
  | "staleMs"
  | "heartbeatMs"
  | "pairDevices"
  | "username"
  | "password"
  | "ca"
  | "cert"
  | "key";
type Def = {
  key: Key;
  flag: string;
  env: string;
  toml: readonly [string, string];
  list?: true;
  path?: true;
  /** a flag that may stand alone (`--pair-devices` = `--pair-devices true`) */
  bool?: true;
};

/** One table for flags, env and file, so the three never drift apart (docs/mqtt.md lists it). */
export const BRIDGE_SETTINGS: readonly Def[] = [
  { key: "url", flag: "--url", env: "EDGELOOP_BRIDGE_URL", toml: ["bridge", "url"] },
  { key: "broker", flag: "--broker", env: "EDGELOOP_BRIDGE_BROKER", toml: ["bridge", "broker"] },
  { key: "devices", flag: "--device", env: "EDGELOOP_BRIDGE_DEVICES", toml: ["devices", "<agent id>"], list: true },
  { key: "bridgeId", flag: "--bridge-id", env: "EDGELOOP_BRIDGE_ID", toml: ["bridge", "id"] },
  { key: "stateDir", flag: "--state-dir", env: "EDGELOOP_BRIDGE_STATE_DIR", toml: ["bridge", "state_dir"], path: true },
  { key: "logLevel", flag: "--log-level", env: "EDGELOOP_BRIDGE_LOG_LEVEL", toml: ["bridge", "log_level"] },
  { key: "staleMs", flag: "--stale-ms", env: "EDGELOOP_BRIDGE_STALE_MS", toml: ["bridge", "stale_ms"] },
  { key: "heartbeatMs", flag: "--heartbeat-ms", env: "EDGELOOP_BRIDGE_HEARTBEAT_MS", toml: ["bridge", "heartbeat_ms"] },
  {
    key: "pairDevices",
    flag: "--pair-devices",
    env: "EDGELOOP_BRIDGE_PAIR_DEVICES",
    toml: ["bridge", "pair_devices"],
    bool: true,
  },
  { key: "username", flag: "--username", env: "EDGELOOP_BRIDGE_USERNAME", toml: ["broker", "username"] },
  { key: "password", flag: "--password", env: "EDGELOOP_BRIDGE_PASSWORD", toml: ["broker", "password"] },
  { key: "ca", flag: "--ca", env: "EDGELOOP_BRIDGE_CA", toml: ["broker", "ca"], path: true },
  { key: "cert", flag: "--cert", env: "EDGELOOP_BRIDGE_CERT", toml: ["broker", "cert"], path: true },
  { key: "key", flag: "--key", env: "EDGELOOP_BRIDGE_KEY", toml: ["broker", "key"], path: true },
];

const int = (min: number) =>
  z.preprocess(
    (v) => (typeof v === "string" && /^\s*\d+\s*$/.test(v) ? Number(v) : v),
    z.number({ error: "expected an integer" }).int("expected an integer").min(min, `must be at least ${min}`),
  );
/** `agent_id:token`; the token may itself hold ':' */
const DeviceEntry = z
  .string()
  .regex(/^[^:]+:.+$/, "expected <agent_id>:<token>")
  .transform((s) => [s.slice(0, s.indexOf(":")), s.slice(s.indexOf(":") + 1)] as const)
  .pipe(z.tuple([Identifier, z.string().min(1)]));

const SCHEMAS: Record<Key, z.ZodType> = {
  url: z
    .string()
    .url("expected a URL")
    .refine((u) => /^(https?|wss?):\/\//.test(u), "expected an http(s):// or ws(s):// URL"),
  broker: z
    .string()
    .url("expected a URL")
    .refine((u) => /^(mqtts?|wss?|tcp|ssl|tls):\/\//.test(u), "expected an mqtt://, mqtts://, ws:// or wss:// URL"),
  devices: z.array(DeviceEntry),
  bridgeId: Identifier,
  stateDir: z.string().min(1),
  logLevel: z.enum(LOG_LEVELS as [LogLevel, ...LogLevel[]]),
  staleMs: int(1_000),
  heartbeatMs: int(50),
  pairDevices: z.preprocess(
    (v) => (v === "true" || v === "1" ? true : v === "false" || v === "0" ? false : v),
    z.boolean({ error: "expected true or false" }),
  ),
  username: z.string().min(1, "must not be empty"),
  password: z.string(),
  ca: z.string().min(1),
  cert: z.string().min(1),
  key: z.string().min(1),
};

/** `[devices]` maps agent ids to tokens; the rest are plain sections. Unknown keys are errors. */
const TomlFile = z
  .object({
    bridge: z
      .object({
        url: z.unknown(),
        broker: z.unknown(),
        id: z.unknown(),
        state_dir: z.unknown(),
        log_level: z.unknown(),
        stale_ms: z.unknown(),
        heartbeat_ms: z.unknown(),
        pair_devices: z.unknown(),
      })
      .partial()
      .strict()
      .optional(),
    broker: z
      .object({ username: z.unknown(), password: z.unknown(), ca: z.unknown(), cert: z.unknown(), key: z.unknown() })
      .partial()
      .strict()
      .optional(),
    devices: z.record(z.string(), z.string({ error: "expected the device token as a string" })).optional(),
  })
  .strict();

type Sourced = { value: unknown; source: string };
type Layer = Partial<Record<Key, Sourced>>;
export type LoadedBridgeArgs = { command: "help" } | { command: "run"; config: BridgeConfig };

function parseArgs(argv: string[]): Result<{ layer: Layer; configFile?: string; help: boolean }> {
  const layer: Layer = {};
  let configFile: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--help" || arg === "-h") return { ok: true, value: { layer, help: true } };
    if (!arg.startsWith("--")) return { ok: false, error: `unexpected argument '${arg}' (see --help)` };
    const eq = arg.indexOf("=");
    const flag = eq === -1 ? arg : arg.slice(0, eq);
    const def = BRIDGE_SETTINGS.find((d) => d.flag === flag);
    if (!def && flag !== "--config") return { ok: false, error: `unknown flag ${flag} (see --help)` };
    let text: string;
    if (eq !== -1) text = arg.slice(eq + 1);
    else if (def?.bool && (argv[i + 1] === undefined || argv[i + 1]!.startsWith("--"))) text = "true";
    else {
      if (argv[i + 1] === undefined) return { ok: false, error: `flag ${flag} needs a value` };
      text = argv[++i]!;
    }
    if (!def) configFile = resolve(text);
    else if (def.list)
      layer[def.key] = { value: [...((layer[def.key]?.value as string[] | undefined) ?? []), text], source: def.flag };
    else layer[def.key] = { value: text, source: def.flag };
  }
  return { ok: true, value: { layer, configFile, help: false } };
}

function readEnv(env: NodeJS.ProcessEnv): Layer {
  const layer: Layer = {};
  for (const def of BRIDGE_SETTINGS) {
    const text = env[def.env];
    if (text === undefined || text === "") continue;
    const value = def.list
      ? text
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean)
      : text;
    layer[def.key] = { value, source: def.env };
  }
  return layer;
}

function readFile(file: string): Result<Layer> {
  let raw: unknown;
  try {
    raw = parseToml(readFileSync(file, "utf8"));
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    return {
      ok: false,
      error: `--config ${file}: ${err.code === "ENOENT" ? "file not found" : err.message.split("\n")[0]}`,
    };
  }
  const parsed = TomlFile.safeParse(raw);
  if (!parsed.success) {
    return { ok: false, error: tomlIssue(file, parsed.error) };
  }
  const sections = parsed.data as Record<string, Record<string, unknown> | undefined>;
  const layer: Layer = {};
  for (const def of BRIDGE_SETTINGS) {
    if (def.key === "devices") continue;
    const [section, key] = def.toml;
    let value = sections[section]?.[key];
    if (value === undefined) continue;
    // Paths in the file are relative to the file, not to wherever the bridge happened to start.
    if (def.path && typeof value === "string") value = resolve(dirname(file), value);
    layer[def.key] = { value, source: `[${section}] ${key} in ${file}` };
  }
  if (parsed.data.devices) {
    layer.devices = {
      value: Object.entries(parsed.data.devices).map(([id, token]) => `${id}:${token}`),
      source: `[devices] in ${file}`,
    };
  }
  return { ok: true, value: layer };
}

/** Precedence: flags > environment > config file > defaults. An error names the one bad setting. */
export function loadBridgeConfig(
  argv: string[],
  env: NodeJS.ProcessEnv,
  cwd = process.cwd(),
): Result<LoadedBridgeArgs> {
  const args = parseArgs(argv);
  if (!args.ok) return args;
  if (args.value.help) return { ok: true, value: { command: "help" } };
  const configFile =
    args.value.configFile ?? (env.EDGELOOP_BRIDGE_CONFIG ? resolve(cwd, env.EDGELOOP_BRIDGE_CONFIG) : undefined);
  let fileLayer: Layer = {};
  if (configFile) {
    const file = readFile(configFile);
    if (!file.ok) return file;
    fileLayer = file.value;
  }
  const merged: Layer = { ...fileLayer, ...readEnv(env), ...args.value.layer };
  const v: Partial<Record<Key, unknown>> = {};
  for (const key of Object.keys(merged) as Key[]) {
    const sourced = merged[key]!;
    const parsed = SCHEMAS[key].safeParse(sourced.value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const where = issue.path.length > 0 && key === "devices" ? ` (entry ${Number(issue.path[0]) + 1})` : "";
      return { ok: false, error: `invalid setting ${sourced.source}${where}: ${issue.message}` };
    }
    v[key] = parsed.data;
  }
  for (const key of ["url", "broker"] as const) {
    if (v[key] === undefined) {
      const def = BRIDGE_SETTINGS.find((d) => d.key === key)!;
      return { ok: false, error: `missing setting ${def.flag}, ${def.env} or [${def.toml[0]}] ${def.toml[1]}` };
    }
  }
  if ((v.cert === undefined) !== (v.key === undefined))
    return { ok: false, error: "invalid setting --cert/--key: a client certificate needs both" };
  const rel = (p: unknown) =>
    p === undefined ? undefined : isAbsolute(p as string) ? (p as string) : resolve(cwd, p as string);
  const devices = new Map<string, string>();
  for (const [id, token] of (v.devices as [string, string][] | undefined) ?? []) devices.set(id, token);
  const defaultId = `edgeloop-bridge-${hostname().replace(/[^A-Za-z0-9._:-]/g, "-")}`.slice(0, 128);
  return {
    ok: true,
    value: {
      command: "run",
      config: {
        url: v.url as string,
        broker: {
          url: v.broker as string,
          username: v.username as string | undefined,
          password: v.password as string | undefined,
          ca: rel(v.ca),
          cert: rel(v.cert),
          key: rel(v.key),
        },
        devices,
        bridgeId: (v.bridgeId as string | undefined) ?? defaultId,
        // A folder of its own, not the one it was started from (like the agent's, default-dirs.ts there).
        stateDir:
          rel(v.stateDir) ?? join(env.XDG_DATA_HOME || join(homedir(), ".local", "share"), "edgeloop", "bridge"),
        logLevel: (v.logLevel as LogLevel | undefined) ?? "info",
        staleMs: (v.staleMs as number | undefined) ?? 120_000,
        heartbeatMs: (v.heartbeatMs as number | undefined) ?? 20_000,
        pairDevices: (v.pairDevices as boolean | undefined) ?? false,
      },
    },
  };
}

export const BRIDGE_HELP = `edgeloop-bridge --url <worker url> --broker <mqtt url> --device <agent_id>:<token> [...]

Joins an MQTT broker (EvoClaw topics) to an edgeloop worker: one device WebSocket per
device it serves. Settings come from flags, EDGELOOP_BRIDGE_* environment variables or a TOML file
(--config); flags win over env, env over the file. See docs/mqtt.md.

${BRIDGE_SETTINGS.map((s) => `  ${s.flag.padEnd(16)} ${s.env}`).join("\n")}
  --config         EDGELOOP_BRIDGE_CONFIG (TOML file)
`;
