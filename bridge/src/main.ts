import { createLogger } from "@edgeloop/edge-client/log";
import { stopOnSignals } from "@edgeloop/edge-client/stop-on-signals";
import { startBridge } from "./bridge.js";
import { BRIDGE_HELP, loadBridgeConfig } from "./config.js";

/** One clear line and a non-zero exit: systemd shows it, and so does a person at a terminal. */
function die(message: string, code = 2): never {
  process.stderr.write(`edgeloop-bridge: ${message}\n`);
  process.exit(code);
}

function main(): void {
  const loaded = loadBridgeConfig(process.argv.slice(2), process.env);
  if (!loaded.ok) die(loaded.error);
  if (loaded.value.command === "help") {
    process.stdout.write(BRIDGE_HELP);
    return;
  }
  const { config } = loaded.value;
  const log = createLogger(config.logLevel, { bridge_id: config.bridgeId });
  let bridge: ReturnType<typeof startBridge>;
  try {
    bridge = startBridge(config, log);
  } catch (e) {
    die((e as Error).message);
  }
  log.info("bridge started", { url: config.url, devices: [...config.devices.keys()], state_dir: config.stateDir });
  stopOnSignals(log, () => bridge.stop());
}

main();
