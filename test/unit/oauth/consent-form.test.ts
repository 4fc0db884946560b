import { KEY_SCOPES } from "@edgeloop/protocol/api-keys";
import { describe, expect, it } from "vitest";
import { safeNext } from "../../../worker/dashboard/login-page.js";
import { ConsentForm, grantFromForm, keyNameFor } from "../../../worker/oauth/consent-form.js";
import { bearerChallenge, resourceMetadata } from "../../../worker/oauth/oauth-names.js";

const POOLS = new Set(["kitchen"]);

describe("the consent form", () => {
  it("reads repeated fields as lists and a single one as a list of one", () => {
    const form = ConsentForm.parse({ handle: "h", decision: "approve", agents: "pi-1", scopes: ["mcp", "tools"] });
    expect(form).toEqual({ handle: "h", decision: "approve", agents: ["pi-1"], pools: [], scopes: ["mcp", "tools"] });
    expect(ConsentForm.safeParse({ handle: "h", decision: "maybe" }).success).toBe(false);
    expect(ConsentForm.safeParse({ decision: "approve" }).success).toBe(false);
  });

  it("grants exactly what a scoped key would: devices, pools and scopes, deduplicated", () => {
    const grant = grantFromForm(
      { agents: ["pi-1", "pi-2", "pi-1"], pools: ["kitchen"], scopes: ["mcp", "tools", "mcp"] },
      POOLS,
    );
    expect(grant).toEqual({
      ok: true,
      grant: { agents: ["pi-1", "pi-2"], pools: ["kitchen"], scopes: ["mcp", "tools"] },
    });
  });

  it("takes every device as `*`", () => {
    expect(grantFromForm({ agents: ["*"], pools: [], scopes: [...KEY_SCOPES] }, POOLS)).toMatchObject({
      ok: true,
      grant: { agents: ["*"] },
    });
  });

  it("refuses a grant that reaches nothing, lacks the mcp scope, or names what does not exist", () => {
    expect(grantFromForm({ agents: [], pools: [], scopes: ["mcp"] }, POOLS)).toEqual({
      ok: false,
      errors: ["choose at least one device or pool"],
    });
    expect(grantFromForm({ agents: ["pi-1"], pools: [], scopes: ["tools"] }, POOLS)).toEqual({
      ok: false,
      errors: ["the scope 'mcp' is needed to use /mcp at all"],
    });
    const bad = grantFromForm({ agents: ["pi 1"], pools: ["garage"], scopes: ["mcp", "root"] }, POOLS);
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.errors).toEqual(expect.arrayContaining(["no pool 'garage'", "no scope 'root'"]));
    expect(!bad.ok && bad.errors.some((e) => e.includes("letters, digits"))).toBe(true);
  });

  it("names the key after the client, within what a key name may hold", () => {
    expect(keyNameFor("Claude")).toBe("mcp: Claude");
    expect(keyNameFor('<script>alert("x")</script>')).toBe("mcp: script alert x /script");
    expect(keyNameFor("   ")).toBe("mcp: client");
    expect(keyNameFor("x".repeat(200))).toHaveLength(64);
  });
});

describe("after logging in", () => {
  it("goes back to the consent page and nowhere else", () => {
    expect(safeNext("/oauth/authorize?client_id=a&state=b")).toBe("/oauth/authorize?client_id=a&state=b");
    expect(safeNext("https://evil.example/oauth/authorize?x")).toBe("/");
    expect(safeNext("//evil.example/oauth/authorize?x")).toBe("/");
    expect(safeNext("/oauth/authorize?\\\\evil.example")).toBe("/");
    expect(safeNext("/v1/keys")).toBe("/");
    expect(safeNext(undefined)).toBe("/");
  });
});

describe("the resource's discovery", () => {
  it("points a 401 at the metadata, which names this origin as the authorization server", () => {
    expect(bearerChallenge("https://fleet.example")).toBe(
      'Bearer resource_metadata="https://fleet.example/.well-known/oauth-protected-resource/mcp", scope="mcp"',
    );
    expect(bearerChallenge("https://fleet.example", "invalid_token")).toContain('error="invalid_token"');
    expect(resourceMetadata("https://fleet.example")).toMatchObject({
      resource: "https://fleet.example/mcp",
      authorization_servers: ["https://fleet.example"],
      scopes_supported: ["mcp"],
    });
  });
});
