import "../../helpers/workers-crypto.js";
import { signHmacWebhook, signStandardWebhook } from "@edgeloop/protocol/webhook-signatures";
import { describe, expect, it } from "vitest";
import type { AuthMethod } from "../../../durable-objects/front-door/front-door-config.js";
import { type Principal, scopedPrincipal, unscoped } from "../../../runtime/access.js";
import { SESSION_TTL_MS, signSession } from "../../../worker/middleware/dashboard-session.js";
import {
  authenticateMessage,
  type SenderConfig,
  type SenderLookups,
} from "../../../worker/middleware/message-sender.js";

/**
 * Who may send `POST /v1/messages` (`authorizeSender`), in Node (workerd: test/worker/middleware/authorize.test.ts
 * and the front door's tests, with the real lookups): a bearer token or scoped key, a signed webhook of either
 * scheme, or the dashboard's session. The deployment's lookups are tables here.
 */
const API = "api-token";
const ADMIN = "admin-token";
const KEY = "edk_key-with-messages";
const READ_ONLY_KEY = "edk_key-without-messages";
const BODY = '{"agent_id":"pi-1","text":"hi"}';
const keyPrincipal = scopedPrincipal("key:k1", { agents: ["pi-1"], pools: [], scopes: ["messages"] }, new Map());
const readOnly = scopedPrincipal("key:k2", { agents: ["pi-1"], pools: [], scopes: ["conversations:read"] }, new Map());
const principals = new Map<string, Principal>([
  [API, unscoped("api")],
  [ADMIN, unscoped("admin", true)],
  [KEY, keyPrincipal],
  [READ_ONLY_KEY, readOnly],
]);

const config = (over: Partial<SenderConfig> = {}): SenderConfig => ({
  API_TOKEN: API,
  ADMIN_TOKEN: ADMIN,
  MESSAGE_AUTH: new Set<AuthMethod>(["bearer", "hmac", "standard"]),
  WEBHOOK_SECRETS: [
    { sender: "ci", secret: "ci-secret" },
    { sender: "alerts", secret: "alerts-secret" },
  ],
  WEBHOOK_TOLERANCE_SECONDS: 300,
  WEBHOOK_SCOPES: undefined,
  POOLS: new Map(),
  ...over,
});

const asked: string[] = [];
const lookups: SenderLookups = {
  bearer: async (token) => {
    asked.push(token);
    return principals.get(token) ?? null;
  },
  notConfigured: (requirement) => new Response(`missing ${requirement}`, { status: 503 }),
};

type Req = { method?: string; headers?: Record<string, string>; session?: string };
const send = (r: Req, cfg = config(), body = BODY) =>
  authenticateMessage(
    { method: r.method ?? "POST", header: (name) => r.headers?.[name] },
    body,
    cfg,
    r.session,
    lookups,
  );

/** A refusal as its status, its detail (or text) and its challenge. */
const refusal = async (r: Req, cfg = config(), body = BODY) => {
  const out = await send(r, cfg, body);
  if (out.ok) throw new Error(`let through as ${out.sender.principal.id}`);
  const text = await out.response.text();
  const detail = text.startsWith("{") ? (JSON.parse(text) as { detail: string }).detail : text;
  return `${out.response.status} ${detail}${out.response.headers.get("www-authenticate") ? " [Bearer]" : ""}`;
};
const sender = async (r: Req, cfg = config(), body = BODY) => {
  const out = await send(r, cfg, body);
  if (!out.ok) throw new Error(`refused: ${await out.response.text()}`);
  return { id: out.sender.principal.id, method: out.sender.method, key: out.sender.idempotencyKey };
};

const now = () => String(Math.floor(Date.now() / 1000));
const hmacHeaders = async (secret: string, body = BODY) => {
  const ts = now();
  return { "x-webhook-timestamp": ts, "x-webhook-signature": await signHmacWebhook(secret, ts, body) };
};
const standardHeaders = async (secret: string, id = "msg_1", body = BODY) => {
  const ts = now();
  return {
    "webhook-id": id,
    "webhook-timestamp": ts,
    "webhook-signature": await signStandardWebhook(secret, id, ts, body),
  };
};

describe("a message without credentials", () => {
  it("is refused, naming both ways to send one", async () => {
    const detail =
      "401 send Authorization: Bearer <token>, or a signed webhook (X-Webhook-Signature or webhook-signature) [Bearer]";
    expect(await refusal({})).toBe(detail);
    // A session cookie stands for the admin token: with no admin token it stands for nothing.
    const session = await signSession(ADMIN, Date.now() + SESSION_TTL_MS);
    expect(await refusal({ session }, config({ ADMIN_TOKEN: undefined }))).toBe(detail);
  });
});

