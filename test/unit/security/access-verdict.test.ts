import "../../helpers/workers-crypto.js";
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { scopedPrincipal, unscoped } from "../../../runtime/access.js";
import {
  ADMIN_NEEDED_DETAIL,
  adminVerdict,
  apiVerdict,
  bearerToken,
  deviceProof,
  type Lookups,
  type Shown,
} from "../../../worker/middleware/access-verdict.js";
import { SESSION_TTL_MS, signSession } from "../../../worker/middleware/dashboard-session.js";
import { matchesAny, safeEqual } from "../../../worker/middleware/safe-equal.js";

/**
 * Who `authorize` and `authorizeAdmin` let through, in Node (workerd: test/worker/middleware/authorize.test.ts and
 * the routes' tests, with the real lookups). The deployment's lookups are given here as tables: the API token, a
 * scoped key with the `messages` scope, and, for `/mcp`, an OAuth access token.
 */
const ADMIN = "admin-token";
const API = "api-token";
const KEY = "edk_scoped-key";
const OAUTH = "oauth-access-token";
const keyPrincipal = scopedPrincipal("key:k1", { agents: ["a"], pools: [], scopes: ["messages"] }, new Map());
const oauthPrincipal = scopedPrincipal("key:k2", { agents: ["a"], pools: [], scopes: ["mcp"] }, new Map());

const lookups = (over: Partial<Lookups> = {}): Lookups & { asked: string[] } => {
  const asked: string[] = [];
  return {
    asked,
    bearer: async (token) => {
      asked.push(`bearer ${token}`);
      return token === ADMIN
        ? unscoped("admin", true)
        : token === API
          ? unscoped("api")
          : token === KEY
            ? keyPrincipal
            : null;
    },
    notConfigured: (requirement) => new Response(`missing ${requirement}`, { status: 503 }),
    ...over,
  };
};
const shown = (over: Partial<Shown> = {}): Shown => ({
  authorization: undefined,
  session: undefined,
  method: "GET",
  csrf: undefined,
  ...over,
});
const bearer = (token: string) => shown({ authorization: `Bearer ${token}` });
const session = async (over: Partial<Shown> = {}) =>
  shown({ session: await signSession(ADMIN, Date.now() + SESSION_TTL_MS - 1000), ...over });
const BOTH = { API_TOKEN: API, ADMIN_TOKEN: ADMIN };

/** The refusal as a status, its problem's title and detail, and its challenge. */
const refusal = async (verdict: unknown) => {
  expect(verdict).toBeInstanceOf(Response);
  const res = verdict as Response;
  const text = await res.text();
  const body = text.startsWith("{") ? (JSON.parse(text) as { title: string; detail: string }) : { text };
  return { status: res.status, ...body, challenge: res.headers.get("www-authenticate") };
};

describe("the bearer token of an Authorization header", () => {
  it("is the one word after Bearer, in any case, with spaces around it", () => {
    expect(bearerToken("Bearer abc")).toBe("abc");
    expect(bearerToken("bearer  abc  ")).toBe("abc");
    expect(bearerToken("BEARER\tabc")).toBe("abc");
  });

  it("is nothing for another scheme, two words, no word, or something before Bearer", () => {
    for (const header of ["Basic abc", "Bearer a b", "Bearer ", "Bearerabc", "xBearer abc", " Bearer abc", ""])
      expect(bearerToken(header), header).toBeNull();
    expect(bearerToken(undefined)).toBeNull();
    expect(bearerToken(null)).toBeNull();
  });
});

