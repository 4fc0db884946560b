import { ApiKeyView, CreateKeyRequest, IssuedKey, KEY_SCOPES, KeyId } from "@edgeloop/protocol/api-keys";
import { z } from "zod";
import { type Command, parseInput, printJson } from "../command.js";
import { EXIT, usageError } from "../exit-codes.js";
import { ago, localTime } from "../output/format.js";
import { renderTable } from "../output/table.js";

const synopsis =
  "keys create <name> [--agent <id|*>]... [--pool <name>]... [--scope <scope>]... | keys list | keys revoke <key_id> [--json]";

const KeyList = z.looseObject({ keys: z.array(ApiKeyView) });
const Revoked = z.looseObject({ key_id: z.string(), revoked: z.boolean(), already_revoked: z.boolean().optional() });

/** Repeatable flags, each also taking a comma-separated list. */
const list = (v: unknown): string[] =>
  (Array.isArray(v) ? (v as string[]) : v === undefined ? [] : [String(v)])
    .flatMap((s) => s.split(","))
    .map((s) => s.trim())
    .filter(Boolean);

/** `keys`: scoped API keys, each limited to some devices and some kinds of request (admin). */
export const keysCommand: Command = {
  names: ["keys"],
  synopsis,
  summary: `issue, list and revoke scoped API keys (admin); scopes: ${KEY_SCOPES.join(", ")}`,
  options: {
    agent: { type: "string", multiple: true },
    pool: { type: "string", multiple: true },
    scope: { type: "string", multiple: true },
  },
  async run({ client, json, values, positionals: args }) {
    const [action, arg, ...rest] = args;
    if (rest.length > 0) throw usageError(`unexpected argument '${rest[0]}'\nusage: edgeloop ${synopsis}`);
    if (action === "create") {
      if (!arg) throw usageError(`missing <name>\nusage: edgeloop ${synopsis}`);
      const scopes = list(values.scope);
      const body = parseInput(
        CreateKeyRequest,
        { name: arg, agents: list(values.agent), pools: list(values.pool), ...(scopes.length ? { scopes } : {}) },
        synopsis,
      );
      const issued = await client.json(IssuedKey, "/v1/keys", { method: "POST", auth: "admin", body });
      if (json) printJson(issued);
      else {
        console.log(`Issued ${issued.key_id} (${issued.name}). The key is shown once; only its hash is kept:`);
        console.log(issued.key);
      }
      return EXIT.ok;
    }
    if (action === "list") {
      if (arg !== undefined) throw usageError(`unexpected argument '${arg}'\nusage: edgeloop ${synopsis}`);
      const keys = await client.json(KeyList, "/v1/keys", { auth: "admin" });
      if (json) printJson(keys);
      else if (keys.keys.length === 0) console.log("No keys. Make one with: edgeloop keys create <name> --agent <id>");
      else
        console.log(
          renderTable(
            [
              { header: "key id", value: (k) => k.key_id },
              { header: "name", value: (k) => k.name },
              { header: "devices", value: (k) => [...k.agents, ...k.pools.map((p) => `pool:${p}`)].join(" ") },
              { header: "scopes", value: (k) => (k.scopes.length === KEY_SCOPES.length ? "all" : k.scopes.join(" ")) },
              { header: "created", value: (k) => localTime(k.created_at) },
              { header: "last used", value: (k) => ago(k.last_used_at) },
              { header: "state", value: (k) => (k.revoked_at ? `revoked ${localTime(k.revoked_at)}` : "active") },
            ],
            keys.keys,
          ),
        );
      return EXIT.ok;
    }
    if (action === "revoke") {
      if (!arg) throw usageError(`missing <key_id>\nusage: edgeloop ${synopsis}`);
      const id = parseInput(KeyId, arg, synopsis);
      const revoked = await client.json(Revoked, `/v1/keys/${id}`, { method: "DELETE", auth: "admin" });
      if (json) printJson(revoked);
      else console.log(`Revoked ${revoked.key_id}${revoked.already_revoked ? " (it already was)" : ""}.`);
      return EXIT.ok;
    }
    throw usageError(`say create, list or revoke\nusage: edgeloop ${synopsis}`);
  },
};
