/**
 * Every agent setting in one table: its flag, its environment variable and its place in the TOML
 * file. Flags, env and file are all read through this table, so the three never drift apart,
 * and docs/device-agent.md lists the same rows.
 */
export type SettingKind = "string" | "int" | "list" | "bool";

export type SettingDef = {
  key: SettingKey;
  flag: string;
  env: string;
  /** [section, key] in the TOML file */
  toml: readonly [string, string];
  kind: SettingKind;
  /** relative paths from the TOML file resolve against the file's folder */
  path?: "single" | "list";
  /** how a flag or env value splits into a list; regexes may hold commas, so bash_deny uses newlines */
  separator?: string;
};

export const SETTING_KEYS = [
  "url",
  "agentId",
  "token",
  "skills",
  "workspace",
  "capabilities",
  "maxConcurrent",
  "outputCapBytes",
  "stateDir",
  "logLevel",
  "sandboxing",
  "toolTimeoutCeilingMs",
  "killGraceMs",
  "heartbeatMs",
  "reconnectMinMs",
  "reconnectMaxMs",
  "shutdownGraceMs",
  "resultTtlMs",
  "resultMax",
  "bashDeny",
  "bashDenyDefaults",
  "transport",
  "broker",
  "brokerUsername",
  "brokerPassword",
  "brokerCa",
  "brokerCert",
  "brokerKey",
] as const;
export type SettingKey = (typeof SETTING_KEYS)[number];

const def = (
  key: SettingKey,
  flag: string,
  env: string,
  toml: readonly [string, string],
  kind: SettingKind,
  path?: "single" | "list",
): SettingDef => (path ? { key, flag, env, toml, kind, path } : { key, flag, env, toml, kind });

export const SETTINGS: readonly SettingDef[] = [
  def("url", "--url", "EDGELOOP_URL", ["agent", "url"], "string"),
  def("agentId", "--agent-id", "EDGELOOP_AGENT_ID", ["agent", "id"], "string"),
  def("token", "--token", "EDGELOOP_TOKEN", ["agent", "token"], "string"),
  def("skills", "--skills", "EDGELOOP_SKILLS", ["agent", "skills"], "list", "list"),
  def("workspace", "--workspace", "EDGELOOP_WORKSPACE", ["agent", "workspace"], "string", "single"),
  def("capabilities", "--capabilities", "EDGELOOP_CAPABILITIES", ["agent", "capabilities"], "list"),
  def("stateDir", "--state-dir", "EDGELOOP_STATE_DIR", ["agent", "state_dir"], "string", "single"),
  def("logLevel", "--log-level", "EDGELOOP_LOG_LEVEL", ["agent", "log_level"], "string"),
  def("heartbeatMs", "--heartbeat-ms", "EDGELOOP_HEARTBEAT_MS", ["agent", "heartbeat_ms"], "int"),
  def("reconnectMinMs", "--reconnect-min-ms", "EDGELOOP_RECONNECT_MIN_MS", ["agent", "reconnect_min_ms"], "int"),
  def("reconnectMaxMs", "--reconnect-max-ms", "EDGELOOP_RECONNECT_MAX_MS", ["agent", "reconnect_max_ms"], "int"),
  def("shutdownGraceMs", "--shutdown-grace-ms", "EDGELOOP_SHUTDOWN_GRACE_MS", ["agent", "shutdown_grace_ms"], "int"),
  def("resultTtlMs", "--result-ttl-ms", "EDGELOOP_RESULT_TTL_MS", ["agent", "result_ttl_ms"], "int"),
  def("resultMax", "--result-max", "EDGELOOP_RESULT_MAX", ["agent", "result_max"], "int"),
  def("maxConcurrent", "--max-concurrent", "EDGELOOP_MAX_CONCURRENT", ["tools", "max_concurrent"], "int"),
  def("outputCapBytes", "--output-cap-bytes", "EDGELOOP_OUTPUT_CAP_BYTES", ["tools", "output_cap_bytes"], "int"),
  def("sandboxing", "--sandboxing", "EDGELOOP_SANDBOXING", ["tools", "sandboxing"], "string"),
  def("toolTimeoutCeilingMs", "--tool-timeout-ms", "EDGELOOP_TOOL_TIMEOUT_MS", ["tools", "timeout_ms"], "int"),
  def("killGraceMs", "--kill-grace-ms", "EDGELOOP_KILL_GRACE_MS", ["tools", "kill_grace_ms"], "int"),
  { ...def("bashDeny", "--bash-deny", "EDGELOOP_BASH_DENY", ["sandbox", "bash_deny"], "list"), separator: "\n" },
  def(
    "bashDenyDefaults",
    "--bash-deny-defaults",
    "EDGELOOP_BASH_DENY_DEFAULTS",
    ["sandbox", "bash_deny_defaults"],
    "bool",
  ),
  // The MQTT transport (docs/mqtt.md): the same topics the bridge serves, no WebSocket from the device.
  def("transport", "--transport", "EDGELOOP_TRANSPORT", ["agent", "transport"], "string"),
  def("broker", "--broker", "EDGELOOP_BROKER", ["mqtt", "broker"], "string"),
  def("brokerUsername", "--broker-username", "EDGELOOP_BROKER_USERNAME", ["mqtt", "username"], "string"),
  def("brokerPassword", "--broker-password", "EDGELOOP_BROKER_PASSWORD", ["mqtt", "password"], "string"),
  def("brokerCa", "--broker-ca", "EDGELOOP_BROKER_CA", ["mqtt", "ca"], "string", "single"),
  def("brokerCert", "--broker-cert", "EDGELOOP_BROKER_CERT", ["mqtt", "cert"], "string", "single"),
  def("brokerKey", "--broker-key", "EDGELOOP_BROKER_KEY", ["mqtt", "key"], "string", "single"),
];

export function settingByFlag(flag: string): SettingDef | undefined {
  return SETTINGS.find((s) => s.flag === flag);
}
