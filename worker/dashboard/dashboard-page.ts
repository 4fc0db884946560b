/**
 * The dashboard's HTML shell: landmarks and empty regions that the browser modules in
 * public/dashboard/ (served as static assets, main.js first) fill from the API. Nothing here is
 * data, so it can be a constant.
 */
export const DASHBOARD_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>edgeloop — dashboard</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/dashboard/dashboard.css">
<link rel="stylesheet" href="/dashboard/panels.css">
<script type="module" src="/dashboard/main.js"></script>
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
    <section class="panel" aria-labelledby="h-pairing">
      <h2 id="h-pairing">Waiting to pair <span class="count" id="pairing-count">0</span></h2>
      <div id="pairing-status" role="status" aria-live="polite"></div>
      <div id="pairing"><p class="empty">Loading…</p></div>
      <form class="actions" id="openclaw-form" aria-label="Add an OpenClaw node">
        <input id="openclaw-agent" type="text" placeholder="node's id" aria-label="Device id for an OpenClaw node" maxlength="64" required>
        <button type="submit">Get the OpenClaw line</button>
      </form>
      <div id="openclaw-lines" role="status" aria-live="polite"></div>
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
        <fieldset id="chat-fleet" class="chat-fleet" hidden><legend>Devices: the topmost ticked is the conversation's home</legend><div id="chat-fleet-devices"></div></fieldset>
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
  </section>
  <section class="panel wide" aria-labelledby="h-schedules">
    <h2 id="h-schedules">Schedules <span class="count" id="schedules-count">0</span></h2>
    <form class="actions" id="schedule-form" aria-label="New schedule">
      <input id="schedule-agent" type="text" placeholder="pi-1 or pi-1,pi-2" aria-label="Device id, or several comma-separated (a fleet)" required>
      <input id="schedule-text" type="text" placeholder="message text" aria-label="Message text" required>
      <input id="schedule-when" type="text" placeholder="cron or seconds" aria-label="Cron expression or interval in seconds" required>
      <button type="submit" class="primary">Schedule</button>
    </form>
    <div id="schedules"><p class="empty">Loading…</p></div>
  </section>
  <section class="panel wide" aria-labelledby="h-rules">
    <h2 id="h-rules">Approval rules <span class="count" id="rules-count">0</span></h2>
    <div id="rules"><p class="empty">Loading…</p></div>
  </section>
  <section class="panel wide" aria-labelledby="h-tokens">
    <h2 id="h-tokens">Device tokens <span class="count" id="tokens-count">0</span></h2>
    <form class="actions" id="token-form" aria-label="New device token">
      <input id="token-agent" type="text" placeholder="device id (pi-1)" aria-label="Device id for a new token" maxlength="64" required>
      <button type="submit" class="primary">Issue device token</button>
    </form>
    <div id="token-issued" role="status" aria-live="polite"></div>
    <div id="device-tokens"><p class="empty">Loading…</p></div>
  </section>
  <section class="panel wide" aria-labelledby="h-keys">
    <h2 id="h-keys">API keys <span class="count" id="keys-count">0</span></h2>
    <form class="actions" id="key-form" aria-label="New API key">
      <input id="key-name" type="text" placeholder="name (tenant)" aria-label="Key name" maxlength="64" required>
      <input id="key-agents" type="text" placeholder="pi-1,pi-2 or *" aria-label="Devices the key may use, comma-separated, * for every device">
      <input id="key-pools" type="text" placeholder="pools: kitchen" aria-label="Pools the key may use, comma-separated">
      <input id="key-scopes" type="text" placeholder="scopes (blank: all)" aria-label="Scopes, comma-separated; blank for all">
      <button type="submit" class="primary">Issue key</button>
    </form>
    <div id="key-issued" role="status" aria-live="polite"></div>
    <div id="keys"><p class="empty">Loading…</p></div>
  </section>
  <section class="panel wide" aria-labelledby="h-mcp-grants">
    <h2 id="h-mcp-grants">Apps using MCP <span class="count" id="mcp-grants-count">0</span></h2>
    <div id="mcp-grant-status" role="status" aria-live="polite"></div>
    <div id="mcp-grants"><p class="empty">Loading…</p></div>
  </section>
  <section class="panel wide" aria-labelledby="h-mcp-servers">
    <h2 id="h-mcp-servers">Remote MCP servers <span class="count" id="mcp-servers-count">0</span></h2>
    <div id="mcp-server-status" role="status" aria-live="polite"></div>
    <div id="mcp-servers"><p class="empty">Loading…</p></div>
  </section>
  <section class="panel wide" aria-labelledby="h-channels">
    <h2 id="h-channels">Chat channels <span class="count" id="pairings-count">0</span></h2>
    <div id="channel-platforms"><p class="empty">Loading…</p></div>
    <form class="actions" id="pairing-form" aria-label="Approve a pairing code">
      <input id="pairing-code" type="text" placeholder="pairing code" aria-label="Pairing code" maxlength="9" required>
      <input id="pairing-agents" type="text" placeholder="devices: pi-1 or *" aria-label="Devices the chat user may use, comma-separated">
      <input id="pairing-pools" type="text" placeholder="pools: kitchen" aria-label="Pools the chat user may use, comma-separated">
      <button type="submit" class="primary">Approve code</button>
    </form>
    <div id="pairing-result" role="status" aria-live="polite"></div>
    <div id="channel-pairings"></div>
    <div id="channel-grants"></div>
    <div id="channel-audit"></div>
  </section>
</main>
</body>
</html>`;
