import { McpGrantId, McpGrantList, RevokedMcpGrant } from "@edgeloop/protocol/mcp-grants";
import { type CommandContext, parseInput, printJson } from "../command.js";
import { EXIT, usageError } from "../exit-codes.js";
import { localTime } from "../output/format.js";
import { renderTable } from "../output/table.js";

/**
 * `mcp grants` and `mcp revoke <grant_id>` (cli/commands/mcp.ts): the apps (Claude, ChatGPT, …) an
 * admin allowed to use the fleet's MCP server through OAuth, and revoking them
 * (docs/mcp.md#revoking-an-app).
 */
export async function listGrants({ client, json }: CommandContext, arg: string | undefined, synopsis: string) {
  if (arg !== undefined) throw usageError(`unexpected argument '${arg}'\nusage: edgeloop ${synopsis}`);
  const { grants } = await client.json(McpGrantList, "/v1/mcp/grants", { auth: "admin" });
  if (json) printJson({ grants });
  else if (grants.length === 0)
    console.log("No app is allowed. Add the fleet in Claude or ChatGPT with <worker URL>/mcp (docs/mcp.md).");
  else
    console.log(
      renderTable(
        [
          { header: "grant id", value: (g) => g.grant_id },
          { header: "app", value: (g) => g.client_name },
          { header: "redirect", value: (g) => g.redirect_uri },
          { header: "devices", value: (g) => [...g.agents, ...g.pools.map((p) => `pool:${p}`)].join(" ") },
          { header: "scopes", value: (g) => g.scopes.join(" ") },
          { header: "key", value: (g) => g.key_id },
          { header: "allowed", value: (g) => localTime(g.created_at) },
        ],
        grants,
      ),
    );
  return EXIT.ok;
}

export async function revokeGrant({ client, json }: CommandContext, arg: string | undefined, synopsis: string) {
  if (!arg) throw usageError(`missing <grant_id>\nusage: edgeloop ${synopsis}`);
  const id = parseInput(McpGrantId, arg, synopsis);
  const revoked = await client.json(RevokedMcpGrant, `/v1/mcp/grants/${id}`, { method: "DELETE", auth: "admin" });
  if (json) printJson(revoked);
  else console.log(`Revoked ${revoked.grant_id} (its key ${revoked.key_id}).`);
  return EXIT.ok;
}
