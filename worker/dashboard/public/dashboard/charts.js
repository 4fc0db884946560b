// @ts-check
/** The tool metrics table and the charts, drawn as inline SVG. */
import { el, replace, svg, table } from "./dom.js";
import { clip, ms } from "./format.js";

/** @param {any} report GET /v1/metrics */
export function renderToolTable(report) {
  const tools = report.tools?.overall || [];
  if (tools.length === 0) return replace("tool-table", el("p", { class: "empty", text: "No tool calls yet." }));
  const body = el("tbody");
  for (const t of tools) {
    const rate = t.total_calls ? Math.round((t.success_count / t.total_calls) * 1000) / 10 : 0;
    const rateClass = rate >= 99.5 ? "ok" : rate >= 80 ? "warn" : "bad";
    body.appendChild(
      el(
        "tr",
        {},
        el("td", { class: "mono", text: t.tool }),
        el("td", { class: "num", text: String(t.total_calls) }),
        el("td", { class: "num" }, el("span", { class: `badge ${rateClass}`, text: `${rate}%` })),
        el("td", { class: "num", text: ms(t.latency_ms.p50) }),
        el("td", { class: "num", text: ms(t.latency_ms.p95) }),
        el("td", { class: "num", text: String(t.error_count) }),
        el("td", { class: "clip", title: t.last_error || "", text: t.last_error ? clip(t.last_error, 80) : "—" }),
      ),
    );
  }
  const num = /** @param {string} h @returns {[string, string]} */ (h) => [h, "num"];
  replace(
    "tool-table",
    table(["Tool", num("Calls"), num("Success"), num("p50"), num("p95"), num("Errors"), "Last error"], body),
  );
}

/**
 * @param {string} labelledBy
 * @param {string} summary
 * @param {number} width
 * @param {number} height
 */
function chartFrame(labelledBy, summary, width, height) {
  const root = svg("svg", {
    class: "chart",
    viewBox: `0 0 ${width} ${height}`,
    role: "img",
    "aria-labelledby": labelledBy,
  });
  root.appendChild(svg("desc", { text: summary }));
  return root;
}

