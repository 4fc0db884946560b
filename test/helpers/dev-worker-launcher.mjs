// Plain JavaScript, run as its own process by startLocalWorker({ inspector: false }): the same
// local dev server as `wrangler dev` (wrangler's startWorker: same bundling, Miniflare and
// workerd), but without the DevTools inspector. `wrangler dev` always attaches one, and it relays
// every network event of the worker (each chunk of a streamed fetch) to the wrangler process,
// which costs more CPU than the worker itself; the benchmark runs without it, like production.
//
// Usage: node dev-worker-launcher.mjs '<json {config, port, persist, vars}>'
import { unstable_startWorker } from "wrangler";

const { config, port, persist, vars } = JSON.parse(process.argv[2] ?? "{}");
const worker = await unstable_startWorker({
  config,
  bindings: Object.fromEntries(
    Object.entries(vars ?? {}).map(([k, v]) => [k, { type: "plain_text", value: String(v) }]),
  ),
  dev: {
    server: { hostname: "127.0.0.1", port },
    inspector: false,
    persist,
    logLevel: "warn",
    watch: false,
    liveReload: false,
  },
});
await worker.ready;
process.stdout.write(`ready on ${(await worker.url).href}\n`);
const stop = () => void worker.dispose().finally(() => process.exit(0));
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
