export async function waitUntil<T>(
  fn: () => Promise<T>,
  ok: (v: T) => boolean,
  opts: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
  let last: T | undefined;
  let lastError: unknown;
  for (;;) {
    try {
      last = await fn();
      if (ok(last)) return last;
    } catch (e) {
      lastError = e;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out waiting for ${opts.what ?? "condition"}; last: ${JSON.stringify(last) ?? String(lastError)}`,
      );
    }
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 100));
  }
}
