import { describe, expect, it } from "vitest";
import {
  cacheSeconds,
  clientFromDocument,
  clientIdUrlProblem,
  isMetadataDocumentUrl,
  MAX_CACHE_S,
} from "../../../worker/oauth/client-metadata-document.js";

const URL_ID = "https://app.example/oauth/client.json";
const doc = (fields: Record<string, unknown> = {}) =>
  JSON.stringify({
    client_id: URL_ID,
    client_name: "Example App",
    redirect_uris: ["https://app.example/callback"],
    ...fields,
  });
const NOW = 1_700_000_000_000;

describe("client ID metadata document URLs", () => {
  it("takes an https URL with a path as a document's URL, and nothing else", () => {
    expect(isMetadataDocumentUrl(URL_ID)).toBe(true);
    for (const id of ["a1b2c3d4e5f6a7b8", "https://app.example/", "https://app.example", "http://app.example/c.json"])
      expect(isMetadataDocumentUrl(id)).toBe(false);
  });

  it("refuses the spellings the draft forbids, and any the URL parser would rewrite", () => {
    expect(clientIdUrlProblem(URL_ID)).toBeNull();
    expect(clientIdUrlProblem("https://app.example/c.json?v=2")).toBeNull();
    expect(clientIdUrlProblem("http://app.example/c.json")).toMatch(/https/);
    expect(clientIdUrlProblem("https://app.example/")).toMatch(/path/);
    expect(clientIdUrlProblem("https://user:pw@app.example/c.json")).toMatch(/user or password/);
    expect(clientIdUrlProblem("https://app.example/c.json#x")).toMatch(/fragment/);
    expect(clientIdUrlProblem(`https://app.example/${"a".repeat(400)}`)).toMatch(/longer than 400/);
    for (const id of [
      "https://app.example/a/../c.json",
      "https://app.example/a/%2e%2e/c.json",
      "https://app.example/./c.json",
      "https://APP.example/c.json",
      "https://app.example:443/c.json",
      "https://app.example/a\\c.json",
    ])
      expect(clientIdUrlProblem(id), id).toMatch(/must be written as/);
  });
});

describe("a client from its metadata document", () => {
  it("describes a public client with the document's name and redirect URIs", () => {
    const checked = clientFromDocument(
      URL_ID,
      doc({
        redirect_uris: ["https://app.example/callback", "http://127.0.0.1:33418/cb", "cursor://app/cb"],
        grant_types: ["authorization_code", "refresh_token"],
        client_uri: "https://app.example",
        logo_uri: "https://app.example/logo.png",
        software_id: "anything else is allowed",
      }),
      NOW,
    );
    expect(checked).toEqual({
      ok: true,
      client: {
        clientId: URL_ID,
        clientName: "Example App",
        // A scheme a code is never sent to is left out.
        redirectUris: ["https://app.example/callback", "http://127.0.0.1:33418/cb"],
        clientUri: "https://app.example",
        grantTypes: ["authorization_code", "refresh_token"],
        responseTypes: ["code"],
        tokenEndpointAuthMethod: "none",
        registrationDate: NOW / 1000,
      },
    });
  });

  it("without grant_types, the client may exchange codes but not refresh (RFC 7591's default)", () => {
    const checked = clientFromDocument(URL_ID, doc(), NOW);
    expect(checked.ok && checked.client.grantTypes).toEqual(["authorization_code"]);
  });

  it("refuses a document that names another URL, by simple string comparison", () => {
    for (const other of [
      "https://evil.example/oauth/client.json",
      `${URL_ID}?`,
      "https://APP.example/oauth/client.json",
    ])
      expect(clientFromDocument(URL_ID, doc({ client_id: other }), NOW)).toEqual({
        ok: false,
        reason: `the document's client_id is ${other}, not the URL it was fetched from`,
      });
  });

  it("refuses what a metadata document must not be or hold", () => {
    const reason = (body: string) => {
      const checked = clientFromDocument(URL_ID, body, NOW);
      return checked.ok ? "accepted" : checked.reason;
    };
    expect(reason("not json")).toBe("the document is not JSON");
    expect(reason("[1]")).toBe("the document is not a JSON object");
    expect(reason(doc({ client_name: "  " }))).toBe("client_name: client_name must not be empty");
    expect(reason(doc({ client_name: undefined }))).toMatch(/^client_name: /);
    expect(reason(doc({ redirect_uris: [] }))).toBe("redirect_uris: redirect_uris must not be empty");
    expect(reason(doc({ redirect_uris: ["http://app.example/cb", "https://app.example/cb#f"] }))).toMatch(
      /no redirect_uri is https or http on localhost/,
    );
    expect(reason(doc({ client_secret: "s" }))).toMatch(/must not contain a client_secret/);
    expect(reason(doc({ token_endpoint_auth_method: "client_secret_basic" }))).toMatch(/needs a shared secret/);
    expect(reason(doc({ token_endpoint_auth_method: "private_key_jwt" }))).toMatch(/public clients only/);
    expect(reason(doc({ response_types: ["token"] }))).toBe("response_types must include code");
    expect(reason(doc({ grant_types: ["client_credentials"] }))).toBe("grant_types must include authorization_code");
  });

  it("takes an app that offers none beside private_key_jwt, as a public client", () => {
    const checked = clientFromDocument(
      URL_ID,
      doc({
        token_endpoint_auth_method: "private_key_jwt",
        token_endpoint_auth_methods_supported: ["private_key_jwt", "none"],
      }),
      NOW,
    );
    expect(checked.ok && checked.client.tokenEndpointAuthMethod).toBe("none");
  });

  it("refuses a client_id URL against the rules before reading the document", () => {
    const id = "https://app.example/a/../c.json";
    expect(clientFromDocument(id, doc({ client_id: id }), NOW)).toMatchObject({ ok: false });
  });
});

describe("how long a document is trusted", () => {
  it("follows its Cache-Control within a minute and a day", () => {
    expect(cacheSeconds("public, max-age=600")).toBe(600);
    expect(cacheSeconds("max-age=60, s-maxage=3600")).toBe(3600);
    expect(cacheSeconds("max-age=999999999")).toBe(MAX_CACHE_S);
    expect(cacheSeconds("max-age=30")).toBe(0);
    expect(cacheSeconds("no-store, max-age=600")).toBe(0);
    expect(cacheSeconds("private, max-age=600")).toBe(0);
    expect(cacheSeconds("public")).toBe(0);
    expect(cacheSeconds(null)).toBe(0);
  });
});
