/** Counters the bridge logs (a `stats` line every minute and at shutdown) and tests read. */
export type BridgeStats = {
  commandsForwarded: number;
  reports: number;
  /** QoS 1 repeats of a report already delivered */
  duplicateReports: number;
  /** reports without a request_id, matched to the oldest outstanding command */
  guessedReports: number;
  /** reports for commands the bridge did not send (another orchestrator, or long expired) */
  unmatchedReports: number;
  /** payloads that failed validation: logged and dropped */
  badPayloads: number;
  /** discovered devices without a configured token */
  skippedDevices: number;
};

export const newStats = (): BridgeStats => ({
  commandsForwarded: 0,
  reports: 0,
  duplicateReports: 0,
  guessedReports: 0,
  unmatchedReports: 0,
  badPayloads: 0,
  skippedDevices: 0,
});
