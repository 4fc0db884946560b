import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "@edgeloop/edge-client/log";
import { openPairing, PairingFailed, waitForApproval } from "@edgeloop/edge-client/pairing-client";
import { Identifier } from "@edgeloop/protocol/ids";
import { z } from "zod";

/** What the bridge keeps of the devices it paired: agent id → that device's own token. */
const PairedFile = z.record(Identifier, z.string().min(1));

/**
 * Pairing for the devices behind the bridge (`--pair-devices`, docs/mqtt.md): a discovered device
 * with no configured token gets a pairing request (kind `bridge-device`, under its own id); the
 * bridge logs its code, and once an admin approves it, keeps the device's own token in
 * `<state dir>/paired-devices.json` (0600, the folder 0700) and serves the device from then on,
 * across restarts. A denied device is not asked for again until the bridge restarts; an expired
 * code is renewed the next time the device shows up.
 */
export class BridgePairing {
  private readonly file: string;
  private readonly tokens = new Map<string, string>();
  /** devices with a request open, or denied since the bridge started */
  private readonly asked = new Set<string>();
  private readonly stopping = new AbortController();

  constructor(private readonly opts: { url: string; stateDir: string; bridgeId: string; log: Logger }) {
    this.file = join(opts.stateDir, "paired-devices.json");
    if (!existsSync(this.file)) return;
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(this.file, "utf8"));
    } catch (e) {
      throw new Error(`${this.file}: ${(e as Error).message}; remove it to pair again`);
    }
    const parsed = PairedFile.safeParse(raw);
    if (!parsed.success) throw new Error(`${this.file}: not a map of device ids to tokens; remove it to pair again`);
    for (const [id, token] of Object.entries(parsed.data)) this.tokens.set(id, token);
  }

  /** Tokens of devices paired earlier. */
  paired(): ReadonlyMap<string, string> {
    return this.tokens;
  }

  /** Ask to pair `agentId` unless already asking (or denied); `onPaired` gets its token when approved. */
  request(agentId: string, onPaired: (token: string) => void): void {
    if (this.asked.has(agentId)) return;
    this.asked.add(agentId);
    const { log } = this.opts;
    const label = `behind edgeloop-bridge ${this.opts.bridgeId}`;
    const pairing = async () => {
      const opened = await openPairing(this.opts.url, { agent_id: agentId, kind: "bridge-device", label });
      log.warn("device waiting for pairing approval", {
        agent_id: agentId,
        code: opened.code,
        approve: `npx edgeloop devices approve ${opened.code}`,
        expires_at: new Date(opened.expires_at).toISOString(),
      });
      return waitForApproval(this.opts.url, opened, {
        signal: this.stopping.signal,
        onNetworkError: (e) =>
          log.warn("pairing: worker unreachable; still waiting", { agent_id: agentId, error: e.message }),
      });
    };
    pairing()
      .then((paired) => {
        this.tokens.set(agentId, paired.token);
        this.save();
        log.info("device paired", { agent_id: agentId, token_id: paired.token_id });
        onPaired(paired.token);
      })
      .catch((e: Error) => {
        if (this.stopping.signal.aborted) return;
        const denied = e instanceof PairingFailed && e.reason === "denied";
        log.warn("device not paired", { agent_id: agentId, reason: e.message });
        // A denial stands until restart; anything else may be asked again when the device next shows up.
        if (!denied) this.asked.delete(agentId);
      });
  }

  stop(): void {
    this.stopping.abort(new Error("bridge stopping"));
  }

  /** Replace the file through a 0600 temporary one: the tokens are never readable by others. */
  private save(): void {
    if (!existsSync(this.opts.stateDir)) mkdirSync(this.opts.stateDir, { recursive: true, mode: 0o700 });
    chmodSync(this.opts.stateDir, 0o700);
    const temp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(temp, `${JSON.stringify(Object.fromEntries(this.tokens), null, 2)}\n`, { mode: 0o600 });
    chmodSync(temp, 0o600);
    renameSync(temp, this.file);
  }
}
