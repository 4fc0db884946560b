#!/usr/bin/env node
// The installed package runs the bundle made when it was packed (dist/, built by
// scripts/bundle-package.ts): Node alone, no compiler, no bundling at start. In the repository,
// where the source is, the source runs through tsx (a devDependency there) instead.
import { existsSync, readFileSync } from "node:fs";

if (process.argv[2] === "--version") {
  process.stdout.write(`${JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).version}\n`);
  process.exit(0);
}
const source = new URL("../main.ts", import.meta.url);
if (existsSync(source)) {
  const { register } = await import("tsx/esm/api");
  register();
  await import(source.href);
} else {
  await import("../dist/edgeloop.mjs");
}
