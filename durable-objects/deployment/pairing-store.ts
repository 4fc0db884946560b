import type { PairingClaim, PairingKind, PairingRequestBody, PairingView } from "@edgeloop/protocol/pairing";
import { sha256Hex } from "../../runtime/digest.js";
import { randomBase64url } from "../../runtime/random-token.js";
import { newPairingCode } from "./pairing-code.js";

type Status = PairingView["status"];

type Row = {
  code: string;
  claim_hash: string;
  agent_id: string;
  kind: PairingKind;
  label: string | null;
  public_key: string | null;
  created_at: number;
  expires_at: number;
  status: Status;
  decided_by: string | null;
  decided_at: number | null;
  token_id: string | null;
};

/** An approved request stays collectable at least this long, however late in its life it was approved. */
export const CLAIM_GRACE_MS = 60_000;
/** Decided and expired requests stay listed (who approved what, which token it got) this long. */
const KEEP_DECIDED_MS = 30 * 86_400_000;
/** How often a waiting device should ask again; it backs off on its own from there. */
export const POLL_AFTER_MS = 1_000;

export type Opened = { code: string; claim_secret: string; expires_at: number; poll_after_ms: number };
export type OpenOutcome = { ok: true; opened: Opened } | { ok: false; reason: "full" };

export type Decision = { by: string; agentId?: string };
export type DecideOutcome =
  | { ok: true; request: PairingView }
  | { ok: false; reason: "not_found" | "expired" | "already_decided"; status?: Status };

/** What a device's claim finds. `approved` has just moved the request to `claimed`: mint its token now. */
export type ClaimOutcome =
  | { status: "pending"; expires_at: number; poll_after_ms: number }
  | { status: "denied" }
  | { status: "approved"; code: string; agent_id: string; kind: PairingKind; public_key: string | null }
  | { status: "unknown" }
  | { status: "expired" }
  | { status: "claimed" };

/** What a device's claim gets back: the wire answer, or why there is none (the route says it as a problem). */
export type ClaimAnswer = { ok: true; claim: PairingClaim } | { ok: false; reason: "unknown" | "expired" | "claimed" };

/**
 * Pairing requests, by code, in the deployment object's SQLite. A request is pending
 * until its `expires_at`; an admin approves or denies it once; the device that opened it (the one
 * holding the claim secret, stored only as its SHA-256) collects the outcome, and an approval
 * once. The store mints nothing: the deployment object issues the token through the device's hub
 * when a claim finds the request approved, so no token is ever stored here.
 */
