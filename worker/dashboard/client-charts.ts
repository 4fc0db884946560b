/** The dashboard script's tool metrics table and SVG charts: a fragment that client-script.ts splices in. */
// biome-ignore lint/complexity/noUselessStringRaw: raw like the rest of the script, so a "\n" stays as written
export const CHARTS_JS = String.raw`
  // ---- tool metrics and charts ----------------------------------------------------------------
  function renderToolTable(report) {
    var tools = (report.tools && report.tools.overall) || [];
    if (tools.length === 0) return replace("tool-table", el("p", { "class": "empty", text: "No tool calls yet." }));
    var body = el("tbody");
    tools.forEach(function (t) {
      var rate = t.total_calls ? Math.round((t.success_count / t.total_calls) * 1000) / 10 : 0;
      body.appendChild(el("tr", {},
        el("td", { "class": "mono", text: t.tool }),
        el("td", { "class": "num", text: String(t.total_calls) }),
        el("td", { "class": "num" }, el("span", { "class": "badge " + (rate >= 99.5 ? "ok" : rate >= 80 ? "warn" : "bad"), text: rate + "%" })),
        el("td", { "class": "num", text: ms(t.latency_ms.p50) }),
        el("td", { "class": "num", text: ms(t.latency_ms.p95) }),
        el("td", { "class": "num", text: String(t.error_count) }),
        el("td", { "class": "clip", title: t.last_error || "", text: t.last_error ? clip(t.last_error, 80) : "—" })));
    });
    replace("tool-table", el("table", {},
      el("thead", {}, el("tr", {}, el("th", { scope: "col", text: "Tool" }), el("th", { scope: "col", "class": "num", text: "Calls" }), el("th", { scope: "col", "class": "num", text: "Success" }), el("th", { scope: "col", "class": "num", text: "p50" }), el("th", { scope: "col", "class": "num", text: "p95" }), el("th", { scope: "col", "class": "num", text: "Errors" }), el("th", { scope: "col", text: "Last error" }))),
      body));
  }

  function chartFrame(labelledBy, summary, width, height) {
    var root = svg("svg", { "class": "chart", viewBox: "0 0 " + width + " " + height, role: "img", "aria-labelledby": labelledBy });
    root.appendChild(svg("desc", { text: summary }));
    return root;
  }
  function niceMax(v) {
    if (v <= 0) return 1;
    var p = Math.pow(10, Math.floor(Math.log10(v)));
    var n = v / p;
    return (n <= 1 ? 1 : n <= 2 ? 2 : n <= 5 ? 5 : 10) * p;
  }
  function axis(root, left, top, w, h, max, fmt) {
    for (var i = 0; i <= 4; i++) {
      var y = top + h - (h * i) / 4;
      root.appendChild(svg("line", { "class": "grid", x1: left, x2: left + w, y1: y, y2: y }));
      root.appendChild(svg("text", { x: left - 4, y: y + 3, "text-anchor": "end", text: fmt((max * i) / 4) }));
    }
  }
  function emptyChart(id, text) { replace(id, el("p", { "class": "empty", text: text })); }

  function latencyByTool(report) {
    var tools = ((report.tools && report.tools.overall) || []).slice(0, 12);
    if (tools.length === 0) return emptyChart("chart-latency-tool", "No tool calls yet.");
    var W = 420, rowH = 22, left = 96, top = 8, w = W - left - 50, H = top + tools.length * rowH + 20;
    var max = niceMax(Math.max.apply(null, tools.map(function (t) { return t.latency_ms.p95; })));
    var root = chartFrame("cap-latency-tool", tools.map(function (t) { return t.tool + ": p50 " + t.latency_ms.p50 + " ms, p95 " + t.latency_ms.p95 + " ms"; }).join("; "), W, H);
    tools.forEach(function (t, i) {
      var y = top + i * rowH;
      root.appendChild(svg("text", { x: left - 6, y: y + 13, "text-anchor": "end", text: clip(t.tool, 16) }));
      root.appendChild(svg("rect", { x: left, y: y + 3, width: Math.max(1, (t.latency_ms.p95 / max) * w), height: 14, rx: 2, fill: "#b9d0f2" }));
      root.appendChild(svg("rect", { x: left, y: y + 3, width: Math.max(1, (t.latency_ms.p50 / max) * w), height: 14, rx: 2, fill: "#1f5fbf" }));
      root.appendChild(svg("text", { x: left + Math.max(1, (t.latency_ms.p95 / max) * w) + 4, y: y + 13, text: ms(t.latency_ms.p95) }));
    });
    root.appendChild(svg("text", { x: left, y: H - 4, text: "dark: p50 · light: p95 · axis to " + ms(max) }));
    replace("chart-latency-tool", root);
  }

  /** Audit rows into at most 24 equal time buckets, the bucket size picked from a short list. */
  function buckets(entries) {
    var times = entries.map(function (e) { return Date.parse(e.timestamp); });
    var now = Date.now(), first = Math.min.apply(null, times);
    var sizes = [10e3, 30e3, 60e3, 300e3, 900e3, 3600e3, 10800e3];
    var span = function (sz) { return Math.ceil(now / sz) - Math.floor(first / sz); };
    var size = sizes[sizes.length - 1];
    for (var i = 0; i < sizes.length; i++) if (span(sizes[i]) <= 24) { size = sizes[i]; break; }
    var end = Math.ceil(now / size) * size, count = Math.max(6, Math.min(24, span(size)));
    var start = end - count * size, out = [];
    for (var b = 0; b < count; b++) out.push({ t: start + b * size, n: 0, ok: 0, sum: 0, max: 0 });
    entries.forEach(function (e, i) {
      var k = Math.floor((times[i] - start) / size);
      if (k < 0 || k >= count) return;
      var bk = out[k];
      bk.n++; if (e.result === "success") bk.ok++;
      var ms2 = e.elapsed_ms || 0; bk.sum += ms2; bk.max = Math.max(bk.max, ms2);
    });
    return { list: out, size: size };
  }
  function timeLabel(t, size) {
    var d = new Date(t);
    var hh = String(d.getHours()).padStart(2, "0"), mm = String(d.getMinutes()).padStart(2, "0"), ss = String(d.getSeconds()).padStart(2, "0");
    return size < 60e3 ? hh + ":" + mm + ":" + ss : hh + ":" + mm;
  }
  function overTime(entries) {
    if (entries.length === 0) { emptyChart("chart-latency-time", "No tool calls in the audit log yet."); emptyChart("chart-success-time", "No tool calls in the audit log yet."); return; }
    var B = buckets(entries), list = B.list;
    var W = 420, H = 176, left = 46, top = 14, w = W - left - 8, h = H - top - 34, bw = w / list.length;
    // latency: average bar, max tick
    var max = niceMax(Math.max.apply(null, list.map(function (b) { return b.max; })));
    var lat = chartFrame("cap-latency-time", "Average and maximum tool latency per " + ms(B.size) + " bucket", W, H);
    axis(lat, left, top, w, h, max, function (v) { return v >= 1000 ? (v / 1000) + " s" : Math.round(v) + " ms"; });
    list.forEach(function (b, i) {
      var x = left + i * bw;
      if (b.n) {
        var avg = b.sum / b.n;
        var ah = (avg / max) * h, mh = (b.max / max) * h;
        lat.appendChild(svg("rect", { x: x + bw * 0.18, y: top + h - ah, width: bw * 0.64, height: Math.max(1, ah), rx: 1.5, fill: "#1f5fbf" }));
        lat.appendChild(svg("line", { x1: x + bw * 0.12, x2: x + bw * 0.88, y1: top + h - mh, y2: top + h - mh, stroke: "#b42318", "stroke-width": 2 }));
      }
      if (i % Math.ceil(list.length / 6) === 0) lat.appendChild(svg("text", { x: x + bw / 2, y: H - 18, "text-anchor": "middle", text: timeLabel(b.t, B.size) }));
    });
    lat.appendChild(svg("text", { x: left, y: H - 3, text: "bar: average · red tick: max · " + ms(B.size) + " buckets" }));
    replace("chart-latency-time", lat);
    // success rate
    var ok = chartFrame("cap-success-time", list.filter(function (b) { return b.n; }).map(function (b) { return timeLabel(b.t, B.size) + ": " + b.ok + " of " + b.n + " succeeded"; }).join("; "), W, H);
    axis(ok, left, top, w, h, 100, function (v) { return Math.round(v) + "%"; });
    list.forEach(function (b, i) {
      var x = left + i * bw;
      if (b.n) {
        var rate = b.ok / b.n, rh = rate * h;
        ok.appendChild(svg("rect", { x: x + bw * 0.18, y: top + h - rh, width: bw * 0.64, height: Math.max(1, rh), rx: 1.5, fill: rate >= 0.995 ? "#17794a" : rate >= 0.8 ? "#c98a00" : "#b42318" }));
        ok.appendChild(svg("text", { x: x + bw / 2, y: top + h - rh - 3, "text-anchor": "middle", text: String(b.n) }));
      }
      if (i % Math.ceil(list.length / 6) === 0) ok.appendChild(svg("text", { x: x + bw / 2, y: H - 18, "text-anchor": "middle", text: timeLabel(b.t, B.size) }));
    });
    ok.appendChild(svg("text", { x: left, y: H - 3, text: "height: share of calls that succeeded · label: calls" }));
    replace("chart-success-time", ok);
  }
`;
