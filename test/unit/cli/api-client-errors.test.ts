// How the CLI words a refusal: a valid token on an admin route names the admin token and the
// setting that carries it; other refusals keep the server's words.
import { describe, expect, it } from "vitest";
import { ApiClient } from "../../../cli/api-client.js";
import { EXIT } from "../../../cli/exit-codes.js";
import type { Settings } from "../../../cli/settings.js";

const client = new ApiClient({ url: "http://127.0.0.1:1" } as Settings);

describe("ApiClient.problem", () => {
  it("on a 403 that needs the admin token, prints the server's detail and says to set EDGELOOP_ADMIN_TOKEN", () => {
    const err = client.problem(403, {
      title: "Admin token required",
      detail: "this endpoint needs the admin token (ADMIN_TOKEN); the API token is not enough",
      status: 403,
    });
    expect(err.message).toContain("403 Admin token required: this endpoint needs the admin token (ADMIN_TOKEN)");
    expect(err.message).toContain("set EDGELOOP_ADMIN_TOKEN");
    expect(err.exitCode).toBe(EXIT.auth);
  });

  it("leaves an invalid token's 401 and other 403s without the admin hint", () => {
    const invalid = client.problem(401, { title: "Unauthorized", detail: "invalid token", status: 401 });
    expect(invalid.message).toBe("401 Unauthorized: invalid token");
    const scope = client.problem(403, { title: "Forbidden", detail: "this key does not have the scope 'x'" });
    expect(scope.message).not.toContain("EDGELOOP_ADMIN_TOKEN");
  });
});
