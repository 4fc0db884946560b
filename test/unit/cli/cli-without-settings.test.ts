// A new user's first CLI line, with nothing set: the error says which setting is missing and how
// to set it, and a refused connection to the assumed local worker says it was assumed.
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { ApiClient } from "../../../cli/api-client.js";
import { resolveSettings } from "../../../cli/settings.js";

const nothingSet = () => resolveSettings({ flags: {}, env: { HOME: "/nonexistent" } });

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

describe("the CLI with nothing set", () => {
  it("an admin command names the admin token and the URL, and how to set each", async () => {
    const err = await new ApiClient(nothingSet()).fetch("/v1/pairing", { auth: "admin" }).catch((e: Error) => e);
    expect((err as Error).message).toContain("no admin token is set: export EDGELOOP_ADMIN_TOKEN=");
    expect((err as Error).message).toContain("EDGELOOP_URL is not set either");
  });

  it("a refused connection to the assumed local worker says so, and how to point it elsewhere", async () => {
    const settings = { ...nothingSet(), url: `http://127.0.0.1:${await closedPort()}`, adminToken: "t" };
    const err = await new ApiClient(settings).fetch("/v1/devices", { auth: "admin" }).catch((e: Error) => e);
    expect((err as Error).message).toMatch(/cannot reach .*ECONNREFUSED \(no EDGELOOP_URL is set/);
    expect((err as Error).message).toContain("export EDGELOOP_URL=");
  });

  it("a URL that was given gets no such hint", async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const settings = resolveSettings({ flags: { url, "admin-token": "t" }, env: { HOME: "/nonexistent" } });
    const err = await new ApiClient(settings).fetch("/v1/devices", { auth: "admin" }).catch((e: Error) => e);
    expect((err as Error).message).toBe(`cannot reach ${url}: ECONNREFUSED`);
  });
});
