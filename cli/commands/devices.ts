import { Identifier } from "@edgeloop/protocol/ids";
import { DeviceList, RevokedKeysCleared } from "../api-schemas.js";
import { type Command, parseInput, positionals, printJson } from "../command.js";
import { EXIT, usageError } from "../exit-codes.js";
import { ago } from "../output/format.js";
import { renderTable } from "../output/table.js";
import { decide, listPending, PAIRING_SYNOPSIS } from "./device-pairing.js";

export const devicesCommand: Command = {
  names: ["devices"],
  synopsis: `devices [--json] | ${PAIRING_SYNOPSIS} | devices clear <agent_id>`,
  summary:
    "every device the worker knows (online, version, last seen, tools); devices waiting to pair; clearing a revoked node's key (admin)",
  options: { as: { type: "string" } },
  async run({ client, json, values, positionals: args }) {
    const [action, code, ...rest] = args;
    if (action === "pending") {
      positionals(args, ["action"], this.synopsis);
      return listPending(client, json);
    }
    if (action === "approve" || action === "deny") {
      if (rest.length > 0) throw usageError(`unexpected argument '${rest[0]}'\nusage: edgeloop ${this.synopsis}`);
      if (code === undefined) throw usageError(`missing <code>\nusage: edgeloop ${this.synopsis}`);
      if (action === "deny" && values.as !== undefined) throw usageError("--as goes with approve only");
      return decide(client, action, { code, as: values.as }, json);
    }
    if (values.as !== undefined) throw usageError("--as goes with approve only");
    if (action === "clear") {
      positionals(args, ["action", "agent_id"], this.synopsis);
      const agent = parseInput(Identifier, code, this.synopsis);
      const path = `/v1/devices/${encodeURIComponent(agent)}/revoked-keys`;
      const answer = await client.json(RevokedKeysCleared, path, { method: "DELETE", auth: "admin" });
      if (json) printJson(answer);
      else if (answer.cleared.length === 0) console.log(`${agent} has no revoked device key.`);
      else
        console.log(
          `Cleared ${answer.cleared.length} revoked key(s) of ${agent}. A node with one asks to pair again: ` +
            "see it with `edgeloop devices pending`.",
        );
      return EXIT.ok;
    }
    positionals(args, [], this.synopsis);
    const { devices } = await client.json(DeviceList, "/v1/devices", { auth: "admin" });
    if (json) {
      process.stdout.write(`${JSON.stringify({ devices }, null, 2)}\n`);
      return EXIT.ok;
    }
    if (devices.length === 0) {
      console.log("No device has connected yet.");
      return EXIT.ok;
    }
    console.log(
      renderTable(
        [
          { header: "device", value: (d) => d.agent_id },
          { header: "state", value: (d) => (d.online ? "online" : d.revoked ? "revoked" : "offline") },
          { header: "version", value: (d) => d.version ?? "-" },
          { header: "last seen", value: (d) => (d.online ? "now" : ago(d.last_seen)) },
          { header: "tools", value: (d) => `${d.tools.length}: ${d.tools.join(", ")}`, flex: true },
        ],
        devices,
      ),
    );
    return EXIT.ok;
  },
};