describe("authorize(scope): the API and admin tokens, the session, or a key with the scope", () => {
  it("lets the tokens through as their principals, and a key with the scope", async () => {
    expect(await apiVerdict("messages", bearer(ADMIN), BOTH, lookups())).toEqual(unscoped("admin", true));
    expect(await apiVerdict("messages", bearer(API), BOTH, lookups())).toEqual(unscoped("api"));
    expect(await apiVerdict("messages", bearer(KEY), BOTH, lookups())).toEqual(keyPrincipal);
    expect(await apiVerdict(null, bearer(KEY), BOTH, lookups())).toEqual(keyPrincipal);
  });

  it("refuses a key without the scope (403, naming it)", async () => {
    expect(await refusal(await apiVerdict("schedules", bearer(KEY), BOTH, lookups()))).toMatchObject({
      status: 403,
      title: "Forbidden",
      detail: "this key does not have the scope 'schedules'",
    });
  });

  it("refuses no token and an unknown one (401) with a Bearer challenge", async () => {
    for (const s of [shown(), shown({ authorization: "Basic abc" })])
      expect(await refusal(await apiVerdict(null, s, BOTH, lookups()))).toMatchObject({
        status: 401,
        title: "Unauthorized",
        detail: "send Authorization: Bearer <token>",
        challenge: "Bearer",
      });
    expect(await refusal(await apiVerdict(null, bearer("nope"), BOTH, lookups()))).toMatchObject({
      status: 401,
      detail: "invalid token",
      challenge: "Bearer",
    });
  });

  it("lets the dashboard session through as the admin when no Authorization header is sent", async () => {
    const l = lookups();
    expect(await apiVerdict("messages", await session(), BOTH, l)).toEqual(unscoped("admin", true));
    expect(await apiVerdict("messages", await session({ method: "POST", csrf: "1" }), BOTH, l)).toEqual(
      unscoped("admin", true),
    );
    expect(l.asked).toEqual([]);
  });

  it("refuses an expired session, and a session write without the CSRF header", async () => {
    const expired = shown({ session: await signSession(ADMIN, Date.now() - 1) });
    expect(await refusal(await apiVerdict(null, expired, BOTH, lookups()))).toMatchObject({
      status: 401,
      detail: "the session has expired; log in again",
    });
    expect(await refusal(await apiVerdict(null, await session({ method: "POST" }), BOTH, lookups()))).toMatchObject({
      status: 403,
    });
  });

  it("judges a request with an Authorization header by it alone, whatever session it sends", async () => {
    const withBad = await session({ authorization: "Bearer nope" });
    expect(await refusal(await apiVerdict(null, withBad, BOTH, lookups()))).toMatchObject({ detail: "invalid token" });
    const expiredWithApi = shown({ authorization: `Bearer ${API}`, session: await signSession(ADMIN, 1) });
    expect(await apiVerdict(null, expiredWithApi, BOTH, lookups())).toEqual(unscoped("api"));
  });

  it("ignores a session cookie when there is no admin token for it to stand for", async () => {
    const s = await session();
    expect(await refusal(await apiVerdict(null, s, { API_TOKEN: API }, lookups()))).toMatchObject({
      status: 401,
      detail: "send Authorization: Bearer <token>",
    });
  });

  it("answers that the tokens are missing when neither is set, unless the token is a key", async () => {
    const res = await apiVerdict(null, bearer(API), {}, lookups());
    expect(await refusal(res)).toMatchObject({ status: 503, text: "missing API_TOKEN or ADMIN_TOKEN" });
    expect(await apiVerdict(null, bearer(KEY), {}, lookups())).toEqual(keyPrincipal);
    expect(await apiVerdict(null, bearer(API), { API_TOKEN: API }, lookups())).toEqual(unscoped("api"));
    expect(await apiVerdict(null, bearer(ADMIN), { ADMIN_TOKEN: ADMIN }, lookups())).toEqual(unscoped("admin", true));
  });

  it("on /mcp, takes an OAuth access token after the bearer lookup, and challenges with the route's words", async () => {
    const challenges: (string | undefined)[] = [];
    const mcp = lookups({
      accessToken: async (token) => (token === OAUTH || token === API ? oauthPrincipal : null),
      challenge: (error) => {
        challenges.push(error);
        return `Bearer resource_metadata="x"${error ? `, error="${error}"` : ""}`;
      },
    });
    expect(await apiVerdict("mcp", bearer(OAUTH), BOTH, mcp)).toEqual(oauthPrincipal);
    expect(await apiVerdict("mcp", bearer(API), BOTH, mcp)).toEqual(unscoped("api"));
    expect(await refusal(await apiVerdict("mcp", bearer("nope"), BOTH, mcp))).toMatchObject({
      status: 401,
      detail: "invalid token",
      challenge: 'Bearer resource_metadata="x", error="invalid_token"',
    });
    expect(await refusal(await apiVerdict("mcp", shown(), BOTH, mcp))).toMatchObject({
      challenge: 'Bearer resource_metadata="x"',
    });
    expect(challenges).toEqual(["invalid_token", undefined]);
  });
});