/** @param {number} v */
function niceMax(v) {
  if (v <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  const n = v / p;
  return (n <= 1 ? 1 : n <= 2 ? 2 : n <= 5 ? 5 : 10) * p;
}

/**
 * @param {SVGElement} root
 * @param {number} left
 * @param {number} top
 * @param {number} w
 * @param {number} h
 * @param {number} max
 * @param {(v: number) => string} fmt
 */
function axis(root, left, top, w, h, max, fmt) {
  for (let i = 0; i <= 4; i++) {
    const y = top + h - (h * i) / 4;
    root.appendChild(svg("line", { class: "grid", x1: left, x2: left + w, y1: y, y2: y }));
    root.appendChild(svg("text", { x: left - 4, y: y + 3, "text-anchor": "end", text: fmt((max * i) / 4) }));
  }
}

/** @param {string} id @param {string} text */
const emptyChart = (id, text) => replace(id, el("p", { class: "empty", text }));

/** @param {any} report GET /v1/metrics */
export function latencyByTool(report) {
  /** @type {any[]} */
  const tools = (report.tools?.overall || []).slice(0, 12);
  if (tools.length === 0) return emptyChart("chart-latency-tool", "No tool calls yet.");
  const W = 420;
  const rowH = 22;
  const left = 96;
  const top = 8;
  const w = W - left - 50;
  const H = top + tools.length * rowH + 20;
  const max = niceMax(Math.max(...tools.map((t) => t.latency_ms.p95)));
  const summary = tools.map((t) => `${t.tool}: p50 ${t.latency_ms.p50} ms, p95 ${t.latency_ms.p95} ms`).join("; ");
  const root = chartFrame("cap-latency-tool", summary, W, H);
  tools.forEach((t, i) => {
    const y = top + i * rowH;
    const p95 = Math.max(1, (t.latency_ms.p95 / max) * w);
    root.appendChild(svg("text", { x: left - 6, y: y + 13, "text-anchor": "end", text: clip(t.tool, 16) }));
    root.appendChild(svg("rect", { x: left, y: y + 3, width: p95, height: 14, rx: 2, fill: "#b9d0f2" }));
    const p50 = Math.max(1, (t.latency_ms.p50 / max) * w);
    root.appendChild(svg("rect", { x: left, y: y + 3, width: p50, height: 14, rx: 2, fill: "#1f5fbf" }));
    root.appendChild(svg("text", { x: left + p95 + 4, y: y + 13, text: ms(t.latency_ms.p95) }));
  });
  root.appendChild(svg("text", { x: left, y: H - 4, text: `dark: p50 · light: p95 · axis to ${ms(max)}` }));
  replace("chart-latency-tool", root);
}

/** @typedef {{ t: number, n: number, ok: number, sum: number, max: number }} Bucket */

/**
 * Audit rows into at most 24 equal time buckets, the bucket size picked from a short list.
 * @param {any[]} entries
 * @returns {{ list: Bucket[], size: number }}
 */
function buckets(entries) {
  const times = entries.map((e) => Date.parse(e.timestamp));
  const now = Date.now();
  const first = Math.min(...times);
  const sizes = [10e3, 30e3, 60e3, 300e3, 900e3, 3600e3, 10800e3];
  /** @param {number} sz */
  const span = (sz) => Math.ceil(now / sz) - Math.floor(first / sz);
  const size = sizes.find((sz) => span(sz) <= 24) ?? 10800e3;
  const end = Math.ceil(now / size) * size;
  const count = Math.max(6, Math.min(24, span(size)));
  const start = end - count * size;
  /** @type {Bucket[]} */
  const out = [];
  for (let b = 0; b < count; b++) out.push({ t: start + b * size, n: 0, ok: 0, sum: 0, max: 0 });
  entries.forEach((e, i) => {
    const bk = out[Math.floor(((times[i] ?? 0) - start) / size)];
    if (!bk) return;
    bk.n++;
    if (e.result === "success") bk.ok++;
    const elapsed = e.elapsed_ms || 0;
    bk.sum += elapsed;
    bk.max = Math.max(bk.max, elapsed);
  });
  return { list: out, size };
}

/**
 * @param {number} t
 * @param {number} size
 */
function timeLabel(t, size) {
  const d = new Date(t);
  const two = /** @param {number} n */ (n) => String(n).padStart(2, "0");
  const hhmm = `${two(d.getHours())}:${two(d.getMinutes())}`;
  return size < 60e3 ? `${hhmm}:${two(d.getSeconds())}` : hhmm;
}

/** @param {any[]} entries GET /v1/audit rows */
export function overTime(entries) {
  if (entries.length === 0) {
    emptyChart("chart-latency-time", "No tool calls in the audit log yet.");
    emptyChart("chart-success-time", "No tool calls in the audit log yet.");
    return;
  }
  const B = buckets(entries);
  const list = B.list;
  const W = 420;
  const H = 176;
  const left = 46;
  const top = 14;
  const w = W - left - 8;
  const h = H - top - 34;
  const bw = w / list.length;
  /** @param {SVGElement} root @param {number} i @param {Bucket} b */
  const label = (root, i, b) => {
    if (i % Math.ceil(list.length / 6) === 0)
      root.appendChild(
        svg("text", { x: left + i * bw + bw / 2, y: H - 18, "text-anchor": "middle", text: timeLabel(b.t, B.size) }),
      );
  };
  // latency: average bar, max tick
  const max = niceMax(Math.max(...list.map((b) => b.max)));
  const lat = chartFrame("cap-latency-time", `Average and maximum tool latency per ${ms(B.size)} bucket`, W, H);
  axis(lat, left, top, w, h, max, (v) => (v >= 1000 ? `${v / 1000} s` : `${Math.round(v)} ms`));
  list.forEach((b, i) => {
    const x = left + i * bw;
    if (b.n) {
      const ah = (b.sum / b.n / max) * h;
      const mh = (b.max / max) * h;
      lat.appendChild(
        svg("rect", {
          x: x + bw * 0.18,
          y: top + h - ah,
          width: bw * 0.64,
          height: Math.max(1, ah),
          rx: 1.5,
          fill: "#1f5fbf",
        }),
      );
      lat.appendChild(
        svg("line", {
          x1: x + bw * 0.12,
          x2: x + bw * 0.88,
          y1: top + h - mh,
          y2: top + h - mh,
          stroke: "#b42318",
          "stroke-width": 2,
        }),
      );
    }
    label(lat, i, b);
  });
  lat.appendChild(svg("text", { x: left, y: H - 3, text: `bar: average · red tick: max · ${ms(B.size)} buckets` }));
  replace("chart-latency-time", lat);
  // success rate
  const summary = list
    .filter((b) => b.n)
    .map((b) => `${timeLabel(b.t, B.size)}: ${b.ok} of ${b.n} succeeded`)
    .join("; ");
  const ok = chartFrame("cap-success-time", summary, W, H);
  axis(ok, left, top, w, h, 100, (v) => `${Math.round(v)}%`);
  list.forEach((b, i) => {
    const x = left + i * bw;
    if (b.n) {
      const rate = b.ok / b.n;
      const rh = rate * h;
      const fill = rate >= 0.995 ? "#17794a" : rate >= 0.8 ? "#c98a00" : "#b42318";
      ok.appendChild(
        svg("rect", { x: x + bw * 0.18, y: top + h - rh, width: bw * 0.64, height: Math.max(1, rh), rx: 1.5, fill }),
      );
      ok.appendChild(svg("text", { x: x + bw / 2, y: top + h - rh - 3, "text-anchor": "middle", text: String(b.n) }));
    }
    label(ok, i, b);
  });
  ok.appendChild(svg("text", { x: left, y: H - 3, text: "height: share of calls that succeeded · label: calls" }));
  replace("chart-success-time", ok);
}
