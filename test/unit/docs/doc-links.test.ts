import { existsSync, readdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { brokenLinks, headingSlugs, markdownLinks, resolvePath } from "../../../scripts/docs/markdown-links.js";

const root = resolve(import.meta.dirname, "../../..");

function pages(): Record<string, string> {
  const paths = ["README.md", "CONTRIBUTING.md", ...readdirSync(resolve(root, "docs")).map((f) => `docs/${f}`)];
  return Object.fromEntries(
    paths.filter((p) => p.endsWith(".md")).map((p) => [p, readFileSync(resolve(root, p), "utf8")]),
  );
}

describe("links between the docs", () => {
  it("resolve to files and headings that exist", () => {
    expect(brokenLinks(pages(), (p) => existsSync(resolve(root, p)))).toEqual([]);
  });

  it("reach every docs page from the README", () => {
    const all = pages();
    const linked = new Set(markdownLinks(all["README.md"]!).map((l) => resolvePath("README.md", l.split("#")[0]!)));
    expect(Object.keys(all).filter((p) => p.startsWith("docs/") && !linked.has(p))).toEqual([]);
  });

  it("reports a missing file and a missing heading", () => {
    const docs = { "docs/a.md": "# A\n\n## Two words\n\n[x](b.md) [y](#two-words) [z](#three)\n" };
    expect(brokenLinks(docs, () => false).map((b) => b.reason)).toEqual([
      "no file docs/b.md",
      "no heading #three in docs/a.md",
    ]);
  });

  it("slugs headings as GitHub does, ignoring code blocks", () => {
    const slugs = headingSlugs("# The CLI: `edgeloop`\n```\n# not a heading\n```\n## Two\n## Two\n");
    expect([...slugs]).toEqual(["the-cli-edgeloop", "two", "two-1"]);
    expect(resolvePath("docs/a.md", "../bench/x.md")).toBe("bench/x.md");
  });
});
