import { once } from "node:events";
import type { Child } from "./processes.js";
import { waitUntil } from "./wait.js";

/** The pairing code an `edgeloop-agent pair` (or bridge) prints, once it has printed it. */
export async function shownCode(child: Child): Promise<string> {
  const match = await waitUntil(
    async () => child.output().match(/Pairing code: ([2-9A-Z]{4}-[2-9A-Z]{4})/),
    (m) => m !== null,
    { timeoutMs: 30_000, what: `a pairing code in:\n${child.output()}` },
  );
  return match![1]!;
}

/** How a child ended (it must end by itself within the wait). */
export async function exitCode(child: Child, timeoutMs = 30_000): Promise<number | null> {
  const { proc } = child;
  if (proc.exitCode !== null || proc.signalCode !== null) return proc.exitCode;
  const timer = setTimeout(() => proc.kill("SIGTERM"), timeoutMs);
  await once(proc, "exit");
  clearTimeout(timer);
  return proc.exitCode;
}
