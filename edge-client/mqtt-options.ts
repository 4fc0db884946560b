import { readFileSync } from "node:fs";
import type { Result } from "@edgeloop/protocol/result";
import type { IClientOptions } from "mqtt";

/** Broker connection for `--transport mqtt` (docs/mqtt.md). Files are paths to PEM files. */
export type BrokerConfig = {
  url: string;
  username?: string;
  password?: string;
  ca?: string;
  cert?: string;
  key?: string;
};

/**
 * Broker URL, credentials and TLS files as mqtt.js options. The PEM files are read once here so a
 * missing or unreadable file is one clear error at start, not a reconnect loop later.
 */
export function brokerOptions(cfg: BrokerConfig, base: IClientOptions): Result<IClientOptions> {
  const opts: IClientOptions = { ...base };
  if (cfg.username !== undefined) opts.username = cfg.username;
  if (cfg.password !== undefined) opts.password = cfg.password;
  for (const field of ["ca", "cert", "key"] as const) {
    const file = cfg[field];
    if (file === undefined) continue;
    try {
      opts[field] = readFileSync(file);
    } catch (e) {
      return {
        ok: false,
        error: `broker ${field} file ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      };
    }
  }
  return { ok: true, value: opts };
}

/** Where an MQTT URL points, without credentials that may be written into it. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = "";
    u.password = "";
    return u.toString();
  } catch {
    return "(invalid url)";
  }
}
