import { writeFileSync } from "node:fs";
import { connect as tcpConnect } from "node:net";
import { join } from "node:path";
import { freePort } from "./free-port.js";
import { type Child, startChild } from "./processes.js";
import { systemTool } from "./system-tools.js";
import { tempDir } from "./temp-dir.js";
import { waitUntil } from "./wait.js";

export type Mosquitto = {
  url: string;
  port: number;
  pid: () => number | null;
  /** stop it (SIGTERM); with persistence off, sessions and retained messages are gone */
  stop: () => Promise<void>;
  /** kill it (SIGKILL): with persistence on, what changed since the last autosave is lost */
  kill: () => Promise<void>;
  /** start it again on the same port */
  start: () => Promise<void>;
  /** output of every run so far */
  output: () => string;
};

export type MosquittoOptions = {
  /**
   * Save sessions, queued QoS 1 messages and retained messages in this directory, every
   * `autosaveSeconds` and on a clean stop, so a broker started again has what it had saved.
   */
  persist?: { dir: string; autosaveSeconds: number };
  startTimeoutMs?: number;
};

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = tcpConnect(port, "127.0.0.1");
    s.once("connect", () => {
      s.destroy();
      resolve(true);
    });
    s.once("error", () => resolve(false));
  });
}

/** A real mosquitto on a free port, anonymous, its config in a temp dir (or the persistence dir). */
export async function startMosquitto(opts: MosquittoOptions = {}): Promise<Mosquitto> {
  const port = await freePort();
  const dir = opts.persist?.dir ?? tempDir("edgeloop-mosquitto-");
  const conf = join(dir, "mosquitto.conf");
  const persistence = opts.persist
    ? [
        "persistence true",
        `persistence_location ${dir}/`,
        `autosave_interval ${opts.persist.autosaveSeconds}`,
        // Queued messages per offline session: the default (1000) is plenty; said here so it is known.
        "max_queued_messages 1000",
      ]
    : ["persistence false"];
  const lines = [`listener ${port} 127.0.0.1`, "allow_anonymous true", ...persistence];
  writeFileSync(conf, [...lines, "log_dest stdout", "log_type error", "log_type warning", ""].join("\n"));
  const bin = systemTool("mosquitto");
  let child: Child | null = null;
  let log = "";
  const start = async () => {
    child = startChild(bin, ["-c", conf], { name: "mosquitto" });
    await waitUntil(
      () => portOpen(port),
      (ok) => ok,
      { timeoutMs: opts.startTimeoutMs ?? 15_000, what: `mosquitto on ${port}` },
    );
  };
  const end = async (signal: NodeJS.Signals) => {
    const c = child;
    child = null;
    if (!c) return;
    await c.stop(signal);
    log += c.output();
  };
  await start();
  return {
    url: `mqtt://127.0.0.1:${port}`,
    port,
    pid: () => (child as Child | null)?.proc.pid ?? null,
    start,
    stop: () => end("SIGTERM"),
    kill: () => end("SIGKILL"),
    output: () => log + ((child as Child | null)?.output() ?? ""),
  };
}
