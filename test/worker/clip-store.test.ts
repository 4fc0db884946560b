/** An OpenClaw node's clips in its hub's SQLite (docs/openclaw-nodes.md#clips): chunked, bounded, read back whole. */

import { env, runInDurableObject } from "cloudflare:test";
import { Buffer } from "node:buffer";
import { describe, expect, it } from "vitest";
import { ClipStore } from "../../durable-objects/device-hub/storage/clip-store.js";

const NOW = 1_700_000_000_000;

async function inHub(fn: (sql: SqlStorage) => void): Promise<void> {
  const stub = env.DEVICE_HUB.get(env.DEVICE_HUB.idFromName(`clips-${crypto.randomUUID()}`));
  await runInDurableObject(stub, (_o, state) => fn(state.storage.sql));
}

const b64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));

describe("the hub's clip store", () => {
  it("keeps a clip over several chunks and reads it back byte for byte, stored once", async () => {
    await inHub((sql) => {
      const store = new ClipStore(sql);
      // 1.25 MiB: three chunks of at most 512 KiB.
      const bytes = new Uint8Array(1_310_720).map((_, i) => (i * 7) % 251);
      const base64 = Buffer.from(bytes).toString("base64");
      const a = store.putBase64(base64, "video/mp4", NOW);
      const again = store.putBase64(base64, "video/mp4", NOW + 1);
      expect(again).toEqual(a);
      expect(a.bytes).toBe(bytes.length);
      expect(sql.exec("SELECT COUNT(*) AS n FROM clip_chunks").one().n).toBe(3);
      const back = store.get(a.sha256)!;
      expect(back.media_type).toBe("video/mp4");
      expect(Buffer.from(back.bytes).equals(Buffer.from(bytes))).toBe(true);
      expect(store.get("0".repeat(64))).toBeNull();
    });
  });

  it("drops the oldest clips once the total passes its bound, never the one just stored", async () => {
    await inHub((sql) => {
      const store = new ClipStore(sql, 10);
      const first = store.putBase64(b64(new Uint8Array([1, 1, 1, 1])), "video/mp4", NOW);
      const second = store.putBase64(b64(new Uint8Array([2, 2, 2, 2])), "video/mp4", NOW + 1);
      expect(store.get(first.sha256)).not.toBeNull();
      const third = store.putBase64(b64(new Uint8Array([3, 3, 3, 3])), "video/mp4", NOW + 2);
      expect(store.get(first.sha256)).toBeNull();
      expect(store.get(second.sha256)).not.toBeNull();
      expect(store.get(third.sha256)).not.toBeNull();
      // One clip over the bound by itself stays: it is the one just stored.
      const big = store.putBase64(b64(new Uint8Array(12)), "video/mp4", NOW + 3);
      expect(store.get(big.sha256)).not.toBeNull();
      expect(store.get(second.sha256)).toBeNull();
      expect(sql.exec("SELECT COUNT(*) AS n FROM clip_chunks WHERE sha256 = ?", first.sha256).one().n).toBe(0);
    });
  });

  it("a clip waiting for its poster is taken once; one whose poster never came is forgotten after a day", async () => {
    await inHub((sql) => {
      const store = new ClipStore(sql);
      store.awaitPoster({ request_id: "r1", sha256: "a", meta: "{}", at: NOW });
      expect(store.takePoster("r1")).toEqual({ request_id: "r1", sha256: "a", meta: "{}", at: NOW });
      expect(store.takePoster("r1")).toBeNull();
      store.awaitPoster({ request_id: "old", sha256: "b", meta: "{}", at: NOW });
      store.awaitPoster({ request_id: "new", sha256: "c", meta: "{}", at: NOW + 24 * 60 * 60 * 1000 + 1 });
      expect(store.takePoster("old")).toBeNull();
      expect(store.takePoster("new")).not.toBeNull();
    });
  });
});
