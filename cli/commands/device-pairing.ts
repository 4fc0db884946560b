import { Identifier } from "@edgeloop/protocol/ids";
import { PairingCode, PairingList, PairingView } from "@edgeloop/protocol/pairing";
import { z } from "zod";
import type { ApiClient } from "../api-client.js";
import { parseInput, printJson } from "../command.js";
import { EXIT, type ExitCode } from "../exit-codes.js";
import { ago, localTime } from "../output/format.js";
import { renderTable } from "../output/table.js";

/** `edgeloop devices pending | approve <code> [--as <agent_id>] | deny <code>`: deciding pairing requests (admin). */
export const PAIRING_SYNOPSIS = "devices pending | devices approve <code> [--as <agent_id>] | devices deny <code>";

const Decide = z.object({ code: PairingCode, as: Identifier.optional() });

export async function listPending(client: ApiClient, json: boolean): Promise<ExitCode> {
  const { pending } = await client.json(PairingList, "/v1/pairing", { auth: "admin" });
  if (json) printJson({ pending });
  else if (pending.length === 0) console.log("No device is waiting for approval.");
  else
    console.log(
      renderTable(
        [
          { header: "code", value: (p) => p.code },
          { header: "device", value: (p) => `${p.agent_id}${p.known_device ? " (already exists!)" : ""}` },
          { header: "kind", value: (p) => p.kind },
          { header: "says", value: (p) => p.label ?? "-", flex: true },
          { header: "asked", value: (p) => ago(p.created_at) },
          { header: "expires", value: (p) => localTime(p.expires_at) },
        ],
        pending,
      ),
    );
  return EXIT.ok;
}

export async function decide(
  client: ApiClient,
  action: "approve" | "deny",
  input: { code: string | undefined; as: unknown },
  json: boolean,
): Promise<ExitCode> {
  const a = parseInput(Decide, input, PAIRING_SYNOPSIS);
  const path = `/v1/pairing/${a.code}/${action}`;
  const body = action === "approve" && a.as ? { agent_id: a.as } : action === "approve" ? {} : undefined;
  const decided = await client.json(PairingView, path, { method: "POST", auth: "admin", body });
  if (json) printJson(decided);
  else if (action === "deny") console.log(`Denied ${decided.code} (${decided.agent_id}).`);
  else
    console.log(
      `Approved ${decided.code}: the device collects its own token as ${decided.agent_id} within a few seconds.\n` +
        `Revoke it like any token: edgeloop tokens list ${decided.agent_id}`,
    );
  return EXIT.ok;
}
