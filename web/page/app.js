// app.js - memwatch's chart page: the leak verdicts (the page opens on
// them), a uPlot chart of any selector with zoom and live follow, the
// per-process breakdown bar, the address-space view and the process table
// with filter, pages and growth rates.  Everything comes from this daemon's JSON API;
// nothing is fetched from anywhere else.
"use strict";

const $ = (id) => document.getElementById(id);
const state = {
  sort: "private_bytes", pid: null, started: null, name: null, plot: null, zoomed: false,
  offset: 0, pageSize: 100, filter: "", leak: null, leaksTo: null,
};
const TOP = 20;	// a selector matching more series draws the TOP fastest growers

// Breakdown kinds (HeapPeep's bar, from memwatch_heap_breakdown_bytes{kind}) and
// address-space states (VirtualMemory.exe's view, from memwatch_vm_bytes).
const KINDS = [
  ["heap_used", "#d6604d"], ["heap_free", "#f4a582"], ["stack_committed", "#8c6bb1"], ["stack_reserved", "#cab2d6"],
  ["image", "#6c8ebf"], ["static_data", "#17becf"], ["private_other", "#4daf4a"], ["mapped", "#e6ab02"],
];
const STATES = ["committed", "reserved", "free"];

function bytes(v, extra) {
  if (v === null || v === undefined || Number.isNaN(v)) return "–";
  const a = Math.abs(v), u = ["B", "KiB", "MiB", "GiB", "TiB"];
  let i = 0, x = a;
  while (x >= 1024 && i < u.length - 1) { x /= 1024; i++; }
  return (v < 0 ? "-" : "") + (i ? x.toFixed((x < 10 ? 2 : x < 100 ? 1 : 0) + (extra || 0)) : x) + " " + u[i];
}

async function getJSON(url) {
  const r = await fetch(url, { cache: "no-store" });
  const body = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(body.error || r.status + " " + r.statusText);
  return body;
}

