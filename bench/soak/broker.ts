/**
 * The soak's mosquitto: the tests' broker with persistence on, so a broker killed with SIGKILL
 * comes back on the same port with what it had saved. Mosquitto saves every
 * `BROKER_AUTOSAVE_SECONDS` (and on a clean stop), so a kill loses what changed since: the rest of
 * the system must cope with that, and the soak checks that it does.
 */
import { type Mosquitto, startMosquitto } from "../../test/helpers/mosquitto.js";

export const BROKER_AUTOSAVE_SECONDS = 5;

export type SoakBroker = Mosquitto;

export function startSoakBroker(dir: string): Promise<SoakBroker> {
  return startMosquitto({ persist: { dir, autosaveSeconds: BROKER_AUTOSAVE_SECONDS }, startTimeoutMs: 30_000 });
}
