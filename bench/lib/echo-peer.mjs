// Plain JavaScript, run as its own process by socket-hop.ts: connects to the WebSocket URL it is
// given, the way the agent connects to its hub (no permessage-deflate), and sends every text frame
// straight back. It does nothing else, so a round trip to it is the socket hop alone: two
// processes' wake-ups and two loopback frames, which any agent on the far side of a socket pays.
import WebSocket from "ws";

const ws = new WebSocket(process.argv[2], { perMessageDeflate: false });
ws.on("message", (data) => ws.send(data.toString()));
ws.on("close", () => process.exit(0));
ws.on("error", (e) => {
  process.stderr.write(`echo-peer: ${e.message}\n`);
  process.exit(1);
});