function quote(v) { return '"' + String(v).replace(/\\/g, "\\\\").replace(/"/g, '\\"') + '"'; }
function el(tag, attrs, text) {
  const e = document.createElement(tag);
  for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
  if (text !== undefined) e.textContent = text;
  return e;
}

// ---- health ---------------------------------------------------------------
async function loadHealth() {
  try {
    const h = await getJSON("/healthz");
    const c = await getJSON("/api/v1/collectors");
    const bad = c.collectors.filter((x) => x.enabled && (!x.supported || x.failing));
    $("health").textContent = `v${h.version}, up ${Math.round(h.uptime_s / 60)} min, ` +
      `${c.collectors.length} collectors` + (bad.length ? `, ${bad.length} not working` : "");
  } catch (e) { $("health").textContent = "daemon unreachable: " + e.message; }
}

// ---- process table --------------------------------------------------------
function num(v) { return Number(v).toLocaleString("en-US"); }
function ms2text(ms) {
  const m = Math.round(ms / 60000);
  if (m < 1) return Math.max(0, Math.round(ms / 1000)) + " s";
  if (m < 60 || (m < 120 && m % 60)) return m + " min";
  const h = ms / 3600000;
  return (h < 48 ? +h.toFixed(h < 10 ? 1 : 0) + " h" : +(h / 24).toFixed(1) + " d");
}
function rate(v) {
  if (v === null || v === undefined) return "–";
  return (v > 0 ? "+" : "") + bytes(v) + "/h";
}
function rateCell(v, p) {
  const td = el("td", { class: "num " + (v > 0 ? "up" : v < 0 ? "down" : "") }, rate(v));
  td.title = v === null || v === undefined
    ? `no rate: ${p.growth_floors || 0} one-minute floors in the window, at least 5 needed`
    : `Theil-Sen slope of ${p.growth_floors} floors over ${ms2text(p.growth_span_ms)}`;
  return td;
}

async function loadProcesses() {
  const q = new URLSearchParams({ sort: state.sort, limit: state.pageSize, offset: state.offset,
    window: $("proc-window").value });
  if (state.filter) q.set("filter", state.filter);
  const url = "/api/v1/processes?" + q;
  $("proc-json").href = url;
  let data;
  try { data = await getJSON(url); } catch (e) { $("proc-count").textContent = e.message; return; }
  if (data.offset > 0 && data.offset >= data.matched) {	// the page emptied (filter, exits)
    state.offset = Math.max(0, Math.floor((data.matched - 1) / state.pageSize) * state.pageSize);
    if (data.matched) return loadProcesses();
  }
  const tb = $("processes").tBodies[0];
  tb.replaceChildren();
  let span = 0;
  for (const p of data.processes) {
    const tr = el("tr");
    tr.dataset.pid = p.pid;
    if (p.pid === state.pid) tr.className = "selected";
    span = Math.max(span, p.growth_span_ms || 0);
    tr.append(el("td", {}, p.process), el("td", {}, p.pid),
      el("td", { class: "num" }, bytes(p.private_bytes)),
      el("td", { class: "num" }, bytes(p.working_set_bytes)),
      rateCell(p.private_rate_bytes_per_hour, p), rateCell(p.working_set_rate_bytes_per_hour, p),
      el("td", { class: "num" }, bytes(p.virtual_bytes)),
      el("td", { class: "num" }, p.handles ?? "–"), el("td", { class: "num" }, p.threads ?? "–"));
    tr.addEventListener("click", () => selectProcess(p));
    tb.append(tr);
  }
  // The header says what the rates cover: the window, or less when the
  // data is younger than it.
  const win = data.window_ms || 3600000;
  $("rate-head").textContent = "private rate, last " + ms2text(span && span < win - 90000 ? span : win);
  $("proc-count").textContent = `${num(data.total)} processes` +
    (state.filter ? `, ${num(data.matched)} match '${state.filter}'` : "");
  const first = data.processes.length ? data.offset + 1 : 0;
  $("proc-page").textContent = `${num(first)}–${num(data.offset + data.processes.length)} of ${num(data.matched)}`;
  $("proc-prev").disabled = data.offset <= 0;
  $("proc-next").disabled = data.offset + data.processes.length >= data.matched;
  for (const th of document.querySelectorAll("th.sortable"))
    th.classList.toggle("sorted", th.dataset.sort === state.sort);
  if (!state.pid && data.processes.length) {
    // Prefer a watched process: only those have a breakdown and a map.
    const watched = await getJSON("/api/v1/series?match=memwatch_vm_bytes").then(
      (d) => new Set(d.series.map((s) => s.labels.pid)), () => new Set());
    selectProcess(data.processes.find((p) => watched.has(p.pid)) || data.processes[0], true);
  }
}

function selectProcess(p, quiet) {
  state.pid = p.pid; state.started = p.started; state.name = p.process;
  for (const tr of $("processes").tBodies[0].rows) tr.classList.toggle("selected", tr.dataset.pid === p.pid);
  $("detail-proc").textContent = `${p.process} (pid ${p.pid})`;
  if (!quiet) {
    $("selector").value = `{__name__=~"memwatch_process_(private|working_set)_bytes", pid=${quote(p.pid)}, started=${quote(p.started)}}`;
    state.zoomed = false;
    state.leak = null;
    markLeakRow();
    loadChart();
  }
  loadDetail();
}

// ---- chart -----------------------------------------------------------------
function rangeFrom() { return $("range").value; }

function queryURL() {
  const width = Math.max(200, Math.min(4000, $("chart").clientWidth || 1000));
  return "/api/v1/query?match=" + encodeURIComponent($("selector").value.trim()) +
    "&from=" + encodeURIComponent(rangeFrom()) + "&to=now&agg=" + $("agg").value +
    "&max_points=" + width + "&top=" + TOP;
}

function seriesLabel(s) {
  const l = Object.entries(s.labels).filter(([k]) => k !== "started").map(([k, v]) => `${k}=${v}`);
  return s.name.replace(/^memwatch_/, "") + (l.length ? " {" + l.join(", ") + "}" : "");
}

const PALETTE = ["#2f6fdb", "#d6604d", "#4daf4a", "#8c6bb1", "#e6ab02", "#17becf", "#7f7f7f"];

function localTime(ms) {
  const d = new Date(ms), now = new Date();
  const hm = d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  return d.toDateString() === now.toDateString() ? hm : d.toLocaleDateString([], { month: "short", day: "numeric" }) + " " + hm;
}

// uPlot plugin: a dashed vertical line at the leak's onset.
function onsetPlugin() {
  return {
    hooks: {
      draw: [(u) => {
        const g = state.leak;
        if (!g || g.onset_ms === null || g.onset_ms === undefined) return;
        const x = u.valToPos(g.onset_ms / 1000, "x", true);
        if (!(x >= u.bbox.left && x <= u.bbox.left + u.bbox.width)) return;
        const c = u.ctx;
        c.save();
        c.strokeStyle = "#b3261e"; c.lineWidth = 1.5 * devicePixelRatio; c.setLineDash([6, 4]);
        c.beginPath(); c.moveTo(x, u.bbox.top); c.lineTo(x, u.bbox.top + u.bbox.height); c.stroke();
        c.setLineDash([]); c.fillStyle = "#b3261e";
        c.font = `${11 * devicePixelRatio}px system-ui, sans-serif`;
        c.fillText("onset " + localTime(g.onset_ms), x + 4 * devicePixelRatio, u.bbox.top + 12 * devicePixelRatio);
        c.restore();
      }],
    },
  };
}

// The fitted trend of a leak group on the time axis t (ms): value0 +
// slope * (t - t0) / 1 h from fit.t0_ms on, nothing before.
function trendValues(g, t) {
  const f = g.fit;
  if (!f || f.t0_ms === null || f.value0 === null || f.slope_bytes_per_hour === null) return null;
  return t.map((x) => x >= f.t0_ms - 1 ? f.value0 + f.slope_bytes_per_hour * (x - f.t0_ms) / 3600000 : null);
}

async function loadChart() {
  const url = queryURL();
  $("chart-json").href = url;
  let d;
  try { d = await getJSON(url); } catch (e) { $("chart-msg").textContent = e.message; return; }
  // top=N reorders by growth; keep the stored order so colours stay put.
  d.series.sort((a, b) => a.id - b.id);
  const topNote = $("chart-top");
  topNote.hidden = !(d.series_total > d.series.length);
  topNote.textContent = topNote.hidden ? "" :
    `showing the ${d.series.length} fastest growers of ${num(d.series_total)} series (growth: last value minus first in the range)`;
  $("chart-msg").textContent = `${d.t.length} points, ` +
    (d.step_ms < 0 ? "raw" : `step ${d.step_ms} ms`) + `, tier ${d.tier}` +
    (d.truncated ? " (truncated)" : "");
  const data = [d.t.map((t) => t / 1000), ...d.series.map((s) => s.values)];
  const specs = d.series.map((s, i) => ({
    label: seriesLabel(s), stroke: PALETTE[i % PALETTE.length], width: 1.5, spanGaps: false,
  }));
  const g = state.leak;
  const trend = g && $("selector").value.trim() === g.series ? trendValues(g, d.t) : null;
  if (trend) {
    data.push(trend);
    specs.push({ label: `fitted trend ${rate(g.fit.slope_bytes_per_hour)}`, stroke: "#b3261e", width: 2, dash: [8, 5], spanGaps: true });
    if (g.onset_ms !== null && g.onset_ms !== undefined) {
      data.push(d.t.map(() => null));
      specs.push({ label: `onset ${localTime(g.onset_ms)}`, stroke: "#b3261e", dash: [6, 4], width: 1.5 });
    }
  }
  const key = d.series.map((s) => s.id).join(",") + (trend ? "|trend" + g.series_id + ":" + specs.length : "");
  if (state.plot && state.plot._key === key) {
    state.plot.setData(data, !state.zoomed);
    return;
  }
  if (state.plot) state.plot.destroy();
  const isBytes = d.series.every((s) => /bytes/.test(s.name));
  const opts = {
    width: $("chart").clientWidth || 800, height: 320,
    cursor: { drag: { x: true, y: false } },
    scales: { x: { time: true } },
    axes: [{}, { size: 90, values: (u, v) => v.map((x) => isBytes ? bytes(x, 1) : x) }],
    series: [{}, ...specs.map((sp) => ({ ...sp, value: (u, v) => isBytes ? bytes(v) : (v ?? "–") }))],
    plugins: [onsetPlugin()],
    hooks: { setSelect: [(u) => { if (u.select.width > 0) state.zoomed = true; }] },
  };
  state.plot = new uPlot(opts, data, $("chart"));
  state.plot._key = key;
  // Double-click resets the zoom and resumes following.
  state.plot.over.addEventListener("dblclick", () => { state.zoomed = false; loadChart(); });
}

// ---- leaks -------------------------------------------------------------------
const LEAK_LIMIT = 50;

function mibPerHour(v) { return v === null || v === undefined ? "–" : (v / 1048576).toFixed(Math.abs(v) < 10485760 ? 2 : 1); }
function ago(ms) {
  const d = Date.now() - ms;
  return d < 0 ? "in the future" : ms2text(d) + " ago";
}

function sparkline(values) {
  const w = 120, h = 24, pts = [];
  const v = values.filter((x) => x !== null);
  const svgNS = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(svgNS, "svg");
  svg.setAttribute("width", w); svg.setAttribute("height", h); svg.setAttribute("class", "spark");
  if (v.length < 2) return svg;
  const lo = Math.min(...v), hi = Math.max(...v), n = values.length;
  values.forEach((x, i) => {
    if (x === null) return;
    const px = (n > 1 ? i / (n - 1) : 0) * (w - 2) + 1;
    const py = hi > lo ? h - 2 - (x - lo) / (hi - lo) * (h - 4) : h / 2;
    pts.push(px.toFixed(1) + "," + py.toFixed(1));
  });
  const line = document.createElementNS(svgNS, "polyline");
  line.setAttribute("points", pts.join(" "));
  svg.append(line);
  return svg;
}

async function loadSpark(cell, g, from, to) {
  try {
    const d = await getJSON("/api/v1/query?match=" + encodeURIComponent(g.series) +
      "&from=" + from + "&to=" + to + "&max_points=60&agg=min");
    if (d.series.length) cell.replaceChildren(sparkline(d.series[0].values));
  } catch (e) { cell.title = e.message; }
}

function markLeakRow() {
  for (const tr of $("leaks-table").tBodies[0].rows)
    tr.classList.toggle("selected", !!state.leak && tr.dataset.series === state.leak.series);
}

function selectLeak(g, quiet) {
  state.leak = g;
  markLeakRow();
  $("selector").value = g.series;
  $("agg").value = "min";	// the fit is of the floors
  state.zoomed = false;
  loadChart();
  if (!quiet) $("chart-section").scrollIntoView({ block: "nearest" });
}

function leakRow(g, from, to) {
  const tr = el("tr");
  tr.dataset.series = g.series || "";
  const ci = g.slope_ci_bytes_per_hour;
  const half = Array.isArray(ci) && ci[0] !== null && ci[1] !== null ? (ci[1] - ci[0]) / 2 : null;
  const slope = el("td", { class: "num" }, g.slope_bytes_per_hour === null || g.slope_bytes_per_hour === undefined
    ? "–" : `${mibPerHour(g.slope_bytes_per_hour)}${half !== null ? " ± " + mibPerHour(half) : ""} MiB/h`);
  if (half !== null) slope.title = `95 % interval ${mibPerHour(ci[0])} … ${mibPerHour(ci[1])} MiB/h`;
  const since = el("td", {}, g.onset_ms ? `${localTime(g.onset_ms)} (${ago(g.onset_ms)})` : "–");
  if (g.onset_ms) since.title = new Date(g.onset_ms).toString();
  const inc = g.incarnations && g.incarnations.length > 1 ? ` ×${g.incarnations.length}` : "";
  const proc = el("td", {}, (g.process || "?") + inc);
  if (inc) proc.title = g.incarnations.map((x) => `pid ${x.pid}: ${x.verdict}, ${x.reason || ""}`).join("\n");
  const spark = el("td", { class: "spark-cell" });
  tr.append(el("td", {}, ""), proc, slope, since,
    el("td", { class: "num" }, g.growth_bytes === null || g.growth_bytes === undefined ? "–" : (g.growth_bytes > 0 ? "+" : "") + bytes(g.growth_bytes)),
    el("td", {}, g.kind || "–"), el("td", { class: "reason" }, g.reason || ""), spark);
  tr.cells[0].append(el("span", { class: "badge " + g.verdict }, g.verdict));
  if (g.series) {
    tr.addEventListener("click", () => selectLeak(g));
    loadSpark(spark, g, from, to);
  }
  return tr;
}

async function loadLeaks() {
  const match = $("leaks-match").value.trim() || "memwatch_process_private_bytes";
  const url = "/api/v1/leaks?match=" + encodeURIComponent(match) + "&from=" + encodeURIComponent(rangeFrom()) +
    "&to=now&limit=" + LEAK_LIMIT;
  $("leaks-json").href = url;
  const msg = $("leaks-msg"), table = $("leaks-table"), badge = $("leaks-verdict");
  let d;
  try {
    d = await getJSON(url);
    if (!d || !Array.isArray(d.groups)) throw new Error("unexpected answer");
  } catch (e) {
    table.hidden = true; badge.className = "badge"; badge.textContent = "";
    $("leaks-summary").textContent = "";
    msg.hidden = false;
    msg.textContent = /^404/.test(e.message) || /unknown path|no such path|not found/i.test(e.message)
      ? "Leak verdicts are not available from this daemon (no /api/v1/leaks endpoint yet); the process table below ranks processes by growth rate."
      : "Leak verdicts could not be computed: " + e.message;
    return;
  }
  badge.className = "badge " + d.verdict;
  badge.textContent = d.verdict || "";
  const c = d.counts || {};
  const range = $("range").selectedOptions[0].textContent;
  const when = d.from_ms && d.to_ms ? `${localTime(d.from_ms)} – ${localTime(d.to_ms)}` : range;
  $("leaks-summary").textContent = `${num(c.fail || 0)} fail, ${num(c.inconclusive || 0)} inconclusive, ` +
    `${num(c.pass || 0)} pass of ${num(d.groups_total ?? d.groups.length)} processes; ${when} (${range})` +
    (d.groups_total > d.groups.length ? `; first ${d.groups.length} listed` : "");
  const tb = table.tBodies[0];
  tb.replaceChildren();
  const from = d.from_ms ?? encodeURIComponent(rangeFrom()), to = d.to_ms ?? "now";
  for (const g of d.groups) tb.append(leakRow(g, from, to));
  table.hidden = !d.groups.length;
  msg.hidden = !!d.groups.length;
  msg.textContent = d.groups.length ? "" : "No process series in this range.";
  if (!state.leakShown && !state.leak && d.groups.length && d.groups[0].verdict === "fail" && d.groups[0].series) {
    // The page opens on the worst leak: draw it with its trend.
    state.leakShown = true;
    selectLeak(d.groups[0], true);
  } else if (state.leak) {
    // Keep the drawn leak's fit current.
    const same = d.groups.find((g) => g.series === state.leak.series);
    if (same) state.leak = same;
    markLeakRow();
  }
}

// ---- breakdown and address space ---------------------------------------------
function processSelector(metric) {
  return `${metric}{pid=${quote(state.pid)}}`;
}

function latestByLabel(d, label) {
  const out = {};
  for (const s of d.series) {
    let v = null;
    for (let i = s.values.length - 1; i >= 0; i--) if (s.values[i] !== null) { v = s.values[i]; break; }
    const k = s.labels[label] || "other";
    if (v !== null) out[k] = (out[k] || 0) + v;
  }
  return out;
}

async function loadDetail() {
  if (!state.pid) return;
  const bUrl = "/api/v1/query?match=" + encodeURIComponent(processSelector("memwatch_heap_breakdown_bytes")) +
    "&from=-10m&agg=last&max_points=10";
  const mUrl = "/api/v1/query?match=" + encodeURIComponent(processSelector("memwatch_vm_bytes")) +
    "&from=-10m&agg=last&max_points=10";
  $("breakdown-json").href = bUrl;
  $("vmmap-json").href = mUrl;
  const bar = $("breakdown"), legend = $("breakdown-legend"), map = $("vmmap");
  bar.replaceChildren(); legend.replaceChildren(); map.replaceChildren();
  try {
    const kinds = latestByLabel(await getJSON(bUrl), "kind");
    delete kinds.all;
    // The bar is committed memory; reserved stack is address space only,
    // so it is listed but not drawn.
    const committed = (k) => k !== "stack_reserved";
    const total = Object.entries(kinds).filter(([k]) => committed(k)).reduce((a, [, b]) => a + b, 0);
    for (const [k, color] of KINDS) {
      const v = kinds[k] || 0;
      if (total > 0 && v > 0 && committed(k)) bar.append(el("div", { style: `width:${(100 * v / total).toFixed(2)}%;background:${color}`, title: `${k}: ${bytes(v)}` }));
      if (!v) continue;
      const item = el("span");
      item.append(el("i", { style: "background:" + color }), document.createTextNode(`${k.replace("_", " ")} ${bytes(v)}${committed(k) ? "" : " (not committed, not in the bar)"}`));
      legend.append(item);
    }
  } catch (e) {
    legend.append(el("span", { class: "muted" }, "No breakdown for this process yet (" + e.message +
      "); add it to the watch list: [daemon] watch = " + state.name));
  }
  try {
    const d = await getJSON(mUrl);
    const rows = {};
    for (const s of d.series) {
      const st = s.labels.state || "other", ty = s.labels.type || "all";
      let v = null;
      for (let i = s.values.length - 1; i >= 0; i--) if (s.values[i] !== null) { v = s.values[i]; break; }
      if (v === null) continue;
      (rows[st] = rows[st] || {})[ty] = v;
    }
    const max = Math.max(1, ...Object.values(rows).map((r) => Object.values(r).reduce((a, b) => a + b, 0)));
    const t = el("table");
    for (const st of STATES.concat(Object.keys(rows).filter((x) => !STATES.includes(x)))) {
      if (!rows[st]) continue;
      const sum = Object.values(rows[st]).reduce((a, b) => a + b, 0);
      const tr = el("tr");
      const barCell = el("td");
      barCell.append(el("div", { class: "cell-bar", style: `width:${(100 * sum / max).toFixed(1)}%` }));
      tr.append(el("td", {}, st), el("td", { class: "num" }, bytes(sum)), barCell,
        el("td", { class: "muted" }, Object.entries(rows[st]).map(([k, v]) => `${k} ${bytes(v)}`).join(", ")));
      t.append(tr);
    }
    map.append(t);
  } catch (e) {
    map.append(el("p", { class: "muted" }, "No address-space data for this process yet (" + e.message + ")."));
  }
}

// ---- wiring ----------------------------------------------------------------
for (const th of document.querySelectorAll("th.sortable"))
  th.addEventListener("click", () => { state.sort = th.dataset.sort; state.offset = 0; loadProcesses(); });
let filterTimer = null;
$("proc-filter").addEventListener("input", () => {
  clearTimeout(filterTimer);
  filterTimer = setTimeout(() => { state.filter = $("proc-filter").value.trim(); state.offset = 0; loadProcesses(); }, 250);
});
$("proc-window").addEventListener("change", () => loadProcesses());
$("proc-prev").addEventListener("click", () => { state.offset = Math.max(0, state.offset - state.pageSize); loadProcesses(); });
$("proc-next").addEventListener("click", () => { state.offset += state.pageSize; loadProcesses(); });
$("selector").addEventListener("change", () => { state.zoomed = false; state.leak = null; markLeakRow(); loadChart(); });
$("range").addEventListener("change", () => { state.zoomed = false; loadChart(); loadLeaks(); });
$("leaks-match").addEventListener("change", () => loadLeaks());
$("agg").addEventListener("change", () => loadChart());
window.addEventListener("resize", () => { if (state.plot) state.plot.setSize({ width: $("chart").clientWidth, height: 320 }); });

loadHealth();
loadLeaks();
loadProcesses();
loadChart();
setInterval(() => { if ($("follow").checked && !state.zoomed) loadChart(); }, 2000);
setInterval(loadProcesses, 5000);
setInterval(loadLeaks, 60000);
setInterval(loadHealth, 15000);