export class PairingStore {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(`CREATE TABLE IF NOT EXISTS pairing_request (
      code TEXT PRIMARY KEY, claim_hash TEXT NOT NULL UNIQUE, agent_id TEXT NOT NULL, kind TEXT NOT NULL,
      label TEXT, public_key TEXT, created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL,
      status TEXT NOT NULL, decided_by TEXT, decided_at INTEGER, token_id TEXT)`);
  }

  async open(req: PairingRequestBody, now: number, ttlMs: number, maxPending: number): Promise<OpenOutcome> {
    this.forgetOld(now);
    const waiting = this.sql
      .exec<{ n: number }>("SELECT COUNT(*) AS n FROM pairing_request WHERE status = 'pending' AND expires_at > ?", now)
      .one().n;
    if (waiting >= maxPending) return { ok: false, reason: "full" };
    let code = newPairingCode();
    while (this.row(code)) code = newPairingCode();
    const claimSecret = `pcl_${randomBase64url(32)}`;
    const expiresAt = now + ttlMs;
    this.sql.exec(
      `INSERT INTO pairing_request (code, claim_hash, agent_id, kind, label, public_key, created_at, expires_at, status)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending')`,
      code,
      await sha256Hex(claimSecret),
      req.agent_id,
      req.kind,
      req.label ?? null,
      req.public_key ?? null,
      now,
      expiresAt,
    );
    return {
      ok: true,
      opened: { code, claim_secret: claimSecret, expires_at: expiresAt, poll_after_ms: POLL_AFTER_MS },
    };
  }

  /** Requests still waiting for an admin, oldest first. */
  pending(now: number): PairingView[] {
    return this.sql
      .exec<Row>("SELECT * FROM pairing_request WHERE status = 'pending' AND expires_at > ? ORDER BY created_at", now)
      .toArray()
      .map(view);
  }

  /** A request by code, whatever its state (null when unknown or forgotten). */
  get(code: string): PairingView | null {
    const row = this.row(code);
    return row ? view(row) : null;
  }

  approve(code: string, decision: Decision, now: number): DecideOutcome {
    const found = this.decidable(code, now);
    if (!found.ok) return found;
    this.sql.exec(
      `UPDATE pairing_request SET status = 'approved', decided_by = ?, decided_at = ?, agent_id = ?, expires_at = ?
       WHERE code = ?`,
      decision.by,
      now,
      decision.agentId ?? found.row.agent_id,
      Math.max(found.row.expires_at, now + CLAIM_GRACE_MS),
      code,
    );
    return { ok: true, request: view(this.row(code)!) };
  }

  deny(code: string, by: string, now: number): DecideOutcome {
    const found = this.decidable(code, now);
    if (!found.ok) return found;
    this.sql.exec(
      "UPDATE pairing_request SET status = 'denied', decided_by = ?, decided_at = ? WHERE code = ?",
      by,
      now,
      code,
    );
    return { ok: true, request: view(this.row(code)!) };
  }

  /**
   * The device asks how its request stands. An approved, unexpired request moves to `claimed` in
   * the same call (a second claim finds it claimed), so a token is minted for it at most once.
   */
  async claim(claimSecret: string, now: number): Promise<ClaimOutcome> {
    const hash = await sha256Hex(claimSecret);
    const row = this.sql.exec<Row>("SELECT * FROM pairing_request WHERE claim_hash = ?", hash).toArray()[0];
    if (!row) return { status: "unknown" };
    if (row.status === "claimed") return { status: "claimed" };
    if (row.status === "denied") return { status: "denied" };
    if (row.expires_at <= now) return { status: "expired" };
    if (row.status === "pending")
      return { status: "pending", expires_at: row.expires_at, poll_after_ms: POLL_AFTER_MS };
    this.sql.exec("UPDATE pairing_request SET status = 'claimed' WHERE code = ?", row.code);
    return { status: "approved", code: row.code, agent_id: row.agent_id, kind: row.kind, public_key: row.public_key };
  }

  /** The token minted for a claimed request (its id only), for the record. */
  recordToken(code: string, tokenId: string): void {
    this.sql.exec("UPDATE pairing_request SET token_id = ? WHERE code = ?", tokenId, code);
  }

  /** Minting failed after the claim: let the device collect again. */
  reopenClaim(code: string): void {
    this.sql.exec("UPDATE pairing_request SET status = 'approved' WHERE code = ? AND status = 'claimed'", code);
  }

  private decidable(
    code: string,
    now: number,
  ): { ok: true; row: Row } | { ok: false; reason: "not_found" | "expired" | "already_decided"; status?: Status } {
    const row = this.row(code);
    if (!row) return { ok: false, reason: "not_found" };
    if (row.status !== "pending") return { ok: false, reason: "already_decided", status: row.status };
    if (row.expires_at <= now) return { ok: false, reason: "expired" };
    return { ok: true, row };
  }

  private row(code: string): Row | undefined {
    return this.sql.exec<Row>("SELECT * FROM pairing_request WHERE code = ?", code).toArray()[0];
  }

  /** Undecided requests go when they expire (nothing to remember); decided ones after KEEP_DECIDED_MS. */
  private forgetOld(now: number): void {
    this.sql.exec(
      "DELETE FROM pairing_request WHERE (status = 'pending' AND expires_at <= ?) OR expires_at < ?",
      now,
      now - KEEP_DECIDED_MS,
    );
  }
}

function view(r: Row): PairingView {
  return {
    code: r.code,
    agent_id: r.agent_id,
    kind: r.kind,
    label: r.label,
    public_key: r.public_key,
    created_at: r.created_at,
    expires_at: r.expires_at,
    status: r.status,
    decided_by: r.decided_by,
    decided_at: r.decided_at,
    token_id: r.token_id,
  };
}
