import { ARGUMENT_AND_ADDRESS_EQUIVALENTS } from "./mutation-equivalents-arguments.js";
import { CORE_EQUIVALENTS } from "./mutation-equivalents-core.js";
import { LLM_EQUIVALENTS } from "./mutation-equivalents-llm.js";
import { PROTOCOL_EQUIVALENTS, STATIC } from "./mutation-equivalents-protocol.js";
import type { Equivalent } from "./mutation-report.js";

/**
 * Why a mutant that survived is equivalent: no input tells it from the code. Named by file, mutator, the
 * mutated text and its replacement (as docs/mutation.md shows them), not by line, so a reason outlives edits
 * elsewhere in the file; `context` tells apart the same mutation of the same text on different lines. A
 * reason that matches no survivor of a measured file fails test/unit/docs/mutation-doc.test.ts.
 */

/** Web Crypto's `extractable` flag on a key that is only ever used to sign or verify. */
const EXTRACTABLE =
  "`extractable` only lets `crypto.subtle.exportKey` read the key's bytes back out; the key lives only inside this call and is used to sign or verify, never exported, so what it signs and verifies is the same.";

/** The padding of the dashboard session's signature, which is always an HMAC-SHA-256: 32 bytes. */
const ONE_PAD =
  "the text is the base64 of an HMAC-SHA-256, always 32 bytes: 10 groups of three bytes and two left over, so 43 characters and then exactly one `=`; `=` is not in the base64 alphabet, so it occurs nowhere else. Removing the first run of `=`, or one `=` at the end, removes that same single character.";

/** A cron without a time zone run on the process's local clock: Stryker's threads cannot move that clock. */
const LOCAL_ZONE =
  "test/unit/scheduler/schedule-edges.test.ts (\"a cron without a time zone\") kills it: with the process's zone set to America/New_York, the mutant's cron runs on local time and 9:00 comes five hours late. Stryker's vitest runner runs the tests in worker threads, where assigning `process.env.TZ` does not change the zone the process's clock uses, so its run reports the mutant survived; under `npx vitest run` (forked processes) it fails, checked by applying the mutant by hand.";

/** UTC by name or by offset: the same instants, one of them without a time-zone table. */
const UTC_BY_NAME =
  'the mutant sends a cron whose zone is "UTC" to croner as `{ timezone: "UTC" }` instead of `{ utcOffset: 0 }`; UTC has no daylight saving and no offset changes, so both give the same instants for every expression, only about 17 times slower (the time-zone lookup the fixed offset avoids).';

