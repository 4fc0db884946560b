/** The dashboard's stylesheet, served at /dashboard.css (the CSP allows styles from 'self' only). */
export const DASHBOARD_CSS = `
:root {
  --bg: #f4f6f9; --panel: #ffffff; --ink: #17202c; --muted: #566274; --line: #dde3ea;
  --accent: #1f5fbf; --accent-ink: #ffffff; --ok: #17794a; --ok-bg: #e3f4ea; --warn: #8a5a00; --warn-bg: #fff3d6;
  --bad: #b42318; --bad-bg: #fde8e6; --run: #1f5fbf; --run-bg: #e5eefb; --head: #122033;
  --mono: ui-monospace, "SF Mono", Menlo, Consolas, "DejaVu Sans Mono", monospace;
  color-scheme: light;
}
* { box-sizing: border-box; }
html, body { margin: 0; background: var(--bg); color: var(--ink); font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; }
a { color: var(--accent); }
.skip { position: absolute; left: -999px; top: 0; background: var(--panel); padding: 8px 12px; z-index: 10; }
.skip:focus { left: 8px; }
:focus-visible { outline: 3px solid #f0a500; outline-offset: 2px; }
header.top { display: flex; align-items: center; gap: 16px; padding: 10px 20px; background: var(--head); color: #fff; }
header.top h1 { font-size: 18px; margin: 0; letter-spacing: .02em; }
header.top h1 span { color: #8fb8ff; font-weight: 400; }
header.top .health { margin: 0; flex: 1; color: #d2dbe7; font-size: 13px; }
header.top .health .dot { margin-right: 6px; }
header.top form { margin: 0; }
button { font: inherit; cursor: pointer; border-radius: 6px; border: 1px solid var(--line); background: var(--panel); color: var(--ink); padding: 5px 12px; }
button:hover { border-color: #9fb0c4; }
button.primary { background: var(--accent); border-color: var(--accent); color: var(--accent-ink); }
button.approve { background: var(--ok); border-color: var(--ok); color: #fff; }
button.deny { background: var(--panel); border-color: var(--bad); color: var(--bad); }
button.link { white-space: nowrap; border: 0; background: none; padding: 0; color: var(--accent); text-decoration: underline; font-family: var(--mono); font-size: 12px; }
header.top button { background: transparent; color: #fff; border-color: #4b5d76; }
main { display: grid; grid-template-columns: minmax(320px, 5fr) minmax(360px, 7fr); gap: 16px; padding: 16px 20px 28px; max-width: 1500px; margin: 0 auto; }
.col { display: flex; flex-direction: column; gap: 16px; min-width: 0; }
.wide { grid-column: 1 / -1; }
section.panel { background: var(--panel); border: 1px solid var(--line); border-radius: 10px; padding: 14px 16px; min-width: 0; }
section.panel > h2 { font-size: 13px; text-transform: uppercase; letter-spacing: .06em; color: var(--muted); margin: 0 0 10px; display: flex; align-items: center; gap: 8px; }
section.panel > h2 .count { background: var(--bg); color: var(--ink); border-radius: 999px; padding: 0 8px; font-size: 12px; letter-spacing: 0; }
.empty { color: var(--muted); margin: 4px 0; }
table { width: 100%; border-collapse: collapse; font-size: 13px; }
th { text-align: left; font-weight: 600; color: var(--muted); border-bottom: 1px solid var(--line); padding: 4px 8px 6px 0; }
td { border-bottom: 1px solid #eef1f5; padding: 6px 8px 6px 0; vertical-align: top; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.selected td { background: var(--run-bg); }
.mono { font-family: var(--mono); font-size: 12px; }
.table-wrap { overflow-x: auto; }
td.nowrap, th { white-space: nowrap; }
.clip { max-width: 150px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.badge { display: inline-block; border-radius: 999px; padding: 1px 9px; font-size: 12px; font-weight: 600; white-space: nowrap; }
.badge.ok { background: var(--ok-bg); color: var(--ok); }
.badge.bad { background: var(--bad-bg); color: var(--bad); }
.badge.warn { background: var(--warn-bg); color: var(--warn); }
.badge.run { background: var(--run-bg); color: var(--run); }
.badge.off { background: #eceff3; color: var(--muted); }
.dot { display: inline-block; width: 9px; height: 9px; border-radius: 50%; background: #9aa5b4; vertical-align: 1px; }
.dot.on { background: #22a55b; box-shadow: 0 0 0 3px #22a55b33; }
.chips { display: flex; flex-wrap: wrap; gap: 4px; }
.chip { font-family: var(--mono); font-size: 11px; background: #eef2f7; border: 1px solid #e1e7ef; border-radius: 4px; padding: 0 5px; }
.approval { border: 1px solid #f1d48b; background: var(--warn-bg); border-radius: 8px; padding: 10px 12px; margin-bottom: 8px; }
.approval .what { margin: 0 0 6px; }
.approval pre, .timeline pre { margin: 6px 0; white-space: pre-wrap; word-break: break-word; font-family: var(--mono); font-size: 12px; background: #f7f9fc; border: 1px solid #e7ecf2; border-radius: 6px; padding: 6px 8px; max-height: 180px; overflow: auto; }
.actions { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; }
.actions input { font: inherit; padding: 4px 8px; border: 1px solid #b9c4d2; border-radius: 6px; min-width: 160px; }
.timeline-head { display: flex; align-items: center; gap: 10px; margin: -4px 0 10px; flex-wrap: wrap; }
.timeline { list-style: none; margin: 0; padding: 0 0 0 14px; border-left: 2px solid var(--line); }
.timeline li { position: relative; margin: 0 0 12px; padding: 8px 12px; background: #fbfcfe; border: 1px solid var(--line); border-radius: 8px; }
.timeline li::before { content: ""; position: absolute; left: -21px; top: 13px; width: 10px; height: 10px; border-radius: 50%; background: #9aa5b4; border: 2px solid var(--panel); }
.timeline li.user::before { background: var(--head); }
.timeline li.llm::before { background: #7a5af5; }
.timeline li.tool::before { background: var(--run); }
.timeline li.tool.done::before { background: var(--ok); }
.timeline li.error { border-color: #f3b5ae; background: var(--bad-bg); }
.timeline li.error::before { background: var(--bad); }
.timeline li.wait { border-color: #f1d48b; background: var(--warn-bg); }
.timeline li.wait::before { background: #e0a100; }
.timeline li.reply { border-color: #a9dcbf; background: var(--ok-bg); }
.timeline li.reply::before { background: var(--ok); }
.timeline .kind { font-size: 11px; text-transform: uppercase; letter-spacing: .06em; color: var(--muted); font-weight: 700; margin-right: 6px; }
.timeline .meta { color: var(--muted); font-size: 12px; margin-left: 6px; }
.timeline .text { margin: 4px 0 0; white-space: pre-wrap; word-break: break-word; }
.bar { height: 6px; background: #e7ecf3; border-radius: 3px; margin-top: 6px; overflow: hidden; }
.bar > span.pending { width: 30%; background: repeating-linear-gradient(90deg, #b9d0f2 0 8px, #dbe6f7 8px 16px); }
.bar > span { display: block; height: 100%; background: var(--run); border-radius: 3px; min-width: 2px; }
.timeline li.error .bar > span { background: var(--bad); }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(300px, 1fr)); gap: 16px; margin-top: 12px; }
figure { margin: 0; }
figcaption { font-size: 12px; color: var(--muted); font-weight: 600; margin-bottom: 4px; }
svg.chart { width: 100%; height: auto; display: block; }
svg.chart text { font: 10px system-ui, sans-serif; fill: #566274; }
svg.chart .grid { stroke: #e6ebf1; }
.legend { font-size: 12px; color: var(--muted); display: flex; gap: 12px; }
.legend i { display: inline-block; width: 10px; height: 10px; border-radius: 2px; vertical-align: -1px; margin-right: 4px; }
.error-text { color: var(--bad); }
.chat { display: grid; grid-template-columns: auto 1fr; gap: 8px 10px; align-items: start; }
.chat label { font-weight: 600; color: var(--muted); padding-top: 5px; }
.chat select, .chat textarea { font: inherit; padding: 5px 8px; border: 1px solid #b9c4d2; border-radius: 6px; width: 100%; min-width: 0; background: var(--panel); color: var(--ink); }
.chat textarea { resize: vertical; }
.chat .actions { grid-column: 2; }
.login { max-width: 380px; margin: 12vh auto; background: var(--panel); border: 1px solid var(--line); border-radius: 12px; padding: 28px; }
.login h1 { margin: 0 0 4px; font-size: 22px; }
.login p { color: var(--muted); margin: 0 0 18px; }
.login label { display: block; font-weight: 600; margin-bottom: 6px; }
.login input { width: 100%; font: inherit; padding: 8px 10px; border: 1px solid #b9c4d2; border-radius: 6px; margin-bottom: 14px; }
.login .error { color: var(--bad); background: var(--bad-bg); border-radius: 6px; padding: 6px 10px; }
@media (max-width: 900px) { main { grid-template-columns: 1fr; } }
`;
