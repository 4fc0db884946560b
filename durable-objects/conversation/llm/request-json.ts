import { memoByIdentity } from "./memo-by-identity.js";

/**
 * The JSON of a Chat Completions request, built from JSON already made for its parts.
 *
 * The API is stateless: every model call sends the whole history, so serializing the request
 * object anew made each step's CPU grow with the conversation (at 200 rounds, the largest part
 * of a step's work in the runtime). Messages and the tool list are values that never change once
 * made (the store writes each message once, when it is appended, and never again), so each is
 * serialized once, keyed by identity; a step then serializes only what it added.
 */

/** `JSON.stringify(value)`, made once per object: `value` must not be mutated afterwards. */
export const frozenJson = memoByIdentity((value: object) => JSON.stringify(value));

/** Parses to what `JSON.stringify(body)` does (key order aside). */
export function chatRequestJson(body: {
  messages: readonly object[];
  tools?: readonly object[];
  [key: string]: unknown;
}): string {
  const { messages, tools, ...rest } = body;
  let json = `{"messages":[${messages.map(frozenJson).join(",")}]`;
  if (tools !== undefined) json += `,"tools":${frozenJson(tools)}`;
  const others = JSON.stringify(rest);
  return others === "{}" ? `${json}}` : `${json},${others.slice(1)}`;
}