export const EQUIVALENTS: readonly Equivalent[] = [
  {
    file: "durable-objects/device-hub/wires/openclaw/node-admission.ts",
    mutator: "ConditionalExpression",
    original: "!token",
    replacement: "false",
    reason:
      "a missing or empty token then goes on to `tokens.match(sha256Hex(token))`: `TextEncoder` encodes both `undefined` and `\"\"` as no bytes, and the hub's token table holds only the SHA-256 of tokens it issued (`edl_` and 43 more characters, device-tokens.ts), so the SHA-256 of the empty string matches no row (short of a SHA-256 second preimage), `match` changes nothing on a miss, and the next line's `continue` follows as before.",
  },
  {
    file: "durable-objects/device-hub/wires/openclaw/node-admission.ts",
    mutator: "ConditionalExpression",
    original: 'answer.claim.status === "denied"',
    replacement: "true",
    reason:
      "reached only when the claim is neither pending nor approved (both returned above); an `ok` answer's claim is a `PairingClaim`, whose status is one of pending, denied and approved, and the deployment object answers `ok` only with one of those (deployment-do.ts `claimPairing`: unknown, expired and claimed are `ok: false`), so with `answer.ok` the status is always denied here.",
  },
  {
    file: "worker/middleware/dashboard-session.ts",
    mutator: "BooleanLiteral",
    original: "false",
    replacement: "true",
    reason: EXTRACTABLE,
  },
  {
    file: "worker/middleware/dashboard-session.ts",
    mutator: "Regex",
    original: "/=+$/",
    replacement: "/=+/",
    reason: ONE_PAD,
  },
  {
    file: "worker/middleware/dashboard-session.ts",
    mutator: "Regex",
    original: "/=+$/",
    replacement: "/=$/",
    reason: ONE_PAD,
  },
  {
    file: "runtime/hmac-hex.ts",
    mutator: "BooleanLiteral",
    original: "false",
    replacement: "true",
    reason: EXTRACTABLE,
  },
  {
    file: "protocol/webhook-signatures.ts",
    mutator: "BooleanLiteral",
    original: "false",
    replacement: "true",
    reason: EXTRACTABLE,
  },
  {
    file: "durable-objects/channels/platforms/discord/verify.ts",
    mutator: "BooleanLiteral",
    original: "false",
    replacement: "true",
    reason: EXTRACTABLE,
  },
  {
    file: "durable-objects/device-hub/wires/openclaw/device-signature.ts",
    mutator: "BooleanLiteral",
    original: "false",
    replacement: "true",
    reason: EXTRACTABLE,
  },
  {
    file: "durable-objects/device-hub/wires/openclaw/device-signature.ts",
    mutator: "ArithmeticOperator",
    original: "2 * 60_000",
    replacement: "2 / 60_000",
    killed_by: "test/unit/openclaw/device-signature.test.ts",
    reason: STATIC,
  },
  {
    file: "runtime/access.ts",
    mutator: "ArrowFunction",
    original: '(p: Pick<Principal, "id" | "scoped" | "reach">): Owner => ({ … coped: p.scoped, reach: p.reach, })',
    replacement: "() => undefined",
    killed_by: "test/unit/security/origin-and-access-edges.test.ts",
    reason: STATIC,
  },
  {
    file: "durable-objects/deployment/pairing-store.ts",
    mutator: "ArithmeticOperator",
    original: "30 * 86_400_000",
    replacement: "30 / 86_400_000",
    killed_by: "test/unit/deployment/pairing-store.test.ts",
    reason: STATIC,
  },
  {
    file: "runtime/guarded-fetch.ts",
    mutator: "StringLiteral",
    original: '"GET"',
    replacement: '""',
    context: "init.method ??",
    reason:
      'the default method is only compared with `POST` and `HEAD`; neither `GET` nor `""` is either, and the next request\'s method is taken from the request itself (left unset), not from this default.',
  },
  {
    file: "durable-objects/channels/platforms/discord/verify.ts",
    mutator: "StringLiteral",
    original: '""',
    replacement: '"Stryker was here!"',
    reason:
      'the stand-in for a missing X-Signature-Ed25519 header goes to `hexBytes`; `""` and that text are both not hex (its regex needs one or more pairs of hex digits), so both give null and the same refusal.',
  },
  {
    file: "protocol/webhook-signatures.ts",
    mutator: "StringLiteral",
    original: '""',
    replacement: '"Stryker was here!"',
    context: "header ??",
    reason:
      'the stand-in for a missing webhook-signature header is split into parts that must start with `v1,`; neither `""` nor any word of that text does, so both find no signature and give the same refusal.',
  },
  {
    file: "protocol/webhook-signatures.ts",
    mutator: "BlockStatement",
    original: "{ return null; }",
    replacement: "{}",
    reason:
      "`base64ToBytes`'s catch then returns undefined instead of null; both of its callers only test the result for truthiness (`if (decoded)`, `if (bytes)`), and both are falsy.",
  },
  {
    file: "worker/hooks/verify-hook.ts",
    mutator: "StringLiteral",
    original: '""',
    replacement: '"Stryker was here!"',
    context: "x-grafana-alerting-signature",
    reason:
      'the stand-in for a missing X-Grafana-Alerting-Signature goes to `verifyHmacSha256Hex`, which refuses anything but 64 hex digits before it computes anything; `""` and that text are both refused, with the same reason.',
  },
  ...LLM_EQUIVALENTS,
  ...ARGUMENT_AND_ADDRESS_EQUIVALENTS,
  {
    file: "durable-objects/scheduler/schedule-times.ts",
    mutator: "ConditionalExpression",
    original: 't.timezone === null || t.timezone === "UTC"',
    replacement: "false",
    reason: LOCAL_ZONE,
  },
  {
    file: "durable-objects/scheduler/schedule-times.ts",
    mutator: "ConditionalExpression",
    original: "t.timezone === null",
    replacement: "false",
    reason: LOCAL_ZONE,
  },
  {
    file: "durable-objects/scheduler/schedule-times.ts",
    mutator: "LogicalOperator",
    original: 't.timezone === null || t.timezone === "UTC"',
    replacement: 't.timezone === null && t.timezone === "UTC"',
    reason: LOCAL_ZONE,
  },
  {
    file: "durable-objects/scheduler/schedule-times.ts",
    mutator: "ObjectLiteral",
    original: "{ utcOffset: 0 }",
    replacement: "{}",
    reason: LOCAL_ZONE,
  },
  {
    file: "durable-objects/scheduler/schedule-times.ts",
    mutator: "ConditionalExpression",
    original: 't.timezone === "UTC"',
    replacement: "false",
    reason: UTC_BY_NAME,
  },
  {
    file: "durable-objects/scheduler/schedule-times.ts",
    mutator: "StringLiteral",
    original: '"UTC"',
    replacement: '""',
    reason: UTC_BY_NAME,
  },
  {
    file: "durable-objects/scheduler/schedule-times.ts",
    mutator: "EqualityOperator",
    original: "now <= tick",
    replacement: "now < tick",
    reason:
      "they differ only when `now` equals `tick`, and a one-off has returned 0 before. For `every` the count is then `Math.floor(0 / step)`, 0; for a cron the first run after `tick` is strictly later than `tick`, which is `now`, so the loop never counts one: 0 either way.",
  },
  ...PROTOCOL_EQUIVALENTS,
  ...CORE_EQUIVALENTS,
];
