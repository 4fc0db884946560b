import { describe, expect, it } from "vitest";
import { isSecretKey, REDACTED, redact, redactString } from "../../../durable-objects/device-hub/storage/redact.js";

/**
 * Secrets out of the audit log (durable-objects/device-hub/storage/redact.ts), in Node: the workerd test
 * (test/worker/front-door-audit.test.ts) sees it only through a stored row.
 */
describe("audit redaction", () => {
  it("writes [REDACTED] where a secret was", () => {
    expect(REDACTED).toBe("[REDACTED]");
    expect(redact({ password: "x" })).toEqual({ password: "[REDACTED]" });
  });

  it("knows a secret's key by its letters and digits, whatever the case or separators", () => {
    for (const key of [
      "token",
      "api_key",
      "API-Key",
      "apiKey",
      "password",
      "passwd",
      "client_secret",
      "Authorization",
      "aws_credentials",
      "private-key",
      "Cookie",
      "access_key_id",
      "SESSION_ID",
      "x-auth-token",
    ])
      expect(isSecretKey(key), key).toBe(true);
    for (const key of ["path", "command", "author", "key", "session", "id", "cwd", "sessions_dir"])
      expect(isSecretKey(key), key).toBe(false);
  });

  it("masks credentials wherever they appear in a string, keeping what kind they were", () => {
    expect(redactString('curl -H "Authorization: Bearer abc.def-123" x')).toBe(
      `curl -H "Authorization: Bearer ${REDACTED}" x`,
    );
    expect(redactString("basic   dXNlcjpwYXNz")).toBe(`basic ${REDACTED}`);
    expect(redactString("OPENAI=sk-proj_ABCdef12 next")).toBe(`OPENAI=sk-${REDACTED} next`);
    for (const prefix of ["edl", "whsec", "ghp", "gho", "github_pat", "xoxb", "xoxp", "xoxa", "xoxr", "xoxs"])
      expect(redactString(`t=${prefix}_abcdEFGH1234 done`), prefix).toBe(`t=${prefix}_${REDACTED} done`);
    // Two in one string: each pattern replaces every match, not only the first.
    expect(redactString("Bearer aaaaaaaa and Bearer bbbbbbbb")).toBe(`Bearer ${REDACTED} and Bearer ${REDACTED}`);
    expect(redactString("sk-aaaaaaaaaa sk-bbbbbbbbbb")).toBe(`sk-${REDACTED} sk-${REDACTED}`);
    expect(redactString("edl_aaaaaaaaaa ghp_bbbbbbbbbb")).toBe(`edl_${REDACTED} ghp_${REDACTED}`);
  });

  it("leaves alone what only looks a little like a credential", () => {
    for (const text of [
      "Bearer abc", // too short to be a token
      "sk-short",
      "edl_short",
      "task-abcdefghij", // `sk-` inside a word
      "xoxz_abcdefghij",
      "the bearer of news",
      "mybearer abcdefgh",
    ])
      expect(redactString(text), text).toBe(text);
  });

  it("drops a secret key's value, walks objects and arrays, and keeps the shape", () => {
    const input = {
      command: "run --token=1",
      env: { API_KEY: "x", HOME: "/root", nested: [{ password: 5 }, "Bearer abcdefgh"] },
      token: null,
      secret: undefined,
      count: 3,
      ok: true,
    };
    expect(redact(input)).toEqual({
      command: "run --token=1",
      env: { API_KEY: REDACTED, HOME: "/root", nested: [{ password: REDACTED }, `Bearer ${REDACTED}`] },
      token: null,
      secret: undefined,
      count: 3,
      ok: true,
    });
    expect(redact(null)).toBeNull();
    expect(redact(7)).toBe(7);
  });

  it("stops walking deeper than any real call's arguments, and hides what lies below", () => {
    let deep: unknown = "Bearer abcdefgh";
    for (let i = 0; i < 21; i++) deep = [deep];
    let walked = redact(deep);
    for (let i = 0; i < 20; i++) walked = (walked as unknown[])[0];
    expect(walked).toEqual([REDACTED]);
    // Objects count toward the depth as arrays do.
    let object: unknown = "Bearer abcdefgh";
    for (let i = 0; i < 21; i++) object = { a: object };
    let inner = redact(object);
    for (let i = 0; i < 20; i++) inner = (inner as { a: unknown }).a;
    expect(inner).toEqual({ a: REDACTED });
    let shallow: unknown = "plain";
    for (let i = 0; i < 20; i++) shallow = [shallow];
    let kept = redact(shallow);
    for (let i = 0; i < 20; i++) kept = (kept as unknown[])[0];
    expect(kept).toBe("plain");
  });
});
