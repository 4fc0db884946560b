import { DeviceList } from "../api-schemas.js";
import { type Command, positionals } from "../command.js";
import { EXIT } from "../exit-codes.js";
import { ago } from "../output/format.js";
import { renderTable } from "../output/table.js";

export const devicesCommand: Command = {
  names: ["devices"],
  synopsis: "devices [--json]",
  summary: "every device the worker knows: online, version, last seen, tools",
  options: {},
  async run({ client, json, positionals: args }) {
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
          { header: "state", value: (d) => (d.online ? "online" : "offline") },
          { header: "version", value: (d) => d.version ?? "-" },
          { header: "last seen", value: (d) => ago(d.last_seen) },
          { header: "tools", value: (d) => `${d.tools.length}: ${d.tools.join(", ")}`, flex: true },
        ],
        devices,
      ),
    );
    return EXIT.ok;
  },
};