describe("a bearer token", () => {
  const bearer = (token: string, extra: Record<string, string> = {}) => ({
    headers: { authorization: `Bearer ${token}`, ...extra },
  });

  it("sends as the principal it stands for, keyed by its Idempotency-Key", async () => {
    expect(await sender(bearer(API))).toEqual({ id: "api", method: "bearer", key: null });
    expect(await sender(bearer(KEY, { "idempotency-key": "order-7" }))).toEqual({
      id: "key:k1",
      method: "bearer",
      key: "order-7",
    });
  });

  it("is refused when unknown, malformed, or a key without the messages scope", async () => {
    expect(await refusal(bearer("nope"))).toBe("401 invalid token [Bearer]");
    expect(await refusal({ headers: { authorization: "Basic abc" } })).toBe(
      "401 send Authorization: Bearer <token> [Bearer]",
    );
    expect(await refusal(bearer(READ_ONLY_KEY))).toBe("403 this key does not have the scope 'messages'");
  });

  it("needs the API or admin token configured, unless it is a scoped key", async () => {
    const neither = config({ API_TOKEN: undefined, ADMIN_TOKEN: undefined });
    asked.length = 0;
    expect(await refusal(bearer(API), neither)).toBe("503 missing API_TOKEN or ADMIN_TOKEN");
    expect(asked).toEqual([]);
    expect(await sender(bearer(KEY), neither)).toMatchObject({ id: "key:k1" });
    expect(await sender(bearer(API), config({ ADMIN_TOKEN: undefined }))).toMatchObject({ id: "api" });
    expect(await sender(bearer(ADMIN), config({ API_TOKEN: undefined }))).toMatchObject({ id: "admin" });
  });

  it("is refused when bearer authentication is not enabled", async () => {
    expect(await refusal(bearer(API), config({ MESSAGE_AUTH: new Set(["hmac"]) }))).toBe(
      "401 authentication by 'bearer' is not enabled here (MESSAGE_AUTH) [Bearer]",
    );
  });

  it("is refused with an Idempotency-Key that is not 1-255 visible characters", async () => {
    for (const key of ["", "a b", "k".repeat(256), "é"])
      expect(await refusal(bearer(API, { "idempotency-key": key })), key).toBe("400 1-255 visible ASCII characters");
    expect(await sender(bearer(API, { "idempotency-key": "k".repeat(255) }))).toMatchObject({ key: "k".repeat(255) });
  });
});

describe("each refusal", () => {
  const title = async (r: Req) => {
    const out = await send(r);
    if (out.ok) throw new Error("let through");
    return `${out.response.status} ${((await out.response.json()) as { title: string }).title}`;
  };

  it("is a problem with its title", async () => {
    expect(await title({ headers: { authorization: "Bearer nope" } })).toBe("401 Unauthorized");
    expect(await title({ headers: { authorization: `Bearer ${READ_ONLY_KEY}` } })).toBe("403 Forbidden");
    expect(await title({ headers: { authorization: `Bearer ${API}`, "idempotency-key": "a b" } })).toBe(
      "400 Invalid Idempotency-Key",
    );
  });
});

describe("a webhook's timestamp", () => {
  const old = String(Math.floor(Date.now() / 1000) - 600);

  it("is refused ten minutes old under a five-minute tolerance, and taken under a fifteen-minute one", async () => {
    const headers = {
      "x-webhook-timestamp": old,
      "x-webhook-signature": await signHmacWebhook("ci-secret", old, BODY),
    };
    expect(await refusal({ headers })).toBe("401 X-Webhook-Signature: timestamp outside the 300s tolerance [Bearer]");
    expect(await sender({ headers }, config({ WEBHOOK_TOLERANCE_SECONDS: 900 }))).toMatchObject({ id: "webhook:ci" });
    const standard = {
      "webhook-id": "msg_old",
      "webhook-timestamp": old,
      "webhook-signature": await signStandardWebhook("ci-secret", "msg_old", old, BODY),
    };
    expect(await refusal({ headers: standard })).toBe(
      "401 webhook-signature: timestamp outside the 300s tolerance [Bearer]",
    );
  });
});

