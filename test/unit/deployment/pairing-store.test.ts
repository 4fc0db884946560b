/**
 * The pairing store over Node's SQLite, so the mutation run reaches it (its cases: test/helpers/pairing-store-cases.ts;
 * workerd runs the same over a Durable Object in test/worker/pairing-store.test.ts).
 */
import { PairingStore } from "../../../durable-objects/deployment/pairing-store.js";
import { nodeSqlStorage } from "../../helpers/node-sql-storage.js";
import { describePairingStore } from "../../helpers/pairing-store-cases.js";

describePairingStore(async (fn) => {
  const sql = nodeSqlStorage();
  await fn(new PairingStore(sql), sql);
});
