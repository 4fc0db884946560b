import type { LlmError } from "./types.js";

/**
 * Reads a model's event stream to the end, for every provider: each item goes to `onItem`, a
 * silence longer than `idleMs` ends it as a timeout, and the caller's signal ends it as aborted.
 *
 * The clients' own timeouts cover only the wait for response headers (and the Workers AI binding
 * has none), so a stream that stalls afterwards would otherwise hold the call open for good. The
 * wait for each item is raced against the timer rather than left to the client's abort handling:
 * a stream that ignores the signal (a binding's) still ends on time.
 */

/** Our own classified error, or whatever the client threw (classified by its provider). */
export type StreamFailure = LlmError | { thrown: unknown };
export type StreamRead = { ok: true } | { ok: false; error: StreamFailure };

export async function readStream<T>(options: {
  /** starts the request; `signal` aborts it (stall, or the caller gave up) */
  open: (signal: AbortSignal) => Promise<AsyncIterable<T>>;
  onItem: (item: T) => void;
  idleMs: number;
  signal?: AbortSignal | undefined;
}): Promise<StreamRead> {
  const { idleMs, signal: callerSignal } = options;
  const controller = new AbortController();
  let stalled = false;
  let idleTimer: ReturnType<typeof setTimeout> | undefined;
  let wake: (() => void) | undefined;
  const stopped = new Promise<"stopped">((resolve) => {
    wake = () => resolve("stopped");
  });
  const abortFromCaller = () => {
    controller.abort();
    wake?.();
  };
  callerSignal?.addEventListener("abort", abortFromCaller, { once: true });
  // One timer for the whole stream, not one per item: each item only notes when it came, and the
  // timer, when it fires early, waits out the rest of the silence (a new timer and a cleared one
  // per streamed chunk were 1.3% of the worker's busy samples in bench/profile-cpu.ts --fleet).
  let lastItemAt = 0;
  const onIdle = () => {
    const quiet = Date.now() - lastItemAt;
    if (quiet < idleMs) {
      idleTimer = setTimeout(onIdle, idleMs - quiet);
      return;
    }
    stalled = true;
    controller.abort();
    wake?.();
  };
  let iterator: AsyncIterator<T> | undefined;
  try {
    if (callerSignal?.aborted) return { ok: false, error: abortedError() };
    const iterable = await options.open(controller.signal);
    iterator = iterable[Symbol.asyncIterator]();
    lastItemAt = Date.now();
    idleTimer = setTimeout(onIdle, idleMs);
    for (;;) {
      const next = await Promise.race([iterator.next(), stopped]);
      if (next === "stopped" || next.done) break;
      lastItemAt = Date.now();
      options.onItem(next.value);
    }
  } catch (e) {
    if (stalled) return { ok: false, error: stallError(idleMs) };
    if (callerSignal?.aborted) return { ok: false, error: abortedError() };
    return { ok: false, error: { thrown: e } };
  } finally {
    if (idleTimer !== undefined) clearTimeout(idleTimer);
    callerSignal?.removeEventListener("abort", abortFromCaller);
    // A stream left behind (stalled or aborted) is closed; its answer no longer matters.
    if (stalled || callerSignal?.aborted) void iterator?.return?.()?.catch(() => undefined);
  }
  // Some clients end their stream quietly when aborted, so the reason is ours to check.
  if (stalled) return { ok: false, error: stallError(idleMs) };
  if (callerSignal?.aborted) return { ok: false, error: abortedError() };
  return { ok: true };
}

function stallError(idleMs: number): LlmError {
  return { kind: "timeout", message: `LLM stream stalled: no data for ${idleMs}ms` };
}

function abortedError(): LlmError {
  return { kind: "network", message: "LLM request aborted" };
}
