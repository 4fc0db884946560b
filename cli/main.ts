import { parseArgs } from "node:util";
import { ApiClient } from "./api-client.js";
import { type Command, GLOBAL_OPTIONS } from "./command.js";
import { channelsCommand } from "./commands/channels.js";
import { conversationsCommand } from "./commands/conversations.js";
import { answerCommand, decideCommand } from "./commands/decide.js";
import { deployCommand } from "./commands/deploy.js";
import { devicesCommand } from "./commands/devices.js";
import { keysCommand } from "./commands/keys.js";
import { logsCommand } from "./commands/logs.js";
import { mcpCommand } from "./commands/mcp-grants.js";
import { metricsCommand } from "./commands/metrics.js";
import { openclawCommand } from "./commands/openclaw.js";
import { rulesCommand } from "./commands/rules.js";
import { schedulesCommand } from "./commands/schedules.js";
import { sendCommand } from "./commands/send.js";
import { statusCommand } from "./commands/status.js";
import { tokensCommand } from "./commands/tokens.js";
import { CliError, EXIT, type ExitCode, usageError } from "./exit-codes.js";
import { resolveSettings } from "./settings.js";

const COMMANDS: Command[] = [
  statusCommand,
  metricsCommand,
  logsCommand,
  sendCommand,
  conversationsCommand,
  devicesCommand,
  tokensCommand,
  openclawCommand,
  decideCommand,
  answerCommand,
  schedulesCommand,
  rulesCommand,
  keysCommand,
  mcpCommand,
  channelsCommand,
  deployCommand,
];

function usage(): string {
  const lines = COMMANDS.map((c) => `  edgeloop ${c.synopsis}\n      ${c.summary}`);
  return `edgeloop — operate an edgeloop worker

${lines.join("\n")}

Every command takes --url, --token (API token), --admin-token, --config <cli.toml>, --json, --help.
The same from EDGELOOP_URL, EDGELOOP_TOKEN, EDGELOOP_ADMIN_TOKEN, EDGELOOP_AGENT, or
~/.config/edgeloop/cli.toml (url, token, admin_token, agent). Flags win over the environment,
which wins over the file. Exit codes: 0 ok, 1 failed, 2 usage or config, 3 not found, 4 auth.
`;
}

async function main(argv: string[]): Promise<ExitCode> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "help" || name === "--help" || name === "-h") {
    process.stdout.write(usage());
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  const command = COMMANDS.find((c) => c.names.includes(name));
  if (!command) throw usageError(`unknown command '${name}'; run edgeloop --help`);
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: rest,
      options: { ...GLOBAL_OPTIONS, ...command.options },
      strict: true,
      allowPositionals: true,
    });
  } catch (e) {
    throw usageError(`${(e as Error).message}\nusage: edgeloop ${command.synopsis}`);
  }
  const values = parsed.values as Record<string, unknown>;
  if (values.help) {
    process.stdout.write(`usage: edgeloop ${command.synopsis}\n  ${command.summary}\n`);
    return EXIT.ok;
  }
  const settings = resolveSettings({
    flags: values as Parameters<typeof resolveSettings>[0]["flags"],
    env: process.env,
  });
  const client = new ApiClient(settings);
  return command.run({ name, client, settings, json: values.json === true, values, positionals: parsed.positionals });
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (e) {
  const err =
    e instanceof CliError ? e : new CliError(`unexpected error: ${(e as Error).stack ?? String(e)}`, EXIT.failure);
  process.stderr.write(`edgeloop: ${err.message}\n`);
  process.exitCode = err.exitCode;
}
