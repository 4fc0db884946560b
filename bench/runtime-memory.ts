/**
 * `npx tsx bench/runtime-memory.ts [messages]`: whether the local runtime's resident memory that
 * grows with the messages edgeloop handles (docs/status.md#memory-of-the-local-runtime) is
 * edgeloop's or the runtime's. The same work goes through the product's worker and through the
 * durable floor (bench/floor-worker: two trivial objects making only the commits a round needs),
 * each on a workerd of its own: `messages` messages (default 2,400), each a conversation of its own
 * (the floor's conversation object takes one message), 3 tool rounds each, on 20 simulated
 * devices, 20 at a time, the two runtimes alternating batch by batch. Prints each workerd's
 * resident memory at every 600 messages and after 30 s idle. Not part of the report.
 */
import { sendMessage } from "../test/helpers/api.js";
import { deviceToken, FLEET_SIZE, startBenchEnv } from "./lib/bench-env.js";
import { durableFloorThroughput } from "./lib/durable-floor-client.js";
import { FakeDevice } from "./lib/fake-device.js";
import { requestBodies } from "./lib/llm-requests.js";
import { groupRssMb } from "./lib/memory.js";

const messages = Math.max(600, Number(process.argv[2] ?? 2400));
/** messages at once, one per device */
const CONVERSATIONS = 20;
const ROUNDS = 3;
const CHECKPOINT = 600;

/** Resident MB of the workerd in the dev server's process group `pgid`. */
const workerdRssMb = (pgid: number): number => Math.round(groupRssMb(pgid).workerd);

const env = await startBenchEnv(false);
const fleet: FakeDevice[] = [];
try {
  env.llm.setRules([
    {
      match: "^bench memory",
      turns: [
        ...Array.from({ length: ROUNDS }, () => ({ tool_calls: [{ name: "bench_ok", arguments: {} }] })),
        { content: "done" },
      ],
    },
  ]);
  for (let i = 0; i < FLEET_SIZE; i++)
    fleet.push(await FakeDevice.connect(env.worker.url, `fleet-${i}`, deviceToken(`fleet-${i}`)));
  const ours = env.worker.child.proc.pid!;
  const floor = env.floor.child.proc.pid!;
  const rows: { messages: number | string; ours: number; floor: number }[] = [
    { messages: 0, ours: workerdRssMb(ours), floor: workerdRssMb(floor) },
  ];
  let modelBody = "";
  for (let sent = 0; sent < messages; sent += CONVERSATIONS) {
    const texts = Array.from({ length: CONVERSATIONS }, (_, i) => `bench memory ${sent + i}`);
    const replies = await Promise.all(
      texts.map((text, i) => sendMessage(env.worker.url, { agent_id: `fleet-${i}`, text }, 60)),
    );
    const failed = replies.filter((r) => r.body.status !== "completed");
    if (failed.length > 0)
      throw new Error(`ours: ${failed.length} messages did not complete: ${JSON.stringify(failed[0])}`);
    // The floor asks the model what ours asked it in a middle round (the same bytes each time).
    if (!modelBody) {
      const bodies = requestBodies(env.llm, texts[0]!);
      modelBody = JSON.stringify(bodies[Math.floor(bodies.length / 2)]);
    }
    const run = await durableFloorThroughput(
      env.floor.url,
      CONVERSATIONS,
      CONVERSATIONS,
      ROUNDS,
      `${env.llm.url}/chat/completions`,
      modelBody,
      `memory-${sent}`,
    );
    if (run.calls !== CONVERSATIONS * ROUNDS)
      throw new Error(`floor: ${run.calls} calls, not ${CONVERSATIONS * ROUNDS}`);
    const done = sent + CONVERSATIONS;
    if (done % CHECKPOINT === 0 || done >= messages) {
      rows.push({ messages: done, ours: workerdRssMb(ours), floor: workerdRssMb(floor) });
      process.stderr.write(`runtime-memory: ${done} messages\n`);
    }
  }
  await new Promise((r) => setTimeout(r, 30_000));
  rows.push({ messages: "30 s idle", ours: workerdRssMb(ours), floor: workerdRssMb(floor) });
  process.stdout.write("| messages | ours (workerd MB) | durable floor (workerd MB) |\n|---|---|---|\n");
  for (const r of rows) process.stdout.write(`| ${r.messages} | ${r.ours} | ${r.floor} |\n`);
} finally {
  for (const d of fleet) d.close();
  await env.stop();
}
process.exit(0);
