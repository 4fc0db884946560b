import { describe, expect, it } from "vitest";
import { grantIdOfRedirect, grantRecordKey } from "../../../worker/oauth/grant-links.js";

describe("the link from a grant's key to its grant", () => {
  it("reads the grant's id from the code the app is sent back with", () => {
    const back = new URL("https://app.example/cb?state=s");
    back.searchParams.set("code", "admin:Gr4nt-id_1:s3cret");
    expect(grantIdOfRedirect(back.href)).toBe("Gr4nt-id_1");
  });

  it("finds none in anything else", () => {
    for (const redirect of [
      "https://app.example/cb?error=access_denied",
      "https://app.example/cb?code=opaque",
      "https://app.example/cb?code=someone:grant:secret",
      "https://app.example/cb?code=admin::secret",
      "https://app.example/cb?code=admin:a/b:secret",
      "https://app.example/cb?code=admin:grant:secret:extra",
      "not a url",
    ])
      expect(grantIdOfRedirect(redirect), redirect).toBeNull();
  });

  it("names the grant's record as the library keeps it", () => {
    expect(grantRecordKey("abc")).toBe("grant:admin:abc");
  });
});
