import type { Logger } from "./log.js";

/**
 * SIGTERM/SIGINT stop the daemon gracefully (exit 0, or 1 if stopping failed); a second signal
 * exits at once, for an operator who does not want to wait for running tools.
 */
export function stopOnSignals(log: Logger, stop: () => Promise<void>): void {
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    if (++signals > 1) {
      log.warn("second signal: exiting now", { signal });
      process.exit(1);
    }
    log.info("signal received", { signal });
    stop().then(
      () => process.exit(0),
      (e: Error) => {
        log.error("shutdown failed", { error: e.message });
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
}
