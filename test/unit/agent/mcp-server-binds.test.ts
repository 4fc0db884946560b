import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { serverReadOnlyPaths } from "../../../device-agent/src/mcp/server-binds.js";
import { tempDir } from "./helpers.js";

function file(path: string): string {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, "");
  return path;
}

describe("what a sandboxed MCP server is shown read-only", () => {
  it("a package inside node_modules: the outermost node_modules, where its dependencies are found", () => {
    const root = realpathSync(tempDir());
    const entry = file(join(root, "proj/node_modules/@x/server/node_modules/dep/index.js"));
    expect(serverReadOnlyPaths(["node", entry], "/nowhere")).toEqual([join(root, "proj/node_modules")]);
  });

  it("a script outside node_modules: its folder and the nearest node_modules above it", () => {
    const root = realpathSync(tempDir());
    mkdirSync(join(root, "node_modules"));
    const script = file(join(root, "tools/server.mjs"));
    expect(serverReadOnlyPaths(["node", script, "--flag"], "/nowhere")).toEqual([
      join(root, "tools"),
      join(root, "node_modules"),
    ]);
  });

  it("nothing for relative names, missing paths or the workspace (bound writable already)", () => {
    const ws = realpathSync(tempDir());
    expect(serverReadOnlyPaths(["npx", "-y", "pkg", join(ws, "data"), ws, "/no/such/file"], ws)).toEqual([]);
  });
});
