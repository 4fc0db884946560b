/**
 * Pairing's bodies as the API reads them from a device that has no token yet (`POST /v1/pairing`) and
 * from an admin (`…/approve`), and its answers as the agent, the bridge and the CLI read them.
 */

import {
  PAIRING_KINDS,
  PairingApproveBody,
  PairingClaim,
  PairingCode,
  PairingList,
  PairingOpened,
  PairingRequestBody,
  PairingView,
} from "@edgeloop/protocol/pairing";
import { describe, expect, it } from "vitest";
import { openApiDocument } from "../../../worker/openapi/openapi-document.js";

const ok = (schema: { safeParse: (v: unknown) => { success: boolean } }, value: unknown) =>
  schema.safeParse(value).success;

describe("a pairing request", () => {
  it("is from an agent unless it says it is a bridged device or an OpenClaw node", () => {
    expect(PairingRequestBody.parse({ agent_id: "pi-1" })).toEqual({ agent_id: "pi-1", kind: "agent" });
    expect(PAIRING_KINDS).toEqual(["agent", "bridge-device", "openclaw"]);
    for (const kind of PAIRING_KINDS) expect(PairingRequestBody.parse({ agent_id: "pi-1", kind }).kind).toBe(kind);
    expect(ok(PairingRequestBody, { agent_id: "pi-1", kind: "admin" })).toBe(false);
  });

  it("takes a label of up to 200 characters and a public key of 1 to 512", () => {
    const full = { agent_id: "pi-1", kind: "openclaw", label: "l".repeat(200), public_key: "k".repeat(512) };
    expect(PairingRequestBody.parse(full)).toEqual(full);
    expect(ok(PairingRequestBody, { agent_id: "pi-1", label: "l".repeat(201) })).toBe(false);
    expect(ok(PairingRequestBody, { agent_id: "pi-1", public_key: "k" })).toBe(true);
    expect(ok(PairingRequestBody, { agent_id: "pi-1", public_key: "" })).toBe(false);
    expect(ok(PairingRequestBody, { agent_id: "pi-1", public_key: "k".repeat(513) })).toBe(false);
  });

  it("refuses an id that is not one, and any other field", () => {
    expect(ok(PairingRequestBody, { agent_id: "pi 1" })).toBe(false);
    expect(ok(PairingRequestBody, { agent_id: "pi-1", token: "edl_x" })).toBe(false);
  });
});

describe("an admin's approval", () => {
  it("may name another device id, and nothing else", () => {
    expect(PairingApproveBody.parse({})).toEqual({});
    expect(PairingApproveBody.parse({ agent_id: "pi-2" })).toEqual({ agent_id: "pi-2" });
    expect(ok(PairingApproveBody, { agent_id: "pi 2" })).toBe(false);
    expect(ok(PairingApproveBody, { agent_id: "pi-2", kind: "agent" })).toBe(false);
  });

  it("names the code as people type it", () => {
    expect(PairingCode.parse("abcd 2345")).toBe("ABCD-2345");
    expect(PairingCode.safeParse("ABCD-I345").error?.issues.map((i) => i.code)).toEqual(["custom"]);
  });
});

describe("pairing's answers", () => {
  it("open with the code, the secret to collect with, and when to ask again", () => {
    const opened = { code: "ABCD-2345", claim_secret: "s", expires_at: 1, poll_after_ms: 2000 };
    expect(PairingOpened.parse(opened)).toEqual(opened);
    expect(ok(PairingOpened, { ...opened, poll_after_ms: 0 })).toBe(false);
    expect(ok(PairingOpened, { ...opened, claim_secret: undefined })).toBe(false);
  });

  it("answer a claim as pending, denied or approved with the token", () => {
    const pending = { status: "pending", expires_at: 1, poll_after_ms: 2000 };
    const approved = { status: "approved", agent_id: "pi-1", token_id: "t1", token: "edl_x" };
    expect(PairingClaim.parse(pending)).toEqual(pending);
    expect(PairingClaim.parse({ status: "denied" })).toEqual({ status: "denied" });
    expect(PairingClaim.parse(approved)).toEqual(approved);
    expect(ok(PairingClaim, { ...pending, poll_after_ms: 0 })).toBe(false);
    expect(ok(PairingClaim, { ...approved, token: undefined })).toBe(false);
    expect(ok(PairingClaim, { status: "claimed" })).toBe(false);
  });

  it("list each request whole, with one of four states", () => {
    const view = {
      code: "ABCD-2345",
      agent_id: "pi-1",
      kind: "agent",
      label: null,
      public_key: null,
      created_at: 1,
      expires_at: 2,
      status: "pending",
      decided_by: null,
      decided_at: null,
      token_id: null,
      known_device: true,
    };
    for (const status of ["pending", "approved", "denied", "claimed"])
      expect(PairingView.parse({ ...view, status })).toEqual({ ...view, status });
    expect(ok(PairingView, { ...view, status: "expired" })).toBe(false);
    expect(ok(PairingView, { ...view, kind: "admin" })).toBe(false);
    expect(PairingList.parse({ pending: [view] })).toEqual({ pending: [view] });
    expect(ok(PairingList, { pending: [{ ...view, code: 1 }] })).toBe(false);
  });
});

describe("the API document", () => {
  /** A field of an operation's answer, as the served OpenAPI document describes it. */
  const answerField = (path: string, status: string, field: string) => {
    const doc = openApiDocument() as {
      paths: Record<string, { post: { responses: Record<string, { content: Record<string, { schema: unknown }> }> } }>;
    };
    const schema = doc.paths[path]!.post.responses[status]!.content["application/json"]!.schema as {
      properties?: Record<string, { description?: string }>;
      oneOf?: { properties: Record<string, { description?: string }> }[];
      anyOf?: { properties: Record<string, { description?: string }> }[];
    };
    const options = [schema, ...(schema.oneOf ?? []), ...(schema.anyOf ?? [])];
    return options.map((o) => o.properties?.[field]?.description).find((d) => d !== undefined);
  };

  it("tells the device its claim secret and its token are shown once", () => {
    expect(answerField("/v1/pairing", "201", "claim_secret")).toBe(
      "Send as `Authorization: Bearer …` to `POST /v1/pairing/claim`; shown once, never to the admin",
    );
    expect(answerField("/v1/pairing/claim", "200", "token")).toBe("The device's own token, in this answer only");
  });

  it("tells the admin when approving gives an existing device a new token", () => {
    const doc = JSON.stringify(openApiDocument());
    expect(doc).toContain(
      JSON.stringify("The id already has a device: approving gives the requester a token for that device"),
    );
  });
});
