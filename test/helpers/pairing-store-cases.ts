/**
 * The pairing store's cases, run over a real Durable Object's SQLite in workerd (test/worker/pairing-store.test.ts)
 * and over Node's SQLite in the unit tests (test/unit/deployment/pairing-store.test.ts), which the mutation run uses:
 * a code is decided once, expires, and its approval is collected once, only with the claim secret of the device
 * that opened it.
 */
import { describe, expect, it } from "vitest";
import { CLAIM_GRACE_MS, type PairingStore } from "../../durable-objects/deployment/pairing-store.js";

export type WithStore = (fn: (store: PairingStore, sql: SqlStorage) => Promise<void>) => Promise<void>;

const NOW = 1_700_000_000_000;
const TTL = 600_000;
const ADMIN = { by: "admin" };

export function describePairingStore(withStore: WithStore): void {
  async function open(store: PairingStore, agentId = "pi-new", now = NOW) {
    const outcome = await store.open({ agent_id: agentId, kind: "agent", label: "raspberrypi" }, now, TTL, 10);
    if (!outcome.ok) throw new Error("not opened");
    return outcome.opened;
  }

  describe("PairingStore", () => {
    it("opens a request with a code to show and a secret kept only as its hash", async () => {
      await withStore(async (store, sql) => {
        const opened = await open(store);
        expect(opened.code).toMatch(/^[2-9A-HJ-NP-Z]{4}-[2-9A-HJ-NP-Z]{4}$/);
        expect(opened.claim_secret).toMatch(/^pcl_[A-Za-z0-9_-]{43}$/);
        expect(opened.expires_at).toBe(NOW + TTL);
        expect(JSON.stringify(sql.exec("SELECT * FROM pairing_request").toArray())).not.toContain(opened.claim_secret);
        expect(store.pending(NOW)).toMatchObject([{ code: opened.code, agent_id: "pi-new", label: "raspberrypi" }]);
        expect(await store.claim(opened.claim_secret, NOW + 1)).toMatchObject({ status: "pending" });
      });
    });

    it("approves a code once; the approval is collected once, under the id the admin chose", async () => {
      await withStore(async (store) => {
        const opened = await open(store);
        const approved = store.approve(opened.code, { by: "admin", agentId: "kitchen-pi" }, NOW + 10);
        expect(approved).toMatchObject({ ok: true, request: { status: "approved", agent_id: "kitchen-pi" } });
        expect(store.approve(opened.code, ADMIN, NOW + 11)).toMatchObject({ ok: false, reason: "already_decided" });
        expect(store.deny(opened.code, "admin", NOW + 11)).toMatchObject({ ok: false, reason: "already_decided" });
        expect(store.pending(NOW + 12)).toEqual([]);

        expect(await store.claim(opened.claim_secret, NOW + 20)).toMatchObject({
          status: "approved",
          agent_id: "kitchen-pi",
        });
        expect(await store.claim(opened.claim_secret, NOW + 21)).toEqual({ status: "claimed" });
        store.recordToken(opened.code, "tok_0123456789abcdef");
        expect(store.get(opened.code)).toMatchObject({
          status: "claimed",
          decided_by: "admin",
          token_id: "tok_0123456789abcdef",
        });
      });
    });

    it("lets a device collect again when minting failed after its claim", async () => {
      await withStore(async (store) => {
        const opened = await open(store);
        store.approve(opened.code, ADMIN, NOW + 1);
        expect(await store.claim(opened.claim_secret, NOW + 2)).toMatchObject({ status: "approved" });
        store.reopenClaim(opened.code);
        expect(await store.claim(opened.claim_secret, NOW + 3)).toMatchObject({ status: "approved" });
      });
    });

    it("denies a code once; the device learns it was denied and can never be approved", async () => {
      await withStore(async (store) => {
        const opened = await open(store);
        expect(store.deny(opened.code, "admin", NOW + 1)).toMatchObject({ ok: true, request: { status: "denied" } });
        expect(store.approve(opened.code, ADMIN, NOW + 2)).toMatchObject({ ok: false, status: "denied" });
        expect(await store.claim(opened.claim_secret, NOW + 3)).toEqual({ status: "denied" });
      });
    });

    it("expires: an old code cannot be approved, and its device is told so", async () => {
      await withStore(async (store) => {
        const opened = await open(store);
        expect(store.pending(NOW + TTL)).toEqual([]);
        expect(store.approve(opened.code, ADMIN, NOW + TTL)).toMatchObject({ ok: false, reason: "expired" });
        expect(await store.claim(opened.claim_secret, NOW + TTL)).toEqual({ status: "expired" });
      });
    });

    it("gives an approval made at the last moment a grace to be collected in", async () => {
      await withStore(async (store) => {
        const opened = await open(store);
        store.approve(opened.code, ADMIN, NOW + TTL - 1);
        expect(await store.claim(opened.claim_secret, NOW + TTL + CLAIM_GRACE_MS - 2)).toMatchObject({
          status: "approved",
        });
      });
    });

    it("an approval not collected in time expires too", async () => {
      await withStore(async (store) => {
        const opened = await open(store);
        store.approve(opened.code, ADMIN, NOW + 1);
        expect(await store.claim(opened.claim_secret, NOW + TTL + CLAIM_GRACE_MS)).toEqual({ status: "expired" });
      });
    });

    it("knows no request for a secret it never issued", async () => {
      await withStore(async (store) => {
        await open(store);
        expect(await store.claim("pcl_not-a-secret-it-issued", NOW)).toEqual({ status: "unknown" });
      });
    });

    it("refuses new requests while the waiting ones fill the cap, and forgets expired ones", async () => {
      await withStore(async (store) => {
        const req = { agent_id: "flood", kind: "agent" as const };
        for (let i = 0; i < 3; i++) expect((await store.open(req, NOW, TTL, 3)).ok).toBe(true);
        expect(await store.open(req, NOW + 1, TTL, 3)).toEqual({ ok: false, reason: "full" });
        expect((await store.open(req, NOW + TTL, TTL, 3)).ok).toBe(true);
        expect(store.pending(NOW + TTL)).toHaveLength(1);
      });
    });

    it("forgets an expired undecided request at the next open, a decided one only after 30 days", async () => {
      await withStore(async (store) => {
        const waiting = await open(store);
        const decided = await open(store);
        store.deny(decided.code, "admin", NOW + 1);
        await open(store, "pi-other", NOW + TTL);
        expect(store.get(waiting.code)).toBeNull();
        expect(store.get(decided.code)).toMatchObject({ status: "denied" });
        await open(store, "pi-late", NOW + TTL + 30 * 86_400_000);
        expect(store.get(decided.code)).toMatchObject({ status: "denied" });
        await open(store, "pi-later", NOW + TTL + 30 * 86_400_000 + 1);
        expect(store.get(decided.code)).toBeNull();
      });
    });

    it("decides no code it does not know", async () => {
      await withStore(async (store) => {
        expect(store.approve("ZZZZ-ZZZZ", ADMIN, NOW)).toEqual({ ok: false, reason: "not_found" });
        expect(store.deny("ZZZZ-ZZZZ", "admin", NOW)).toEqual({ ok: false, reason: "not_found" });
      });
    });
  });
}
