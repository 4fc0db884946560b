import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { tomlIssue } from "@edgeloop/edge-client/toml-issue";
import type { Result } from "@edgeloop/protocol/result";
import { parse as parseToml } from "smol-toml";
import { z } from "zod";
import { SETTINGS, type SettingDef, type SettingKey, settingByFlag } from "./config-settings.js";

/** A value together with where it came from, so an error can name the exact flag, variable or key. */
export type Sourced = { value: unknown; source: string };
export type Layer = Partial<Record<SettingKey, Sourced>>;

export type ParsedArgs = {
  command: "run" | "doctor" | "pair" | "help" | "version";
  layer: Layer;
  configFile: string | undefined;
  /** `pair --no-run`: pair, save, and exit */
  noRun?: boolean;
};

function splitList(def: SettingDef, text: string): string[] {
  return text
    .split(def.separator ?? ",")
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** `--name value` or `--name=value`; list settings may repeat and may hold comma lists. */
export function parseArgs(argv: string[]): Result<ParsedArgs> {
  const layer: Layer = {};
  let command: ParsedArgs["command"] = "run";
  let configFile: string | undefined;
  let noRun = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--no-run") {
      if (command !== "pair") return { ok: false, error: "--no-run goes with pair only" };
      noRun = true;
      continue;
    }
    if (arg === "--help" || arg === "-h") return { ok: true, value: { command: "help", layer, configFile } };
    if (arg === "--version" || arg === "-v") return { ok: true, value: { command: "version", layer, configFile } };
    if (!arg.startsWith("--")) {
      if (i === 0 && (arg === "run" || arg === "doctor" || arg === "pair")) {
        command = arg;
        continue;
      }
      // `pair <worker URL>`: the URL is the --url it pairs with (and writes to the settings file).
      if (i === 1 && command === "pair") {
        layer.url = { value: arg, source: "the worker URL given to pair" };
        continue;
      }
      return { ok: false, error: `unexpected argument '${arg}' (commands: run, doctor, pair <worker URL>)` };
    }
    const eq = arg.indexOf("=");
    const flag = eq === -1 ? arg : arg.slice(0, eq);
    const def = flag === "--config" ? undefined : settingByFlag(flag);
    if (flag !== "--config" && !def) return { ok: false, error: `unknown flag ${flag} (see --help)` };
    let text: string;
    if (eq !== -1) text = arg.slice(eq + 1);
    else if (def?.kind === "bool" && (argv[i + 1] === undefined || argv[i + 1]!.startsWith("--"))) text = "true";
    else {
      const next = argv[i + 1];
      if (next === undefined) return { ok: false, error: `flag ${flag} needs a value` };
      text = next;
      i++;
    }
    if (!def) {
      configFile = resolve(text);
      continue;
    }
    if (def.kind === "list") {
      const prev = layer[def.key];
      const items = [...((prev?.value as string[] | undefined) ?? []), ...splitList(def, text)];
      layer[def.key] = { value: items, source: def.flag };
    } else {
      layer[def.key] = { value: text, source: def.flag };
    }
  }
  return { ok: true, value: { command, layer, configFile, noRun } };
}

export function readEnv(env: NodeJS.ProcessEnv): Layer {
  const layer: Layer = {};
  for (const def of SETTINGS) {
    const text = env[def.env];
    if (text === undefined || text === "") continue;
    layer[def.key] = { value: def.kind === "list" ? splitList(def, text) : text, source: def.env };
  }
  return layer;
}

/** The EvoClaw edge agent's config file, extended. Unknown keys are errors so a typo is not silently ignored. */
const TomlFile = z
  .object({
    agent: z
      .object({
        id: z.unknown(),
        url: z.unknown(),
        token: z.unknown(),
        capabilities: z.unknown(),
        skills: z.unknown(),
        workspace: z.unknown(),
        state_dir: z.unknown(),
        log_level: z.unknown(),
        heartbeat_ms: z.unknown(),
        reconnect_min_ms: z.unknown(),
        reconnect_max_ms: z.unknown(),
        shutdown_grace_ms: z.unknown(),
        result_ttl_ms: z.unknown(),
        result_max: z.unknown(),
        transport: z.unknown(),
        /** EvoClaw agent configs write `type = "desktop"`; accepted, not used */
        type: z.string().optional(),
      })
      .partial()
      .strict()
      .optional(),
    tools: z
      .object({
        sandboxing: z.unknown(),
        timeout_ms: z.unknown(),
        max_concurrent: z.unknown(),
        output_cap_bytes: z.unknown(),
        kill_grace_ms: z.unknown(),
        env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "not an env variable name"), z.string()),
        /** EvoClaw agent configs write `[tools.paths] bin = ...`; accepted, not used (skills are given by folder) */
        paths: z.record(z.string(), z.unknown()),
      })
      .partial()
      .strict()
      .optional(),
    sandbox: z.object({ bash_deny: z.unknown(), bash_deny_defaults: z.unknown() }).partial().strict().optional(),
    mqtt: z
      .object({
        broker: z.unknown(),
        username: z.unknown(),
        password: z.unknown(),
        ca: z.unknown(),
        cert: z.unknown(),
        key: z.unknown(),
      })
      .partial()
      .strict()
      .optional(),
  })
  .strict();

export type FileLayer = { layer: Layer; toolEnv: Record<string, string> };

export function readConfigFile(file: string): Result<FileLayer> {
  let raw: unknown;
  try {
    raw = parseToml(readFileSync(file, "utf8"));
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    const why = err.code === "ENOENT" ? "file not found" : err.message.split("\n")[0];
    return { ok: false, error: `--config ${file}: ${why}` };
  }
  const parsed = TomlFile.safeParse(raw);
  if (!parsed.success) {
    return { ok: false, error: tomlIssue(file, parsed.error) };
  }
  const sections = parsed.data as Record<string, Record<string, unknown> | undefined>;
  const layer: Layer = {};
  const base = dirname(file);
  for (const def of SETTINGS) {
    const [section, key] = def.toml;
    let value = sections[section]?.[key];
    if (value === undefined) continue;
    // Paths in the file are relative to the file, not to wherever the agent happened to start.
    if (def.path === "single" && typeof value === "string") value = resolve(base, value);
    if (def.path === "list" && Array.isArray(value))
      value = value.map((v) => (typeof v === "string" ? resolve(base, v) : v));
    layer[def.key] = { value, source: `[${section}] ${key} in ${file}` };
  }
  return { ok: true, value: { layer, toolEnv: parsed.data.tools?.env ?? {} } };
}
