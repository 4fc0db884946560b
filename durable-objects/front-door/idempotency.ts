import { sha256Hex } from "../../runtime/digest.js";
import { idempotencyFor } from "../addresses.js";
import type { FrontDoorEnv } from "./front-door-env.js";
import type { StoredResponse } from "./idempotency-do.js";

export type Claim =
  | { kind: "new"; finish: (r: StoredResponse) => Promise<void>; release: () => Promise<void> }
  | { kind: "replay"; response: StoredResponse }
  | { kind: "in_progress"; retry_after_s: number }
  | { kind: "mismatch" };

/** No key (or one its caller took): nothing to deduplicate here, every request is new and nothing is stored. */
export const UNCLAIMED: Claim = { kind: "new", finish: async () => {}, release: async () => {} };

/**
 * Claim an idempotency key before any work is done (the DO records `in_progress` first, so a
 * concurrent repeat cannot start a second run). The body's hash goes along: the same key with a
 * different body is refused rather than silently answered with another request's response.
 */
export async function claimIdempotencyKey(
  env: FrontDoorEnv,
  sender: string,
  key: string | null,
  body: string,
): Promise<Claim> {
  if (key === null) return UNCLAIMED;
  const stub = idempotencyFor(env, sender, key);
  const begun = await stub.begin(await sha256Hex(body));
  switch (begun.state) {
    case "new":
      return { kind: "new", finish: (r) => stub.finish(r), release: () => stub.release() };
    case "done":
      return { kind: "replay", response: begun.response };
    case "in_progress":
      return { kind: "in_progress", retry_after_s: begun.retry_after_s };
    case "mismatch":
      return { kind: "mismatch" };
  }
}
