// Run before `npm start`, `npm run dev`, `npm test` and `npm run bench` (their pre-scripts), in
// plain JavaScript so that it runs on any Node: on a Node older than the engines line it prints one
// line that says what to install, instead of a stack trace from deep inside wrangler.
import { readFileSync } from "node:fs";

const engines = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).engines.node;
const [needMajor, needMinor] = /^>=(\d+)\.(\d+)$/.exec(engines).slice(1).map(Number);
const [major, minor] = process.versions.node.split(".").map(Number);
if (major < needMajor || (major === needMajor && minor < needMinor)) {
  console.error(
    `edgeloop needs Node ${needMajor}.${needMinor} or later to develop (this is Node ${process.versions.node}): ` +
      "install Node 24 (.node-version), or on Linux x64 run `. scripts/node-on-path.sh` first; " +
      "the device agent, bridge and CLI still run on Node 20.",
  );
  process.exit(1);
}
