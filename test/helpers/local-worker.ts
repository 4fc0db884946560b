import { join, resolve } from "node:path";
import { canListen, freePort } from "./free-port.js";
import { type Child, REPO_ROOT, startChild } from "./processes.js";
import { tempDir } from "./temp-dir.js";
import { waitUntil } from "./wait.js";
import { productWorkerConfig } from "./worker-bundle.js";

export const API_TOKEN = "e2e-api-token";
export const ADMIN_TOKEN = "e2e-admin-token";

export type LocalWorker = {
  url: string;
  port: number;
  persistDir: string;
  child: Child;
  /** wrangler's DevTools inspector (`wrangler dev --inspector-port`); absent with `inspector: false` */
  inspectorPort?: number;
  stop: () => Promise<void>;
  /** kill -9 the runtime, as a crash or a deploy would */
  kill: () => Promise<void>;
};

/**
 * The real worker under `wrangler dev` as users start it (no `--local`: wrangler.toml's top level
 * has no remote binding, so no login and no network), on a free port, with its state in a temp
 * dir. `env` adds to the process environment (e.g. HOME, to run with no stored login). `config`
 * runs another wrangler.toml in the same way (the benchmark's floor worker); without it, the
 * product's worker: in the suite, the run's prebuilt bundle (worker-bundle-setup.ts). `inspector: false`
 * runs the same dev server without the DevTools inspector (see dev-worker-launcher.mjs).
 */
export async function startLocalWorker(opts: {
  vars: Record<string, string>;
  persistDir?: string;
  port?: number;
  config?: string;
  name?: string;
  inspector?: boolean;
  env?: Record<string, string>;
}): Promise<LocalWorker> {
  // A free port can be taken by another process between freePort() and wrangler binding it (the
  // suite runs many servers at once): then wrangler says so and exits, and a port of our own
  // choosing is simply chosen again. A given port (a restart on the old one, as a user's 8787) is
  // waited for instead: the killed runtime's sockets may take a moment to go.
  for (let attempt = 1; ; attempt++) {
    if (opts.port !== undefined) await waitForPort(opts.port);
    const started = await startOnce(opts);
    if (started !== "port taken") return started;
    if (attempt === (opts.port === undefined ? 3 : 5))
      throw new Error(`port ${opts.port ?? "(free)"} taken, ${attempt} tries`);
  }
}

async function waitForPort(port: number): Promise<void> {
  await waitUntil(
    () => canListen(port),
    (free) => free,
    { timeoutMs: 30_000, what: `port ${port} to be free` },
  );
}

async function startOnce(opts: Parameters<typeof startLocalWorker>[0]): Promise<LocalWorker | "port taken"> {
  const port = opts.port ?? (await freePort());
  const persistDir = opts.persistDir ?? tempDir("edgeloop-state-");
  const vars = { API_TOKEN, ADMIN_TOKEN, ...opts.vars };
  // No request leaves the machine: no metrics, and no fetch of Cloudflare's `request.cf` sample.
  const env = {
    WRANGLER_SEND_METRICS: "false",
    CLOUDFLARE_CF_FETCH_ENABLED: "false",
    CI: "true",
    NO_COLOR: "1",
    ...opts.env,
  };
  const config = opts.config ? resolve(REPO_ROOT, opts.config) : productWorkerConfig();
  const inspectorPort = opts.inspector === false ? undefined : await freePort();
  const child =
    opts.inspector === false
      ? startChild(
          process.execPath,
          [
            join(REPO_ROOT, "test/helpers/dev-worker-launcher.mjs"),
            JSON.stringify({
              config,
              port,
              persist: persistDir,
              vars,
            }),
          ],
          { name: opts.name ?? "worker", env },
        )
      : startChild(
          join(REPO_ROOT, "node_modules/.bin/wrangler"),
          wranglerDevArgs(config, port, persistDir, vars, inspectorPort!),
          { name: opts.name ?? "worker", env },
        );
  const url = `http://127.0.0.1:${port}`;
  // Checked before each health probe: another server on the port would answer it instead.
  const portTaken = () => /address already in use|EADDRINUSE/i.test(child.output());
  try {
    const state = await waitUntil(
      async () => (portTaken() ? "port taken" : (await fetch(`${url}/healthz`)).status === 200 ? "ready" : "starting"),
      (s) => s !== "starting",
      { timeoutMs: 90_000, what: "wrangler dev" },
    );
    if (state === "port taken") {
      await child.stop();
      return "port taken";
    }
  } catch (e) {
    await child.stop();
    throw new Error(`${(e as Error).message}\n--- wrangler output ---\n${child.output()}`);
  }
  const stop = () => child.stop("SIGTERM");
  return { url, port, persistDir, child, inspectorPort, stop, kill: () => child.stop("SIGKILL") };
}

function wranglerDevArgs(
  config: string,
  port: number,
  persistDir: string,
  vars: Record<string, string>,
  inspectorPort: number,
): string[] {
  return [
    "dev",
    "-c",
    config,
    "--ip",
    "127.0.0.1",
    "--port",
    String(port),
    "--inspector-port",
    String(inspectorPort),
    "--persist-to",
    persistDir,
    "--show-interactive-dev-session=false",
    "--log-level",
    "warn",
    ...Object.entries(vars).flatMap(([k, v]) => ["--var", `${k}:${v}`]),
  ];
}
