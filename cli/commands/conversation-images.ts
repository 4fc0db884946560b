import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { ImageRef } from "@edgeloop/protocol";
import type { ApiClient } from "../api-client.js";

const EXTENSIONS: Record<string, string> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/gif": "gif",
  "image/webp": "webp",
};

/**
 * `conversations <id> --images <dir>`: each image the conversation holds, fetched from its `url`
 * with the CLI's token and written to `<dir>/<sha256>.<ext>` (docs/images.md). The name is the
 * content's hash, so saving again rewrites the same files. Returns each image's path by hash.
 */
export async function saveImages(
  client: ApiClient,
  refs: readonly ImageRef[],
  dir: string,
): Promise<Map<string, string>> {
  const paths = new Map<string, string>();
  if (refs.length === 0) return paths;
  mkdirSync(dir, { recursive: true });
  for (const ref of refs) {
    if (paths.has(ref.sha256)) continue;
    const res = await client.fetch(ref.url, { auth: "api", headers: { accept: ref.media_type } });
    if (!res.ok) throw client.problem(res.status, await res.json().catch(() => undefined));
    const path = resolve(join(dir, `${ref.sha256}.${EXTENSIONS[ref.media_type] ?? "bin"}`));
    writeFileSync(path, Buffer.from(await res.arrayBuffer()));
    paths.set(ref.sha256, path);
  }
  return paths;
}

/** How a shown message names one of its images: where it was saved, or where to fetch it. */
export function imageLine(ref: ImageRef, saved: ReadonlyMap<string, string>): string {
  const size = ref.width && ref.height ? ` ${ref.width}x${ref.height}` : "";
  return `[image ${ref.media_type}${size}, ${ref.bytes} bytes: ${saved.get(ref.sha256) ?? ref.url}]`;
}
