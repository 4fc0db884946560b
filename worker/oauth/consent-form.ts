import { CreateKeyRequest, KEY_SCOPES, type KeyScope } from "@edgeloop/protocol/api-keys";
import { z } from "zod";
import { REQUIRED_SCOPES } from "./oauth-names.js";

/**
 * The consent form as posted (application/x-www-form-urlencoded, repeated fields as arrays) and
 * what it grants: exactly a scoped key's grant (agents, pools, scopes; `CreateKeyRequest`), so an
 * OAuth token is checked as a key is. Pure.
 */

const many = z.preprocess((v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]), z.array(z.string()));

export const ConsentForm = z.object({
  handle: z.string().min(1).max(512),
  decision: z.enum(["approve", "deny"]),
  agents: many,
  pools: many,
  scopes: many,
});
export type ConsentForm = z.infer<typeof ConsentForm>;

/** What an approval grants. */
export type ConsentChoice = { agents: string[]; pools: string[]; scopes: KeyScope[] };
/** …and the key that carries it, named after the client (keyNameFor). */
export type ConsentGrant = ConsentChoice & { name: string };

/** Scopes ticked by default on the page: what a connector needs to list and call device tools and follow runs. */
export const DEFAULT_CONSENT_SCOPES: readonly KeyScope[] = [
  "mcp",
  "tools",
  "devices:read",
  "messages",
  "conversations:read",
];

/** The key's name: `mcp: <client name>`, cut to what a key name may hold (letters, digits, ` ._:@/-`, 64). */
export function keyNameFor(clientName: string): string {
  const plain = clientName
    .replace(/[^\p{L}\p{N} ._:@/-]+/gu, " ")
    .replace(/\s+/g, " ")
    .trim();
  return `mcp: ${plain || "client"}`.slice(0, 64).trim();
}

/**
 * The grant an approving form asks for, or the messages to show on the page again. Pools must be
 * configured ones; the `mcp` scope is always needed (without it the token opens nothing).
 */
export function grantFromForm(
  form: Pick<ConsentForm, "agents" | "pools" | "scopes">,
  configuredPools: ReadonlySet<string>,
): { ok: true; grant: ConsentChoice } | { ok: false; errors: string[] } {
  const errors: string[] = [];
  const unknownPool = form.pools.find((p) => !configuredPools.has(p));
  if (unknownPool !== undefined) errors.push(`no pool '${unknownPool}'`);
  const unknownScope = form.scopes.find((s) => !(KEY_SCOPES as readonly string[]).includes(s));
  if (unknownScope !== undefined) errors.push(`no scope '${unknownScope}'`);
  for (const s of REQUIRED_SCOPES)
    if (!form.scopes.includes(s)) errors.push(`the scope '${s}' is needed to use /mcp at all`);
  const parsed = CreateKeyRequest.safeParse({
    name: "consent",
    agents: [...new Set(form.agents)],
    pools: [...new Set(form.pools)],
    scopes: [...new Set(form.scopes)].filter((s) => (KEY_SCOPES as readonly string[]).includes(s)),
  });
  if (!parsed.success)
    for (const issue of parsed.error.issues)
      errors.push(
        issue.path[0] === "agents" && issue.code === "custom" ? "choose at least one device or pool" : issue.message,
      );
  if (errors.length > 0 || !parsed.success) return { ok: false, errors: [...new Set(errors)] };
  const { agents, pools, scopes } = parsed.data;
  return { ok: true, grant: { agents, pools, scopes: scopes ?? [...KEY_SCOPES] } };
}
