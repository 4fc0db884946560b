import { createLogger } from "@edgeloop/edge-client/log";
import { stopOnSignals } from "@edgeloop/edge-client/stop-on-signals";
import { startAgent, workspaceProblem } from "./agent.js";
import { HELP, loadConfig } from "./config.js";
import { defaultWorkspace, ensureOwnFolder } from "./default-dirs.js";
import { runDoctor } from "./doctor.js";
import { pairAgent } from "./pair.js";
import { agentVersion } from "./version.js";

/** One clear line and a non-zero exit: systemd shows it, and so does a person at a terminal. */
function die(message: string, code = 2): never {
  process.stderr.write(`edgeloop-agent: ${message}\n`);
  process.exit(code);
}

async function main(): Promise<void> {
  const loaded = loadConfig(process.argv.slice(2), process.env);
  if (!loaded.ok) die(loaded.error);
  if (loaded.value.command === "help") {
    process.stdout.write(HELP);
    return;
  }
  if (loaded.value.command === "version") {
    process.stdout.write(`${agentVersion()}\n`);
    return;
  }
  const { command } = loaded.value;
  let config = loaded.value.config;
  if (config.workspace === defaultWorkspace(process.env)) ensureOwnFolder(config.workspace);
  if (command === "doctor") {
    const good = await runDoctor(config);
    process.exit(good ? 0 : 1);
  }
  const runs = !(command === "pair" && loaded.value.noRun);
  const wsProblem = runs ? workspaceProblem(config.workspace) : null;
  if (wsProblem) die(`invalid setting --workspace: ${wsProblem}`);

  if (command === "pair") {
    const stop = new AbortController();
    const cancel = () => stop.abort(new Error("pairing cancelled"));
    process.once("SIGINT", cancel).once("SIGTERM", cancel);
    config = await pairAgent(config, (line) => process.stdout.write(`${line}\n`), stop.signal).catch((e: Error) =>
      die(e.message, 1),
    );
    process.off("SIGINT", cancel).off("SIGTERM", cancel);
    if (!runs) return;
  }

  const log = createLogger(config.logLevel, { agent_id: config.agentId });
  const agent = await startAgent(config, log);
  if (agent.loaded.tools.size === 0) log.warn("no tools to advertise: check --skills and the errors above");

  stopOnSignals(log, () => agent.stop());
}

main().catch((e: Error) => die(`fatal: ${e.message}`, 1));
