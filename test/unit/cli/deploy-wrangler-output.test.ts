// What `edgeloop deploy` reads from wrangler 4's output (cli/commands/deploy-wrangler-output.ts),
// in the shapes wrangler prints beyond the ones the stand-in wrangler of the e2e test speaks.
import { describe, expect, it } from "vitest";
import { readDeployedUrl, readLogin, readSecretNames } from "../../../cli/commands/deploy-wrangler-output.js";

const run = (stdout: string, code = 0, stderr = "") => ({ code, stdout, stderr });

describe("readLogin", () => {
  it("reads every way whoami says who is logged in, and when nobody is", () => {
    expect(readLogin(run("👋 You are logged in with an OAuth Token, associated with the email a@b.c.\n"))).toEqual({
      loggedIn: true,
      who: "a@b.c, OAuth Token",
    });
    const account = "👋 You are logged in with an Account API Token, associated with the account My Team.\n";
    expect(readLogin(run(account))).toEqual({ loggedIn: true, who: "My Team, Account API Token" });
    const noEmail = "👋 You are logged in with an User API Token. Unable to retrieve email for this user. Are you …?";
    expect(readLogin(run(noEmail))).toEqual({ loggedIn: true, who: "User API Token" });
    expect(readLogin(run("You are not authenticated. Please run `wrangler login`.\n"))).toEqual({ loggedIn: false });
    expect(readLogin(run('\n{"loggedIn":false}\n', 1))).toEqual({ loggedIn: false });
    expect(readLogin(run("", 1, "✘ [ERROR] fetch failed"))).toEqual({ unknown: "✘ [ERROR] fetch failed" });
  });
});

describe("readSecretNames", () => {
  it("reads the JSON list, takes a worker never deployed as having none, and reports anything else", () => {
    const listed = readSecretNames(run('[\n  {\n    "name": "API_TOKEN",\n    "type": "secret_text"\n  }\n]\n'));
    expect(listed).toEqual({ names: new Set(["API_TOKEN"]) });
    const missing = '✘ [ERROR] Worker "edgeloop" (env: workers-ai) not found.\n\n  If this is a new Worker, …';
    expect(readSecretNames(run("", 1, missing))).toEqual({ noWorker: true });
    expect(readSecretNames(run("", 1, "✘ [ERROR] Authentication error [code: 10000]"))).toEqual({
      unreadable: "✘ [ERROR] Authentication error [code: 10000]",
    });
  });
});

describe("readDeployedUrl", () => {
  const deployed = (...targets: string[]) =>
    [
      "Uploaded edgeloop (3.10 sec)",
      "Deployed edgeloop triggers (0.80 sec)",
      ...targets.map((t) => `  ${t}`),
      "Current Version ID: 1234",
    ].join("\n");

  it("prefers a custom domain, then workers.dev, then a route's host", () => {
    const dev = "https://edgeloop.sub.workers.dev";
    expect(readDeployedUrl(deployed(dev))).toBe(dev);
    expect(readDeployedUrl(deployed(dev, "edge.example.com (custom domain)"))).toBe("https://edge.example.com");
    expect(readDeployedUrl(deployed("example.com/edge/* (zone name: example.com)"))).toBe("https://example.com");
    expect(readDeployedUrl(deployed("schedule: */5 * * * *"))).toBeNull();
  });

  it("finds nothing when nothing was deployed to an address", () => {
    expect(readDeployedUrl("Uploaded edgeloop (3.10 sec)\nNo deploy targets for edgeloop (0.20 sec)\n")).toBeNull();
  });
});
