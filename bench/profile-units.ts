/**
 * `npx tsx bench/profile-units.ts [frames]`: what the local runtime charges, in CPU, for the pieces
 * a durable tool round is made of, at the fleet's concurrency (20 sockets, 5 frames in flight on
 * each), on the floor worker: a WebSocket echo; an echo after one one-row SQLite write (one
 * commit); after five writes (one commit); after an RPC to another object that writes one row.
 * Each is measured twice, interleaved. Not part of the report; with the cost scenario's counts
 * (requests, statements per tool call) it says how far below the fleet's CPU the design's own
 * pieces allow it to go on this runtime.
 */
import { FloorSocket } from "./lib/floor-client.js";
import { startFloorWorker } from "./lib/floor-worker.js";
import { cpuDelta, groupCpuMs } from "./lib/process-cpu.js";

const frames = Math.max(200, Number(process.argv[2] ?? 2000));
const SOCKETS = 20;
const WINDOW = 5;
const KINDS = { echo: "ping", "write 1 row": "write 1", "write 5 rows": "write 5", "rpc + 1 row": "rpc" };

const floor = await startFloorWorker(false);
try {
  const sockets = await Promise.all(
    Array.from({ length: SOCKETS }, (_, i) => FloorSocket.open(floor.wsUrl, `units-${i}`)),
  );
  const pid = floor.child.proc.pid!;
  const run = async (frame: string, total: number) => {
    let sent = 0;
    const lane = async (s: FloorSocket) => {
      while (sent < total) {
        sent++;
        await s.request(frame);
      }
    };
    const before = groupCpuMs(pid);
    await Promise.all(sockets.flatMap((s) => Array.from({ length: WINDOW }, () => lane(s))));
    return cpuDelta(before, groupCpuMs(pid)).total! / sent;
  };
  for (const frame of Object.values(KINDS)) await run(frame, 200); // warm-up: objects, tables
  const per: Record<string, number[]> = Object.fromEntries(Object.keys(KINDS).map((k) => [k, []]));
  for (let rep = 0; rep < 2; rep++)
    for (const [kind, frame] of Object.entries(KINDS)) per[kind]!.push(await run(frame, frames));
  console.log(
    `runtime CPU per frame (ms), ${SOCKETS} sockets × ${WINDOW} in flight, ${frames} frames, two repetitions:`,
  );
  for (const [kind, ms] of Object.entries(per))
    console.log(`${kind.padEnd(14)} ${ms.map((m) => m.toFixed(3)).join("  ")}`);
  for (const s of sockets) s.close();
} finally {
  await floor.stop();
}
