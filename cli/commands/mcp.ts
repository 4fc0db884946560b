import { McpConnectStarted, McpServerList } from "@edgeloop/protocol/mcp-servers";
import { z } from "zod";
import { type Command, parseInput, printJson } from "../command.js";
import { EXIT, usageError } from "../exit-codes.js";
import { ago, localTime } from "../output/format.js";
import { renderTable } from "../output/table.js";
import { listGrants, revokeGrant } from "./mcp-grants.js";

const synopsis = "mcp [list] | mcp connect <name> | mcp grants | mcp revoke <grant_id> [--json]";

/** A server's name as MCP_SERVERS allows it. */
const ServerName = z.string().regex(/^[A-Za-z0-9-]{1,32}$/, "an MCP_SERVERS name: 1-32 letters, digits or '-'");

const STATUS_TEXT: Record<z.infer<typeof McpServerList>["servers"][number]["status"], string> = {
  not_connected: "not connected",
  connecting: "waiting for the authorization link to be opened",
  connected: "connected",
  needs_consent: "needs consent",
};

/**
 * `mcp`, for the admin: remote MCP servers that need OAuth (MCP_SERVERS entries with `oauth`),
 * their state and connecting one; and the apps allowed to use the fleet's /mcp (mcp-grants.ts).
 */
export const mcpCommand: Command = {
  names: ["mcp"],
  synopsis,
  summary:
    "remote MCP servers that need OAuth (list; connect prints the link to open) and the apps allowed to use /mcp (grants, revoke); admin",
  options: {},
  async run(ctx) {
    const { client, json, positionals: args } = ctx;
    const [action = "list", arg, ...rest] = args;
    if (rest.length > 0) throw usageError(`unexpected argument '${rest[0]}'\nusage: edgeloop ${synopsis}`);
    if (action === "list") {
      if (arg !== undefined) throw usageError(`unexpected argument '${arg}'\nusage: edgeloop ${synopsis}`);
      const list = await client.json(McpServerList, "/v1/mcp-servers", { auth: "admin" });
      if (json) printJson(list);
      else if (list.servers.length === 0) console.log("No MCP_SERVERS entry has `oauth`.");
      else {
        console.log(
          renderTable(
            [
              { header: "server", value: (s) => s.name },
              { header: "state", value: (s) => STATUS_TEXT[s.status] },
              { header: "token expires", value: (s) => (s.expires_at ? localTime(s.expires_at) : "-") },
              { header: "changed", value: (s) => ago(s.updated_at) },
            ],
            list.servers,
          ),
        );
        for (const s of list.servers.filter((s) => s.status === "needs_consent" || s.status === "not_connected"))
          console.log(`${s.name}: ${s.detail ? `${s.detail}; ` : ""}run: edgeloop mcp connect ${s.name}`);
      }
      return EXIT.ok;
    }
    if (action === "connect") {
      if (!arg) throw usageError(`missing <name>\nusage: edgeloop ${synopsis}`);
      const name = parseInput(ServerName, arg, synopsis);
      const started = await client.json(McpConnectStarted, `/v1/mcp-servers/${name}/connect`, {
        method: "POST",
        auth: "admin",
      });
      if (json) printJson(started);
      else if (started.status === "connected") console.log(`${name} is connected; nothing to authorize.`);
      else {
        console.log(`Open this link in a browser and approve edgeloop's access to ${name}:`);
        console.log(started.authorization_url);
        console.log(`Then check with: edgeloop mcp`);
      }
      return EXIT.ok;
    }
    if (action === "grants") return listGrants(ctx, arg, synopsis);
    if (action === "revoke") return revokeGrant(ctx, arg, synopsis);
    throw usageError(`say list, connect, grants or revoke\nusage: edgeloop ${synopsis}`);
  },
};
