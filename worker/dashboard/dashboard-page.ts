import { KEYS_HTML } from "./client-keys.js";
import { LONG_LIVED_HTML } from "./client-long-lived.js";

/**
 * The dashboard's HTML shell: landmarks and empty regions that /dashboard.js fills from the API.
 * Nothing here is data, so it can be a constant.
 */
export const DASHBOARD_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>edgeloop — dashboard</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/dashboard.css">
<script src="/dashboard.js" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
  <h1>edgeloop <span>operator</span></h1>
  <p class="health" id="health" role="status" aria-live="polite">Connecting…</p>
  <form method="post" action="/logout"><button type="submit">Log out</button></form>
</header>
<main id="main">
  <div class="col">
    <section class="panel" aria-labelledby="h-approvals">
      <h2 id="h-approvals">Pending approvals <span class="count" id="approvals-count">0</span></h2>
      <div id="approvals" aria-live="polite"><p class="empty">Nothing is waiting.</p></div>
    </section>
    <section class="panel" aria-labelledby="h-devices">
      <h2 id="h-devices">Devices <span class="count" id="devices-count">0</span></h2>
      <div id="devices"><p class="empty">Loading…</p></div>
    </section>
    <section class="panel" aria-labelledby="h-conversations">
      <h2 id="h-conversations">Conversations <span class="count" id="conversations-count">0</span></h2>
      <div id="conversations"><p class="empty">Loading…</p></div>
    </section>
  </div>
  <div class="col">
    <section class="panel" aria-labelledby="h-chat">
      <h2 id="h-chat">Send a message</h2>
      <form id="chat" class="chat">
        <label for="chat-target">To</label>
        <select id="chat-target" name="target"></select>
        <label for="chat-text">Message</label>
        <textarea id="chat-text" name="text" rows="3" maxlength="32000" required placeholder="What should the device do? (Ctrl+Enter sends)"></textarea>
        <div class="actions"><button type="submit" class="primary" id="chat-send" disabled>Send</button><span id="chat-status" role="status" aria-live="polite"></span></div>
      </form>
    </section>
    <section class="panel" aria-labelledby="h-timeline">
      <h2 id="h-timeline">Timeline</h2>
      <div class="timeline-head" id="timeline-head"><p class="empty">Choose a conversation to watch it live.</p></div>
      <ol class="timeline" id="timeline" aria-live="polite" aria-relevant="additions text"></ol>
    </section>
  </div>
  <section class="panel wide" aria-labelledby="h-tools">
    <h2 id="h-tools">Tools <span class="count" id="tools-window">last 24 h</span></h2>
    <div id="tool-table"><p class="empty">Loading…</p></div>
    <div class="charts">
      <figure><figcaption id="cap-latency-tool">Latency by tool (p50 / p95, ms)</figcaption><div id="chart-latency-tool"></div></figure>
      <figure><figcaption id="cap-latency-time">Latency over time (avg / max, ms)</figcaption><div id="chart-latency-time"></div></figure>
      <figure><figcaption id="cap-success-time">Success rate over time (%)</figcaption><div id="chart-success-time"></div></figure>
    </div>
  </section>${LONG_LIVED_HTML}${KEYS_HTML}
</main>
</body>
</html>`;
