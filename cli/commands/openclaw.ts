import { Identifier } from "@edgeloop/protocol/ids";
import { NodeSetup } from "@edgeloop/protocol/openclaw-onboarding";
import { z } from "zod";
import { type Command, parseInput, printJson } from "../command.js";
import { EXIT, usageError } from "../exit-codes.js";
import { localTime } from "../output/format.js";

const synopsis = "openclaw setup <agent_id> [--ttl <seconds>] [--json]";

const Args = z.object({
  agent: Identifier,
  ttl: z.coerce
    .number()
    .int()
    .min(60)
    .max(7 * 24 * 3600)
    .optional(),
});

/**
 * `edgeloop openclaw setup <agent_id>`: a one-use setup code for a new OpenClaw node, printed as the
 * exact lines to run on it (docs/openclaw-nodes.md). A node that connects without one waits as a
 * pairing request: `edgeloop devices pending` / `devices approve <code>`.
 */
export const openclawCommand: Command = {
  names: ["openclaw"],
  synopsis,
  summary: "print the line that connects a new OpenClaw node as this device (admin)",
  options: { ttl: { type: "string" } },
  async run({ client, json, positionals: args, values }) {
    const [action, agent, ...rest] = args;
    if (action !== "setup") throw usageError(`say setup\nusage: edgeloop ${synopsis}`);
    if (!agent) throw usageError(`missing <agent_id>\nusage: edgeloop ${synopsis}`);
    if (rest.length > 0) throw usageError(`unexpected argument '${rest[0]}'\nusage: edgeloop ${synopsis}`);
    const a = parseInput(Args, { agent, ttl: values.ttl }, synopsis);
    const body = a.ttl ? { ttl_seconds: a.ttl } : {};
    const path = `/v1/openclaw/${encodeURIComponent(a.agent)}/setup`;
    const setup = await client.json(NodeSetup, path, { method: "POST", auth: "admin", body });
    if (json) {
      printJson(setup);
      return EXIT.ok;
    }
    console.log(
      `On the new device (OpenClaw installed; works once, until ${localTime(setup.expires_at)}), run one of:`,
    );
    console.log("");
    console.log(`  ${setup.run}`);
    console.log(`  ${setup.connect}`);
    console.log("");
    console.log(`It connects to ${setup.gateway_url} as '${setup.agent_id}' and keeps the device token it is given.`);
    console.log("Give the node its own OPENCLAW_STATE_DIR: it keeps one token per device, not per gateway.");
    return EXIT.ok;
  },
};
