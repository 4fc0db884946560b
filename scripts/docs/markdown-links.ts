/**
 * Relative links in Markdown pages and whether they resolve: the file exists and, with a
 * `#fragment`, the target page has a heading of that slug (GitHub's rule). Pure: pages in, broken
 * links out; links to the web are not followed.
 */

export type BrokenLink = { page: string; link: string; reason: string };

const FENCE = /^\s*(```|~~~)/;

/** GitHub's heading anchor: lowercase, punctuation dropped, spaces to dashes; repeats get -1, -2 … */
export function headingSlugs(markdown: string): Set<string> {
  const slugs = new Set<string>();
  const seen = new Map<string, number>();
  let inFence = false;
  for (const line of markdown.split("\n")) {
    if (FENCE.test(line)) inFence = !inFence;
    const m = !inFence && line.match(/^#{1,6}\s+(.*?)\s*#*\s*$/);
    if (!m) continue;
    const base = m[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}_\- ]/gu, "")
      .replace(/ /g, "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    slugs.add(n === 0 ? base : `${base}-${n}`);
  }
  return slugs;
}

/** `[text](target)` links outside code fences and code spans. */
export function markdownLinks(markdown: string): string[] {
  const links: string[] = [];
  let inFence = false;
  for (const line of markdown.split("\n")) {
    if (FENCE.test(line)) inFence = !inFence;
    if (inFence) continue;
    const prose = line.replace(/`[^`]*`/g, "");
    for (const m of prose.matchAll(/\]\(([^)\s]+)\)/g)) links.push(m[1]!);
  }
  return links;
}

function dirname(path: string): string {
  const i = path.lastIndexOf("/");
  return i < 0 ? "" : path.slice(0, i);
}

/** `docs/a.md` + `../bench/x.md` → `bench/x.md` */
export function resolvePath(from: string, target: string): string {
  const parts = dirname(from).split("/").filter(Boolean);
  for (const segment of target.split("/")) {
    if (segment === "..") parts.pop();
    else if (segment !== "." && segment !== "") parts.push(segment);
  }
  return parts.join("/");
}

/**
 * `pages`: the Markdown pages to check and to resolve anchors in, by repository path.
 * `exists`: whether any other repository path (a source file, a folder) exists.
 */
export function brokenLinks(pages: Record<string, string>, exists: (path: string) => boolean): BrokenLink[] {
  const broken: BrokenLink[] = [];
  for (const [page, text] of Object.entries(pages)) {
    for (const link of markdownLinks(text)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue;
      const [file, fragment] = link.split("#", 2) as [string, string | undefined];
      const target = file === "" ? page : resolvePath(page, file);
      if (target !== page && !(target in pages) && !exists(target)) {
        broken.push({ page, link, reason: `no file ${target}` });
        continue;
      }
      if (fragment === undefined || !target.endsWith(".md")) continue;
      const targetText = pages[target];
      if (targetText !== undefined && !headingSlugs(targetText).has(fragment))
        broken.push({ page, link, reason: `no heading #${fragment} in ${target}` });
    }
  }
  return broken;
}
