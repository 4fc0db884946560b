import { PairingClaim, PairingOpened, type PairingRequestBody } from "@edgeloop/protocol/pairing";
import { z } from "zod";

/**
 * The device's half of pairing (docs/security.md, "Pairing"): open a request, show its code,
 * ask how it stands until an admin decides, and collect the device's own token. Shared by the
 * agent (`edgeloop-agent pair`) and the bridge (for the devices behind it).
 */

export type PairedDevice = { agent_id: string; token_id: string; token: string };

/** Why pairing ended without a token: the admin denied it, it expired, or the worker refused. */
export class PairingFailed extends Error {
  override readonly name = "PairingFailed";
  constructor(
    message: string,
    readonly reason: "denied" | "expired" | "refused" = "refused",
  ) {
    super(message);
  }
}

const Problem = z.looseObject({ title: z.string().optional(), detail: z.string().optional() });

/** `https://w.example/` → `https://w.example/v1/pairing…` (ws(s):// as the agent's --url may be, too). */
export function pairingUrl(workerUrl: string, path = ""): string {
  const u = new URL(workerUrl.replace(/^ws(s?):/, "http$1:"));
  u.pathname = `${u.pathname.replace(/\/+$/, "")}/v1/pairing${path}`;
  return u.toString();
}

async function answer<S extends z.ZodType>(res: Response, schema: S, what: string): Promise<z.infer<S>> {
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new PairingFailed(`${what}: ${res.status} ${text.slice(0, 200)}`);
  }
  if (!res.ok) {
    const p = Problem.safeParse(body);
    const why = p.success ? [p.data.title, p.data.detail].filter(Boolean).join(": ") : text.slice(0, 200);
    throw new PairingFailed(`${what}: ${res.status} ${why}`);
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new PairingFailed(`${what}: unexpected answer (${parsed.error.issues[0]?.message})`);
  return parsed.data;
}

export async function openPairing(workerUrl: string, request: PairingRequestBody): Promise<PairingOpened> {
  const res = await fetch(pairingUrl(workerUrl), {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(request),
  });
  return answer(res, PairingOpened, "pairing request refused");
}

export type WaitOptions = {
  signal?: AbortSignal;
  /** the longest wait between two questions (the worker suggests the shortest) */
  maxIntervalMs?: number;
  /** how to wait between questions (tests pass one that does not) */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  onNetworkError?: (error: Error) => void;
};

const sleepFor = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(signal.reason as Error);
      },
      { once: true },
    );
  });

/**
 * Ask how the request stands until it is decided: every `poll_after_ms` at first, then less often
 * (×1.5 a time, up to `maxIntervalMs`), so a code nobody approves for ten minutes costs the worker
 * a few hundred small requests at most. Network errors are waited out until the code expires.
 */
export async function waitForApproval(
  workerUrl: string,
  opened: PairingOpened,
  opts: WaitOptions = {},
): Promise<PairedDevice> {
  const sleep = opts.sleep ?? sleepFor;
  const maxInterval = opts.maxIntervalMs ?? 5_000;
  let interval = opened.poll_after_ms;
  for (;;) {
    await sleep(interval, opts.signal);
    interval = Math.min(maxInterval, Math.round(interval * 1.5));
    let res: Response;
    try {
      res = await fetch(pairingUrl(workerUrl, "/claim"), {
        method: "POST",
        headers: { authorization: `Bearer ${opened.claim_secret}` },
        ...(opts.signal ? { signal: opts.signal } : {}),
      });
    } catch (e) {
      if (opts.signal?.aborted) throw e;
      // Past the code's life (and the grace an approval gets) there is nothing left to wait for.
      if (Date.now() > opened.expires_at + 60_000)
        throw new PairingFailed(`the code expired: ${(e as Error).message}`, "expired");
      opts.onNetworkError?.(e as Error);
      continue;
    }
    if (res.status >= 500 && Date.now() <= opened.expires_at) {
      await res.body?.cancel();
      continue;
    }
    const claim = await answer(res, PairingClaim, "pairing failed");
    if (claim.status === "approved") return { agent_id: claim.agent_id, token_id: claim.token_id, token: claim.token };
    if (claim.status === "denied") throw new PairingFailed("an admin denied this device", "denied");
  }
}