describe("authorizeAdmin: the admin token or its session only", () => {
  it("lets the admin token and the session through as the admin, without a lookup", async () => {
    const l = lookups();
    expect(await adminVerdict(bearer(ADMIN), ADMIN, l)).toEqual(unscoped("admin", true));
    expect(await adminVerdict(await session(), ADMIN, l)).toEqual(unscoped("admin", true));
    expect(l.asked).toEqual([]);
  });

  it("refuses the API token and a key with 403, naming what is needed", async () => {
    expect(await refusal(await adminVerdict(bearer(API), ADMIN, lookups()))).toMatchObject({
      status: 403,
      title: "Admin token required",
      detail: ADMIN_NEEDED_DETAIL,
    });
    expect(ADMIN_NEEDED_DETAIL).toBe("this endpoint needs the admin token (ADMIN_TOKEN); the API token is not enough");
    expect(await refusal(await adminVerdict(bearer(KEY), ADMIN, lookups()))).toMatchObject({
      status: 403,
      detail: "this endpoint needs the admin token (ADMIN_TOKEN); an API key is not enough",
    });
  });

  it("refuses no token and an unknown one (401), and a session that fails", async () => {
    expect(await refusal(await adminVerdict(shown(), ADMIN, lookups()))).toMatchObject({
      status: 401,
      title: "Unauthorized",
      detail: "send Authorization: Bearer <token>",
      challenge: "Bearer",
    });
    expect(await refusal(await adminVerdict(bearer("nope"), ADMIN, lookups()))).toMatchObject({
      status: 401,
      detail: "invalid token",
      challenge: "Bearer",
    });
    expect(await refusal(await adminVerdict(await session({ method: "DELETE" }), ADMIN, lookups()))).toMatchObject({
      status: 403,
    });
    const withBad = await session({ authorization: "Bearer nope" });
    expect(await refusal(await adminVerdict(withBad, ADMIN, lookups()))).toMatchObject({ detail: "invalid token" });
  });

  it("answers that ADMIN_TOKEN is missing when it is not set, whatever is sent", async () => {
    for (const s of [bearer(ADMIN), await session(), shown()])
      expect(await refusal(await adminVerdict(s, undefined, lookups()))).toMatchObject({
        status: 503,
        text: "missing ADMIN_TOKEN",
      });
  });
});

describe("authorizeDevice: how a device proved itself, for its hub", () => {
  const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

  it("is a DEVICE_TOKENS entry of its agent id, whichever of them it is", async () => {
    for (const token of ["env-1", "env-2", "env-3"])
      expect(await deviceProof(`Bearer ${token}`, ["env-1", "env-2", "env-3"])).toEqual({
        "x-edgeloop-token-id": "env",
      });
  });

  it("is otherwise the token's SHA-256, for the hub to look up among the tokens it issued", async () => {
    expect(await deviceProof("Bearer edl_issued", ["env-1"])).toEqual({
      "x-edgeloop-token-sha256": sha256("edl_issued"),
    });
    expect(await deviceProof("Bearer env-1x", ["env-1"])).toEqual({ "x-edgeloop-token-sha256": sha256("env-1x") });
    expect(await deviceProof("Bearer env-1", [])).toEqual({ "x-edgeloop-token-sha256": sha256("env-1") });
  });

  it("refuses a request without a bearer token (401)", async () => {
    for (const header of [undefined, "Basic env-1"])
      expect(await refusal(await deviceProof(header, ["env-1"]))).toMatchObject({
        status: 401,
        title: "Unauthorized",
        detail: "send Authorization: Bearer <device token>",
        challenge: "Bearer",
      });
  });
});

describe("comparing secrets", () => {
  it("is equality, for any lengths", async () => {
    expect(await safeEqual("secret", "secret")).toBe(true);
    expect(await safeEqual("", "")).toBe(true);
    expect(await safeEqual("secret", "secreT")).toBe(false);
    expect(await safeEqual("secret", "secret-longer")).toBe(false);
    expect(await safeEqual("", "x")).toBe(false);
  });

  it("finds a match anywhere in a list, and none in an empty one", async () => {
    expect(await matchesAny("b", ["a", "b", "c"])).toBe(true);
    expect(await matchesAny("a", ["a", "b"])).toBe(true);
    expect(await matchesAny("c", ["a", "b", "c"])).toBe(true);
    expect(await matchesAny("d", ["a", "b", "c"])).toBe(false);
    expect(await matchesAny("a", [])).toBe(false);
  });
});