describe("an HMAC-signed webhook", () => {
  it("sends as the secret's sender, keyed by its signature when it names no key", async () => {
    const headers = await hmacHeaders("alerts-secret");
    const signature = headers["x-webhook-signature"];
    expect(await sender({ headers })).toEqual({ id: "webhook:alerts", method: "hmac", key: `sig:${signature}` });
    const upper = { ...headers, "x-webhook-signature": ` ${signature.toUpperCase().replace("SHA256=", "sha256=")} ` };
    expect(await sender({ headers: upper })).toMatchObject({ key: `sig:${signature}` });
    expect(await sender({ headers: { ...headers, "idempotency-key": "k1" } })).toMatchObject({ key: "k1" });
  });

  it("is judged by its signature even with a bearer token beside it", async () => {
    const headers = { ...(await hmacHeaders("ci-secret", "{}")), authorization: `Bearer ${API}` };
    expect(await refusal({ headers })).toBe("401 X-Webhook-Signature: signature does not match [Bearer]");
    expect(await sender({ headers: { ...(await hmacHeaders("ci-secret")), authorization: "Bearer nope" } })).toEqual(
      expect.objectContaining({ id: "webhook:ci", method: "hmac" }),
    );
  });

  it("is refused when webhooks have no secret or the scheme is not enabled", async () => {
    const headers = await hmacHeaders("ci-secret");
    expect(await refusal({ headers }, config({ WEBHOOK_SECRETS: [] }))).toBe("503 missing WEBHOOK_SECRETS");
    expect(await refusal({ headers }, config({ MESSAGE_AUTH: new Set(["bearer", "standard"]) }))).toBe(
      "401 authentication by 'hmac' is not enabled here (MESSAGE_AUTH) [Bearer]",
    );
  });

  it("reaches only the devices WEBHOOK_SCOPES binds its sender to, and may send messages only", async () => {
    const cfg = config({ WEBHOOK_SCOPES: { ci: { agents: ["pi-1"], pools: [] } } });
    const out = await send({ headers: await hmacHeaders("ci-secret") }, cfg);
    expect(out.ok && out.sender.principal).toEqual(
      scopedPrincipal("webhook:ci", { agents: ["pi-1"], pools: [], scopes: ["messages"] }, cfg.POOLS),
    );
    const other = await send({ headers: await hmacHeaders("alerts-secret") }, cfg);
    expect(other.ok && other.sender.principal).toEqual(unscoped("webhook:alerts"));
  });
});

describe("a Standard Webhooks message", () => {
  it("sends as the secret's sender, keyed by its webhook-id", async () => {
    expect(await sender({ headers: await standardHeaders("ci-secret", "msg_42") })).toEqual({
      id: "webhook:ci",
      method: "standard",
      key: "msg_42",
    });
  });

  it("is judged by the Standard signature when it carries both schemes' headers", async () => {
    const headers = { ...(await standardHeaders("alerts-secret")), ...(await hmacHeaders("nope")) };
    expect(await sender({ headers })).toMatchObject({ id: "webhook:alerts", method: "standard" });
  });

  it("is refused with a webhook-id that cannot be a key, or a signature that does not match", async () => {
    for (const id of ["a b", "k".repeat(256)])
      expect(await refusal({ headers: await standardHeaders("ci-secret", id) }), id).toBe(
        "401 webhook-id: 1-255 visible ASCII characters [Bearer]",
      );
    const headers = await standardHeaders("ci-secret", "msg_1", "{}");
    expect(await refusal({ headers })).toBe("401 webhook-signature: signature does not match [Bearer]");
    expect(await refusal({ headers: { ...headers, "webhook-id": undefined as never } })).toMatch(
      /^401 webhook-signature: /,
    );
  });
});

describe("the dashboard's session", () => {
  const session = () => signSession(ADMIN, Date.now() + SESSION_TTL_MS - 1000);

  it("sends as the admin token does, with the CSRF header", async () => {
    const out = await send({ session: await session(), headers: { "x-edgeloop-csrf": "1", "idempotency-key": "d1" } });
    expect(out.ok && out.sender).toEqual({
      principal: unscoped("admin", true),
      method: "bearer",
      idempotencyKey: "d1",
    });
  });

  it("is refused without the CSRF header, expired, or when bearer authentication is off", async () => {
    expect(await refusal({ session: await session() })).toBe(
      "403 cookie-authenticated requests that change state need the header X-Edgeloop-CSRF: 1",
    );
    const expired = await signSession(ADMIN, Date.now() - 1000);
    expect(await refusal({ session: expired, headers: { "x-edgeloop-csrf": "1" } })).toBe(
      "401 the session has expired; log in again",
    );
    expect(
      await refusal(
        { session: await session(), headers: { "x-edgeloop-csrf": "1" } },
        config({ MESSAGE_AUTH: new Set(["hmac"]) }),
      ),
    ).toBe(
      "401 the dashboard session stands for the admin token, and bearer authentication is not enabled here (MESSAGE_AUTH) [Bearer]",
    );
  });

  it("never helps a request that sends a header of its own", async () => {
    expect(
      await refusal({ session: await session(), headers: { authorization: "Bearer nope", "x-edgeloop-csrf": "1" } }),
    ).toBe("401 invalid token [Bearer]");
  });

  it("is checked for its Idempotency-Key too", async () => {
    expect(
      await refusal({ session: await session(), headers: { "x-edgeloop-csrf": "1", "idempotency-key": "a b" } }),
    ).toBe("400 1-255 visible ASCII characters");
  });
});
