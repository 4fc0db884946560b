import { Identifier } from "@edgeloop/protocol/ids";
import { z } from "zod";
import { IssuedToken, TokenList, TokenRevoked } from "../api-schemas.js";
import { type Command, parseInput, printJson } from "../command.js";
import { EXIT, usageError } from "../exit-codes.js";
import { ago, localTime } from "../output/format.js";
import { renderTable } from "../output/table.js";

const synopsis = "tokens create|list <agent_id> | tokens revoke <agent_id> <token_id> [--json]";

const Args = z.discriminatedUnion("action", [
  z.object({ action: z.literal("create"), agent: Identifier }),
  z.object({ action: z.literal("list"), agent: Identifier }),
  z.object({
    action: z.literal("revoke"),
    agent: Identifier,
    token_id: z.string().regex(/^tok_[0-9a-f]{16}$/, "token ids look like tok_<16 hex digits>"),
  }),
]);

export const tokensCommand: Command = {
  names: ["tokens"],
  synopsis,
  summary: "issue, list and revoke a device's tokens (admin)",
  options: {},
  async run({ client, json, positionals: args }) {
    const [action, agent, tokenId, ...rest] = args;
    if (!action || !["create", "list", "revoke"].includes(action))
      throw usageError(`say create, list or revoke\nusage: edgeloop ${synopsis}`);
    if (rest.length > 0 || (action !== "revoke" && tokenId !== undefined))
      throw usageError(`unexpected argument\nusage: edgeloop ${synopsis}`);
    if (!agent) throw usageError(`missing <agent_id>\nusage: edgeloop ${synopsis}`);
    if (action === "revoke" && !tokenId) throw usageError(`missing <token_id>\nusage: edgeloop ${synopsis}`);
    const a = parseInput(Args, { action, agent, token_id: tokenId }, synopsis);
    const base = `/v1/devices/${encodeURIComponent(a.agent)}/tokens`;
    if (a.action === "create") {
      const issued = await client.json(IssuedToken, base, { method: "POST", auth: "admin" });
      if (json) printJson(issued);
      else {
        console.log(
          `Issued ${issued.token_id} for ${issued.agent_id}. The token is shown once; only its hash is kept:`,
        );
        console.log(issued.token);
      }
      return EXIT.ok;
    }
    if (a.action === "list") {
      const list = await client.json(TokenList, base, { auth: "admin" });
      if (json) printJson(list);
      else if (list.tokens.length === 0)
        console.log(`No issued tokens for ${list.agent_id} (DEVICE_TOKENS entries are not listed).`);
      else
        console.log(
          renderTable(
            [
              { header: "token id", value: (t) => t.token_id },
              { header: "created", value: (t) => localTime(t.created_at) },
              { header: "last used", value: (t) => ago(t.last_used_at) },
            ],
            list.tokens,
          ),
        );
      return EXIT.ok;
    }
    const revoked = await client.json(TokenRevoked, `${base}/${a.token_id}`, { method: "DELETE", auth: "admin" });
    if (json) printJson(revoked);
    else
      console.log(
        `Revoked ${revoked.token_id} of ${revoked.agent_id}; ${revoked.sockets_closed ?? 0} socket(s) closed.`,
      );
    return EXIT.ok;
  },
};
