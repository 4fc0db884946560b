/**
 * The soak's mosquitto: like test/helpers/mosquitto.ts, but with persistence on (sessions, queued
 * QoS 1 messages and retained messages saved to a file in its own directory), so a broker killed
 * with SIGKILL comes back on the same port with what it had saved. Mosquitto saves every
 * `autosave_interval` seconds (and on a clean stop), so a kill loses what changed since: the rest
 * of the system must cope with that, and the soak checks that it does.
 */
import { writeFileSync } from "node:fs";
import { connect as tcpConnect } from "node:net";
import { join } from "node:path";
import { freePort } from "../../test/helpers/free-port.js";
import { type Child, startChild } from "../../test/helpers/processes.js";
import { systemTool } from "../../test/helpers/system-tools.js";
import { waitUntil } from "../../test/helpers/wait.js";

export const BROKER_AUTOSAVE_SECONDS = 5;

export type SoakBroker = {
  url: string;
  port: number;
  pid: () => number | null;
  start: () => Promise<void>;
  kill: () => Promise<void>;
  stop: () => Promise<void>;
  /** output of every run so far */
  output: () => string;
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

export async function startSoakBroker(dir: string): Promise<SoakBroker> {
  const port = await freePort();
  const conf = join(dir, "mosquitto.conf");
  writeFileSync(
    conf,
    [
      `listener ${port} 127.0.0.1`,
      "allow_anonymous true",
      "persistence true",
      `persistence_location ${dir}/`,
      `autosave_interval ${BROKER_AUTOSAVE_SECONDS}`,
      // Queued messages per offline session: the default (1000) is plenty; said here so it is known.
      "max_queued_messages 1000",
      "log_dest stdout",
      "log_type error",
      "log_type warning",
      "",
    ].join("\n"),
  );
  const bin = systemTool("mosquitto");
  let child: Child | null = null;
  let log = "";
  const start = async () => {
    child = startChild(bin, ["-c", conf], { name: "mosquitto" });
    await waitUntil(
      () => portOpen(port),
      (ok) => ok,
      { timeoutMs: 30_000, what: `mosquitto on ${port}` },
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
    kill: () => end("SIGKILL"),
    stop: () => end("SIGTERM"),
    output: () => log + ((child as Child | null)?.output() ?? ""),
  };
}
