/**
 * The pairing store over a real object's SQLite (its cases: test/helpers/pairing-store-cases.ts).
 */
import { env, runInDurableObject } from "cloudflare:test";
import { PairingStore } from "../../durable-objects/deployment/pairing-store.js";
import { describePairingStore } from "../helpers/pairing-store-cases.js";

describePairingStore(async (fn) => {
  const stub = env.DEPLOYMENT.get(env.DEPLOYMENT.idFromName(`store-${crypto.randomUUID()}`));
  await runInDurableObject(stub, async (_o, state) => fn(new PairingStore(state.storage.sql), state.storage.sql));
});
