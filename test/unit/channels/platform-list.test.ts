import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { CHANNEL_PLATFORMS } from "@edgeloop/protocol/channels";
import { describe, expect, it } from "vitest";
import { PLATFORMS } from "../../../durable-objects/channels/platforms/index.js";

/**
 * The platform seam (docs/channels.md#adding-a-platform): a platform is its folder, its name in
 * CHANNEL_PLATFORMS and one line in the registry. Everything else derives from those, which this
 * proves by reading the source: no other code names a platform.
 */
const root = resolve(import.meta.dirname, "../../..");
const PLATFORMS_DIR = "durable-objects/channels/platforms";
const LIST = "protocol/channels.ts";
const REGISTRY = `${PLATFORMS_DIR}/index.ts`;
const SIDES = [
  "protocol/",
  "runtime/",
  "worker/",
  "durable-objects/",
  "edge-client/",
  "device-agent/",
  "bridge/",
  "cli/",
];

const sourceFiles = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
  cwd: root,
  encoding: "utf8",
})
  .split("\0")
  .filter((p) => /\.(ts|js|mjs)$/.test(p) && SIDES.some((side) => p.startsWith(side)))
  .filter((p) => !p.includes("/dist/") && !p.includes("node_modules/") && existsSync(resolve(root, p)));

/**
 * A file read as code: its string literals (with their lines) and the code between them, comments
 * dropped. A small scanner, not a parser: good enough to find a name written as a string, a key or
 * a regex alternative.
 */
function scan(text: string): { strings: { value: string; line: number }[]; code: string[] } {
  const strings: { value: string; line: number }[] = [];
  const code: string[] = text.split("\n").map(() => "");
  let line = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "\n") line++;
    else if (c === "/" && text[i + 1] === "/") while (i + 1 < text.length && text[i + 1] !== "\n") i++;
    else if (c === "/" && text[i + 1] === "*") {
      const close = text.indexOf("*/", i + 2);
      const stop = close < 0 ? text.length : close + 1;
      line += text.slice(i, stop).split("\n").length - 1;
      i = stop;
    } else if (c === '"' || c === "'" || c === "`") {
      const from = line;
      let value = "";
      for (i++; i < text.length && text[i] !== c; i++) {
        if (text[i] === "\\") value += text[++i];
        else value += text[i];
        if (text[i] === "\n") line++;
      }
      strings.push({ value, line: from + 1 });
      code[from] += '""';
    } else code[line] += c;
  }
  return { strings, code };
}

/** Where a file's code (not its comments or prose) names a platform: a string, a key, a regex. */
function platformNamesIn(path: string): { name: string; line: number }[] {
  const { strings, code } = scan(readFileSync(resolve(root, path), "utf8"));
  const names = new Set<string>(CHANNEL_PLATFORMS);
  const found = strings.filter((s) => names.has(s.value)).map((s) => ({ name: s.value, line: s.line }));
  code.forEach((text, i) => {
    for (const name of names)
      if (new RegExp(`(^|[{,(\\s])${name}\\s*:|\\b${name}\\||\\|${name}\\b`).test(text))
        found.push({ name, line: i + 1 });
  });
  return found.sort((a, b) => a.line - b.line);
}

describe("the platform list", () => {
  it("is the registry's: every listed platform has its line, under its own name", () => {
    expect(Object.keys(PLATFORMS)).toEqual([...CHANNEL_PLATFORMS]);
    for (const [name, platform] of Object.entries(PLATFORMS)) expect(platform.name).toBe(name);
  });

  it("is named nowhere else in code: outside its folder, only the list and the registry name a platform", () => {
    expect(sourceFiles.length).toBeGreaterThan(100);
    const elsewhere = sourceFiles.flatMap((path) =>
      platformNamesIn(path)
        .filter(({ name }) => path !== LIST && path !== REGISTRY && !path.startsWith(`${PLATFORMS_DIR}/${name}/`))
        .map(({ name, line }) => `${path}:${line} names ${name}`),
    );
    expect(elsewhere).toEqual([]);
  });

  it("finds a platform named in code, so the check above can fail", () => {
    expect(platformNamesIn(REGISTRY).map((f) => f.name)).toEqual([...CHANNEL_PLATFORMS]);
    expect(platformNamesIn(LIST).map((f) => f.name)).toEqual([...CHANNEL_PLATFORMS]);
  });

  it("each platform's folder has the common layout", () => {
    const layout = ["client.ts", "format.ts", "inbound.ts", "index.ts", "settings.ts", "verify.ts"];
    for (const name of CHANNEL_PLATFORMS)
      expect(
        layout.filter((file) => !existsSync(resolve(root, PLATFORMS_DIR, name, file))),
        `${PLATFORMS_DIR}/${name}/`,
      ).toEqual([]);
  });
});
