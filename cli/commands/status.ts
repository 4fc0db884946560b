import { PairingList } from "@edgeloop/protocol/pairing";
import { DeviceList } from "../api-schemas.js";
import { type Command, positionals, printJson } from "../command.js";
import { EXIT } from "../exit-codes.js";
import { CLI } from "../invocation.js";
import { ago, oneLine } from "../output/format.js";
import { renderTable, terminalWidth } from "../output/table.js";
import { pendingCalls } from "../pending-calls.js";

/**
 * Health at a glance: is the worker up, which devices are online (and their tools with --tools),
 * and what waits for a person. Exits 1 when the worker cannot be reached.
 */
export const statusCommand: Command = {
  names: ["status"],
  synopsis: "status [--tools] [--json]",
  summary: "worker reachable? devices online/offline, pending approvals",
  options: { tools: { type: "boolean" } },
  async run({ client, json, values, positionals: args }) {
    positionals(args, [], this.synopsis);
    const health = await client.health();
    if (!health.ok) {
      if (json) printJson({ worker: { url: client.settings.url, reachable: false, error: health.error } });
      else console.log(`worker   ${client.settings.url}  UNREACHABLE (${health.error})`);
      return EXIT.failure;
    }
    const [{ devices }, pending, pairing] = await Promise.all([
      client.json(DeviceList, "/v1/devices", { auth: "admin" }),
      pendingCalls(client),
      // Only the admin token lists pairing requests; without it, status says nothing of them.
      client.json(PairingList, "/v1/pairing", { auth: "admin" }).then(
        (l) => l.pending,
        () => null,
      ),
    ]);
    const online = devices.filter((d) => d.online).length;
    if (json) {
      printJson({
        worker: { url: client.settings.url, reachable: true, latency_ms: health.ms },
        devices,
        pending,
        ...(pairing ? { pairing } : {}),
      });
      return EXIT.ok;
    }
    const approvals = pending.filter((p) => p.state === "awaiting_approval").length;
    console.log(`worker   ${client.settings.url}  reachable (${health.ms} ms)`);
    console.log(`devices  ${online} online, ${devices.length - online} offline`);
    if (devices.length > 0) {
      const table = renderTable(
        [
          { header: "device", value: (d) => d.agent_id },
          { header: "state", value: (d) => (d.online ? "online" : d.revoked ? "revoked" : "offline") },
          { header: "version", value: (d) => d.version ?? "-" },
          { header: "tools", value: (d) => String(d.tools.length), align: "right" },
          { header: "last seen", value: (d) => (d.online ? "now" : ago(d.last_seen)) },
        ],
        devices,
        indentedWidth(),
      );
      console.log(indent(table));
      if (values.tools)
        for (const d of devices) console.log(indent(`${d.agent_id}: ${d.tools.join(", ") || "(none)"}`));
    }
    if (pairing?.length)
      console.log(`pairing  ${pairing.length} device(s) waiting: ${CLI} devices pending, then devices approve <code>`);
    console.log(`pending  ${approvals} approval(s), ${pending.length - approvals} question(s)`);
    if (pending.length > 0) {
      const table = renderTable(
        [
          { header: "conversation", value: (p) => p.conversation_id, min: 12 },
          { header: "call", value: (p) => p.id },
          { header: "tool", value: (p) => p.name },
          { header: "waits for", value: (p) => (p.state === "awaiting_approval" ? "approval" : "answer") },
          { header: "arguments", value: (p) => oneLine(p.args), flex: true },
        ],
        pending,
        indentedWidth(),
      );
      console.log(indent(table));
      console.log(
        indent(
          `approve with: ${CLI} approve <conversation> <call>   (or deny, or answer <conversation> <call> <text>)`,
        ),
      );
    }
    return EXIT.ok;
  },
};

const indentedWidth = () => {
  const w = terminalWidth();
  return w === undefined ? undefined : w - 2;
};
const indent = (s: string) =>
  s
    .split("\n")
    .map((l) => `  ${l}`)
    .join("\n");
