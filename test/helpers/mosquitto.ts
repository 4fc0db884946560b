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
  /** stop it (SIGTERM); with persistence off, sessions and retained messages are gone */
  stop: () => Promise<void>;
  /** start it again on the same port */
  start: () => Promise<void>;
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

/** A real mosquitto on a free port, anonymous, no persistence, its config in a temp dir. */
export async function startMosquitto(): Promise<Mosquitto> {
  const port = await freePort();
  const dir = tempDir("edgeloop-mosquitto-");
  const conf = join(dir, "mosquitto.conf");
  writeFileSync(
    conf,
    [
      `listener ${port} 127.0.0.1`,
      "allow_anonymous true",
      "persistence false",
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
      { timeoutMs: 15_000, what: `mosquitto on ${port}` },
    );
  };
  const stop = async () => {
    if (child) {
      log += child.output();
      await child.stop("SIGTERM");
      child = null;
    }
  };
  await start();
  return {
    url: `mqtt://127.0.0.1:${port}`,
    port,
    start,
    stop,
    output: () => log + ((child as Child | null)?.output() ?? ""),
  };
}
