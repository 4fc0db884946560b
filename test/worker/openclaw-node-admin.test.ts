import { describe, expect, it } from "vitest";
import { makeNodeKey } from "../helpers/openclaw-node.js";
import { ADMIN, call, deviceView as device, uid, waitFor } from "./support/front-door.js";
import { bootstrapTokenOf, dial, errorCode, paired, setup } from "./support/openclaw.js";

/**
 * docs/openclaw-nodes.md: what an admin sees of a node (the registry, before anyone reads it by
 * id) and how a revoked or denied node stays out until an admin clears its key.
 */
describe("OpenClaw nodes, as an admin sees them", () => {
  it("a node paired by its setup code is in the registry at once, before anyone reads it by id", async () => {
    // Nothing here reads the device by id (GET /v1/devices/:id, getDevice): that read taught the hub
    // its agent id and hid that a node's sign-in did not.
    const agent = uid("oc-listed");
    const s = await setup(agent);
    const { node } = await dial(agent, {
      key: await makeNodeKey(),
      auth: { bootstrapToken: bootstrapTokenOf(s.setup_code) },
    });
    expect((await node.connect()).ok).toBe(true);
    type Listed = { agent_id: string; online: boolean; tools: string[] };
    const listed = async () =>
      ((await (await call("/v1/devices", { headers: ADMIN })).json()) as { devices: Listed[] }).devices.find(
        (d) => d.agent_id === agent,
      );
    const mine = await waitFor(listed, (d) => d?.online === true);
    expect(mine?.tools).toEqual(["system_run", "system_which"]);
    node.ws.close(1000, "done");
  });

  type Pending = { pending: { code: string; agent_id: string }[] };
  const pendingFor = async (agent: string) =>
    ((await (await call("/v1/pairing", { headers: ADMIN })).json()) as Pending).pending.filter(
      (p) => p.agent_id === agent,
    );
  const listedAs = async (agent: string) =>
    (
      (await (await call("/v1/devices", { headers: ADMIN })).json()) as {
        devices: { agent_id: string; online: boolean; revoked?: boolean }[];
      }
    ).devices.find((d) => d.agent_id === agent);

  it("a revoked node's key stays refused, asking for nothing, until an admin clears it", async () => {
    const agent = uid("oc-revoked");
    const { node, key, closed } = await paired(agent);
    const token = node.deviceToken();
    const [issued] = (
      (await (await call(`/v1/devices/${agent}/tokens`, { headers: ADMIN })).json()) as {
        tokens: { token_id: string }[];
      }
    ).tokens;
    await call(`/v1/devices/${agent}/tokens/${issued!.token_id}`, { method: "DELETE", headers: ADMIN });
    await closed;
    // The node retries, as a real one does, with its token and then with its key alone.
    for (let i = 0; i < 5; i++) {
      const again = await dial(agent, { key, ...(i % 2 === 0 ? { auth: { deviceToken: token } } : {}) });
      const refused = await again.node.connect();
      expect(refused).toMatchObject({
        ok: false,
        error: { details: { code: "AUTH_UNAUTHORIZED", reason: "device-revoked" } },
      });
      expect((refused.error as { message: string }).message).toContain(`edgeloop devices clear ${agent}`);
      await again.closed;
    }
    expect(await pendingFor(agent)).toEqual([]);
    expect(await listedAs(agent)).toMatchObject({ online: false, revoked: true });
    expect((await device(agent)).revoked_keys).toEqual([
      expect.objectContaining({ why: `its token ${issued!.token_id} was revoked` }),
    ]);

    // Cleared: the key may ask again (it is not let in by that), and the list no longer says revoked.
    const clear = await call(`/v1/devices/${agent}/revoked-keys`, { method: "DELETE", headers: ADMIN });
    expect(clear.status).toBe(200);
    expect(((await clear.json()) as { cleared: unknown[] }).cleared).toHaveLength(1);
    expect(await listedAs(agent)).toMatchObject({ revoked: false });
    const asks = await dial(agent, { key, auth: { deviceToken: token } });
    expect(errorCode(await asks.node.connect())).toBe("PAIRING_REQUIRED");
    expect(await pendingFor(agent)).toHaveLength(1);
  });

  it("a denied node's key is not asked about again until an admin clears it", async () => {
    const agent = uid("oc-denied");
    const key = await makeNodeKey();
    const first = await dial(agent, { key });
    const code = ((await first.node.connect()).error as { details: { requestId: string } }).details.requestId;
    const deny = await call(`/v1/pairing/${code}/deny`, { method: "POST", headers: ADMIN });
    expect(deny.status).toBe(200);
    for (let i = 0; i < 5; i++) {
      const again = await dial(agent, { key });
      expect(errorCode(await again.node.connect())).toBe("AUTH_UNAUTHORIZED");
      await again.closed;
    }
    expect(await pendingFor(agent)).toEqual([]);
    expect((await device(agent)).revoked_keys).toEqual([
      expect.objectContaining({ why: `pairing request ${code} was denied` }),
    ]);
    // Only an admin clears.
    expect((await call(`/v1/devices/${agent}/revoked-keys`, { method: "DELETE" })).status).toBe(401);
  });
});
