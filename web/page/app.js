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
  wsPlot: null, wsRaw: null, t1: null, t2: null, snap1: null, snap2: null, diffBases: null,
  sel: null, selBy: null, chartSel: null, picked: false,
};
const TOP = 20;	// a selector matching more series draws the TOP fastest growers

// Breakdown kinds (HeapPeep's bar, from memwatch_heap_breakdown_bytes{kind}) and
// address-space states (VirtualMemory.exe's view, from memwatch_vm_bytes).
const KINDS = [
  ["heap", "#d6604d"], ["heap_used", "#d6604d"], ["heap_free", "#f4a582"], ["stack_committed", "#8c6bb1"], ["stack_reserved", "#cab2d6"],
  ["image", "#6c8ebf"], ["static_data", "#17becf"], ["private_other", "#4daf4a"], ["mapped", "#e6ab02"],
];
const STATES = ["committed", "reserved", "free"];

function bytes(v, extra) {
  if (v === null || v === undefined || Number.isNaN(v)) return "–";
  const a = Math.abs(v), u = ["B", "KiB", "MiB", "GiB", "TiB"];
  let i = 0, x = a;
  while (x >= 1024 && i < u.length - 1) { x /= 1024; i++; }
  return (v < 0 ? "-" : "") + (i ? x.toFixed(Math.max(0, (x < 10 ? 2 : x < 100 ? 1 : 0) + (extra || 0))) : x) + " " + u[i];
}

async function getJSON(url) {
  const r = await fetch(url, { cache: "no-store" });
  const body = await r.json().catch(() => ({}));
  if (!r.ok) {
    const e = new Error(body.error || r.status + " " + r.statusText);
    e.status = r.status;
    throw e;
  }
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
    // Remote-write destinations: lag, or why they fail (the error in the tooltip).
    const rw = (c.remote_write || []).map((d) =>
      `→ ${d.name}: ` + (!d.up ? "failing" : d.caught_up ? "sent" : `lag ${ms2text(d.lag_seconds * 1000)}`) +
      (d.batches_skipped ? `, ${d.batches_skipped} batches refused` : ""));
    $("health").textContent = `v${h.version}, up ${Math.round(h.uptime_s / 60)} min, ` +
      `${c.collectors.length} collectors` + (bad.length ? `, ${bad.length} not working` : "") +
      (rw.length ? ", " + rw.join(", ") : "");
    $("health").title = (c.remote_write || []).filter((d) => d.last_error)
      .map((d) => `${d.name}: ${d.last_error}`).join("\n");
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
    tr.addEventListener("click", () => choose({ pid: p.pid, started: p.started, process: p.process }, { by: "user" }));
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
  markOverflow();
  if (!state.sel && !LINKED && data.processes.length) {
    // Nothing chosen yet: the details show a watched process (only those
    // have a breakdown and a map); the chart stays on the system until a
    // process is chosen (or the worst leak is, by loadLeaks).
    const watched = await getJSON("/api/v1/series?match=memwatch_vm_bytes").then(
      (d) => new Set(d.series.map((s) => s.labels.pid)), () => new Set());
    const p = data.processes.find((x) => watched.has(x.pid)) || data.processes[0];
    if (!state.sel) choose({ pid: p.pid, started: p.started, process: p.process }, { by: "table-default", chart: false });
  }
}

// ---- the selected process ------------------------------------------------------
// One choice drives every panel.  state.sel = {pid, started, process, series}
// is the process chosen in the Leaks panel or the process table (series: the
// leak series the chart draws with its fitted trend, or null for the
// process's private and working-set bytes); the chart, the breakdown, the
// working set over time, the diff and the map all read it, and choose()
// refreshes them all.  The URL's hash carries it
// (#pid=P&started=S&process=NAME[&series=KEY][&t1=MS&t2=MS]), so a reload or
// a shared link opens on the same process (and the same picked moments).
// selBy says who chose: "user", "link", "leak-default" (the page opened on
// the worst leak) or "table-default" (nothing failing: a watched process for
// the details, the chart left on the system).
const LINKED = new URLSearchParams(location.hash.replace(/^#/, "")).has("pid");

function processChartSelector(sel) {
  return `{__name__=~"memwatch_process_(private|working_set)_bytes", pid=${quote(sel.pid)}` +
    (sel.started ? `, started=${quote(sel.started)}` : "") + "}";
}

function who() { return state.sel ? `${state.name} (pid ${state.pid})` : ""; }

function choose(sel, how = {}) {
  const started = sel.started === undefined || sel.started === "" ? null : sel.started;
  const changed = !state.sel || state.sel.pid !== String(sel.pid) || (state.sel.started !== null && started !== null && state.sel.started !== started);
  if (changed) {
    state.t1 = state.t2 = state.snap1 = state.snap2 = null;
    state.diffBases = null; state.picked = false;
    state.diffSeq = (state.diffSeq || 0) + 1;	// an answer in flight is for the old process
    $("diff").replaceChildren(el("p", { class: "muted" }, "Pick two moments on the chart above."));
    $("diff-summary").textContent = "";
    $("diff-json").setAttribute("href", "#");
    if (state.wsPlot) { state.wsPlot.destroy(); state.wsPlot = null; }
    $("ws-chart").removeAttribute("data-drawn");
  }
  state.sel = { pid: String(sel.pid), started, process: sel.process || null, series: sel.series || null };
  state.selBy = how.by || "user";
  state.pid = state.sel.pid; state.started = started; state.name = state.sel.process || "pid " + state.pid;
  state.leak = sel.series ? (how.group || state.leaks?.find((g) => g.series === sel.series) || null) : null;
  for (const id of ["detail-proc", "ws-proc", "diff-proc"]) $(id).textContent = who();
  for (const tr of $("processes").tBodies[0].rows) tr.classList.toggle("selected", tr.dataset.pid === state.pid);
  markLeakRow();
  if (how.chart === false) state.chartSel = null;
  else {
    state.chartSel = sel.series || processChartSelector(state.sel);
    $("selector").value = state.chartSel;
    $("agg").value = sel.series ? "min" : "max";	// a leak's fit is of the floors
    state.zoomed = false;
    loadChart();
  }
  chartTitle();
  loadDetail();
  loadExitLeaks();
  if (state.selBy === "user" || state.selBy === "link") writeHash();
}

// The chart names the process while it draws the selection's series.
function chartTitle() {
  $("chart-proc").textContent = state.sel && state.chartSel && $("selector").value.trim() === state.chartSel ? who() : "";
}

function writeHash() {
  const h = new URLSearchParams(), s = state.sel;
  if (s) {
    h.set("pid", s.pid);
    if (s.started) h.set("started", s.started);
    if (s.process) h.set("process", s.process);
    if (s.series) h.set("series", s.series);
  }
  if (state.picked && state.t1 !== null && state.t2 !== null) { h.set("t1", state.t1); h.set("t2", state.t2); }
  if (document.body.dataset.show) h.set("show", document.body.dataset.show);
  const text = "#" + h.toString();
  if (location.hash !== text) history.replaceState(null, "", text);
}

// The selection a leak group stands for: its deciding incarnation.
function keyLabels(key) {
  const out = {};
  for (const m of String(key || "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) out[m[1]] = m[2].replace(/\\(.)/g, "$1");
  return out;
}
function leakSel(g) {
  const inc = (g.incarnations || []).find((x) => x.series === g.series) || {}, l = keyLabels(g.series);
  return { pid: inc.pid ?? l.pid, started: inc.started ?? l.started ?? null, process: g.process ?? l.process, series: g.series };
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

// ---- times ------------------------------------------------------------------
// One format wherever a time is shown, the CLI's too: UTC,
// "YYYY-MM-DD HH:MM:SS UTC"; axis ticks, where only a time of day fits,
// "HH:MM UTC" with the date under the first tick and where it changes.
const pad2 = (n) => String(n).padStart(2, "0");
function utcDay(ms) {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())}`;
}
function utcTime(ms, secs) {
  const d = new Date(ms);
  return pad2(d.getUTCHours()) + ":" + pad2(d.getUTCMinutes()) + (secs ? ":" + pad2(d.getUTCSeconds()) : "");
}
function clock(ms) {
  return ms === null || ms === undefined || !Number.isFinite(Number(ms)) ? "–" : `${utcDay(ms)} ${utcTime(ms, true)} UTC`;
}
// uPlot in UTC: ticks placed on UTC boundaries (tzDate), labelled by utcTicks,
// and the legend's time in the one format.
const tzUTC = (ts) => uPlot.tzDate(new Date(ts * 1e3), "Etc/UTC");
function utcTicks(u, splits, axisIdx, space, incr) {
  let prev = null;
  return splits.map((v) => {
    if (v === null || v === undefined) return null;
    const ms = Math.round(v * 1000), day = utcDay(ms);
    if (incr >= 86400) { prev = day; return day; }
    const t = utcTime(ms, incr < 60 || ms % 60000 !== 0) + " UTC", first = day !== prev;
    prev = day;
    return first ? t + "\n" + day : t;
  });
}
const timeAxis = () => ({ space: 80, size: 56, values: utcTicks });
// Room on the right for half a tick label ("23:35 UTC") at the last tick.
const TIME_PADDING = [null, 36, null, null];
const timeLegend = (u, v) => (v === null || v === undefined ? "–" : clock(v * 1000));

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
        c.textAlign = "left"; c.textBaseline = "alphabetic";
        // Right of the line, or left of it where the label would leave the plot.
        const label = "onset " + clock(g.onset_ms), w = c.measureText(label).width, pad = 4 * devicePixelRatio;
        const lx = x + pad + w <= u.bbox.left + u.bbox.width ? x + pad : Math.max(u.bbox.left, x - pad - w);
        c.fillText(label, lx, u.bbox.top + 12 * devicePixelRatio);
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
  chartTitle();
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
      specs.push({ label: `onset ${clock(g.onset_ms)}`, stroke: "#b3261e", dash: [6, 4], width: 1.5 });
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
    tzDate: tzUTC, padding: TIME_PADDING,
    axes: [timeAxis(), { size: 90, values: (u, v) => v.map((x) => isBytes ? bytes(x, 1) : x) }],
    series: [{ value: timeLegend }, ...specs.map((sp) => ({ ...sp, value: (u, v) => isBytes ? bytes(v) : (v ?? "–") }))],
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
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`); svg.setAttribute("preserveAspectRatio", "none");
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

function sparkUrl(series, from, to) {
  return "/api/v1/query?" + series.map((s) => "match=" + encodeURIComponent(s)).join("&") +
    "&from=" + from + "&to=" + to + "&max_points=60&agg=min";
}

async function loadSpark(cell, g, from, to) {
  try {
    const d = await getJSON(sparkUrl([g.series], from, to));
    if (d.series.length) cell.replaceChildren(sparkline(d.series[0].values));
  } catch (e) { cell.title = e.message; }
}

// Every row's sparkline in one request (match= repeated: one read on one
// axis, in the order asked).  Each leak's series is one whole key, so the
// answer has one series per row; if not (a series expired meanwhile, an
// older daemon that reads only the first match), one request a row.
async function loadSparks(rows, from, to) {
  if (!rows.length) return;
  let d = null;
  try { d = await getJSON(sparkUrl(rows.map((x) => x.g.series), from, to)); } catch (e) { d = null; }
  if (d && Array.isArray(d.series) && d.series.length === rows.length) {
    rows.forEach((x, i) => x.cell.replaceChildren(sparkline(d.series[i].values)));
    return;
  }
  for (const x of rows) loadSpark(x.cell, x.g, from, to);
}

// The leak rows of the selected process are marked.
function markLeakRow() {
  for (const tr of $("leaks-table").tBodies[0].rows)
    tr.classList.toggle("selected", !!state.sel && tr.dataset.pid === state.pid);
}

function selectLeak(g, quiet) {
  choose(leakSel(g), { by: quiet ? "leak-default" : "user", group: g });
  if (!quiet) $("chart-section").scrollIntoView({ block: "nearest" });
}

function leakRow(g, sparks) {
  const tr = el("tr");
  tr.dataset.series = g.series || "";
  if (g.series) tr.dataset.pid = leakSel(g).pid || "";
  const ci = g.slope_ci_bytes_per_hour;
  const half = Array.isArray(ci) && ci[0] !== null && ci[1] !== null ? (ci[1] - ci[0]) / 2 : null;
  // A pass shows a rate only when it rises within the budget (it then has
  // a growth): no leak-like figure beside a pass.  Counts (handles,
  // threads) in their own unit.
  const counted = g.unit && g.unit !== "bytes";
  const shown = g.verdict === "fail" || (g.growth_bytes !== null && g.growth_bytes > 0);
  const slope = el("td", { class: "num" }, !shown || g.slope_bytes_per_hour === null || g.slope_bytes_per_hour === undefined
    ? "–" : counted ? `${Math.round(g.slope_bytes_per_hour)} ${g.unit}/h`
    : `${mibPerHour(g.slope_bytes_per_hour)}${half !== null ? " ± " + mibPerHour(half) : ""} MiB/h`);
  if (shown && !counted && half !== null) slope.title = `95 % interval ${mibPerHour(ci[0])} … ${mibPerHour(ci[1])} MiB/h`;
  // The time, then how long ago (on a second line where the column is narrow).
  const since = el("td", { class: "since" }, g.onset_ms ? "" : "–");
  // Under way before its first data (the process ran before): "before" that time.
  if (g.onset_ms) since.append(el("span", { class: "nw" }, (g.onset_before_data ? "before " : "") + clock(g.onset_ms)), " ", el("span", { class: "nw" }, `(${ago(g.onset_ms)})`));
  const inc = g.incarnations && g.incarnations.length > 1 ? ` ×${g.incarnations.length}` : "";
  const proc = el("td", {}, (g.process || "?") + inc);
  if (inc) proc.title = g.incarnations.map((x) => `pid ${x.pid}: ${x.verdict}, ${x.reason || ""}`).join("\n");
  const spark = el("td", { class: "spark-cell" });
  tr.append(el("td", {}, ""), proc, slope, since,
    el("td", { class: "num" }, !shown || g.growth_bytes === null || g.growth_bytes === undefined ? "–"
      : (g.growth_bytes > 0 ? "+" : "") + (counted ? `${Math.round(g.growth_bytes)} ${g.unit}` : bytes(g.growth_bytes))),
    el("td", {}, g.kind || "–"), el("td", { class: "reason" }, g.reason || ""), spark);
  tr.cells[0].append(el("span", { class: "badge " + g.verdict }, g.verdict));
  if (g.series) {
    tr.addEventListener("click", () => selectLeak(g));
    sparks.push({ cell: spark, g });
  }
  return tr;
}

async function loadLeaks() {
  // Empty: the daemon judges all of each process's memory (private,
  // shared, mapped files, handles, threads).
  const match = $("leaks-match").value.trim();
  const url = "/api/v1/leaks?" + (match ? "match=" + encodeURIComponent(match) + "&" : "") +
    "from=" + encodeURIComponent(rangeFrom()) + "&to=now&limit=" + LEAK_LIMIT;
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
  const when = d.from_ms && d.to_ms ? `${clock(d.from_ms)} – ${clock(d.to_ms)}` : range;
  $("leaks-summary").textContent = `${num(c.fail || 0)} fail, ${num(c.inconclusive || 0)} inconclusive, ` +
    `${num(c.pass || 0)} pass of ${num(d.groups_total ?? d.groups.length)} processes; ${when} (${range})` +
    (d.groups_total > d.groups.length ? `; first ${d.groups.length} listed` : "") +
    (d.first_verdicts_ms ? `; warming up: first verdicts at ${clock(d.first_verdicts_ms)}` : "");
  const tb = table.tBodies[0];
  tb.replaceChildren();
  const from = d.from_ms ?? encodeURIComponent(rangeFrom()), to = d.to_ms ?? "now";
  const sparks = [];
  for (const g of d.groups) tb.append(leakRow(g, sparks));
  loadSparks(sparks, from, to);
  table.hidden = !d.groups.length;
  msg.hidden = !!d.groups.length;
  msg.textContent = d.groups.length ? "" : "No process series in this range.";
  state.leaks = d.groups;
  const first = !state.leakShown;
  state.leakShown = true;
  if (first && !LINKED && (!state.sel || state.selBy === "table-default") &&
      d.groups.length && d.groups[0].verdict === "fail" && d.groups[0].series) {
    // Nothing chosen yet: the page opens on the worst leak, every panel on it.
    selectLeak(d.groups[0], true);
  } else if (state.sel && state.sel.series) {
    // Keep the drawn leak's fit current (and draw it once the verdicts
    // arrive after a link named the series).
    const same = d.groups.find((g) => g.series === state.sel.series);
    const had = state.leak;
    if (same) state.leak = same;
    if (same && !had && $("selector").value.trim() === same.series) loadChart();
  }
  markLeakRow();
}

// ---- exit leak reports ------------------------------------------------------
// What the program's own leak check said at exit (/api/v1/exit-leaks): the
// process the user chose (a click, a link), else every run in the range.  A
// run that leaked more than [exit_leaks] max_bytes also fails its group in
// the Leaks panel.
const EXIT_LIMIT = 20;
function stackLines(s) {
  // the frames that name the program: allocator frames first in LeakSanitizer's list
  const frames = (s.frames || []).filter((f) => !/malloc|calloc|realloc|operator new|RtlAllocateHeap|libasan/.test(f));
  return (frames.length ? frames : s.frames || []).slice(0, 2).map((f) => f.replace(/^#\d+ 0x[0-9a-f]+ in /, "")).join(" ← ");
}
function exitRow(r) {
  const tr = el("tr");
  const stacks = el("td", { class: "stacks" });
  for (const s of (r.stacks || []).slice(0, 3))
    stacks.append(el("div", {}, `${bytes(s.bytes)} in ${num(s.count)}${s.indirect ? " (indirect)" : ""}: ${stackLines(s)}`));
  if (!r.stacks || !r.stacks.length)
    stacks.append(el("div", {}, r.blocks && r.blocks.length ? `${num(r.blocks.length)} blocks, largest ${bytes(r.blocks[0].size)}` : "–"));
  tr.append(el("td", {}, clock(r.exited_ms)), el("td", {}, r.process), el("td", {}, String(r.pid || "–")),
    el("td", {}, r.source + (r.complete ? "" : " (incomplete)")),
    el("td", { class: "num" }, num(r.leaks)), el("td", { class: "num" }, bytes(r.bytes)), stacks);
  return tr;
}
async function loadExitLeaks() {
  const chosen = state.sel && state.sel.process && (state.selBy === "user" || state.selBy === "link");
  const proc = chosen ? state.sel.process : null;
  const url = "/api/v1/exit-leaks?" + (proc ? "process=" + encodeURIComponent(proc) + "&" : "") +
    (rangeFrom() !== "0" ? "from=" + encodeURIComponent(rangeFrom()) + "&" : "") + "limit=" + EXIT_LIMIT;
  $("exit-json").href = url;
  $("exit-proc").textContent = proc ? proc : "";
  const msg = $("exit-msg"), table = $("exit-table");
  let d;
  try {
    d = await getJSON(url);
  } catch (e) {
    table.hidden = true; msg.hidden = false;
    msg.textContent = "Exit leak reports could not be read: " + e.message;
    return;
  }
  const tb = table.tBodies[0];
  tb.replaceChildren(...d.reports.map(exitRow));
  table.hidden = !d.reports.length;
  msg.hidden = !!d.reports.length;
  msg.textContent = d.reports.length ? "" : (proc ? `No exit leak report for ${proc} in this range.` : "No exit leak report in this range.") +
    " Set [exit_leaks] lsan_dir (LeakSanitizer: ASAN_OPTIONS=log_path=DIR/NAME) or images (Windows).";
  $("exit-summary").textContent = d.reports.length ? `${num(d.reports.length)}${d.more ? "+" : ""} run${d.reports.length === 1 ? "" : "s"}` : "";
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
  $("breakdown-json").href = bUrl;
  const bar = $("breakdown"), legend = $("breakdown-legend");
  bar.replaceChildren(); legend.replaceChildren();
  const pid = state.pid;
  try {
    const got = await getJSON(bUrl);
    if (pid !== state.pid) return;
    const kinds = latestByLabel(got, "kind");
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
    if (pid !== state.pid) return;
    legend.append(el("span", { class: "muted" }, "No breakdown for this process yet (" + e.message +
      "); add it to the watch list: [daemon] watch = " + state.name));
  }
  loadWorkingSet(true);
  loadMap();
}

// ---- working set over time and MemDiff -----------------------------------------
// memwatch_workingset_bytes{pid,category,sharing} summed over the sharing
// classes per category, stacked (image at the bottom).  Two moments picked on
// it (clicks or a drag) are diffed by /api/v1/diff.
const CATS = [
  ["image", "#6c8ebf"], ["mapped_file", "#e6ab02"], ["shareable", "#17becf"], ["heap", "#d6604d"],
  ["stack", "#8c6bb1"], ["private_data", "#4daf4a"], ["other", "#9e9e9e"],
];
const CAT_COLOR = Object.fromEntries(CATS);
const catName = (c) => String(c).replace(/_/g, " ");
const DIFF_LIMIT = 50;


// uPlot plugin: the picked moments T1 and T2 (solid), the span between them
// shaded, and the moments the diff snapped to (dashed) when they differ.
function picksPlugin() {
  const line = (u, ms, label, color, dash) => {
    const x = u.valToPos(ms / 1000, "x", true);
    if (!(x >= u.bbox.left && x <= u.bbox.left + u.bbox.width)) return;
    const c = u.ctx, r = devicePixelRatio;
    c.save();
    c.textAlign = "left"; c.textBaseline = "alphabetic";
    c.strokeStyle = color; c.lineWidth = 2 * r; c.setLineDash(dash ? [5 * r, 4 * r] : []);
    c.beginPath(); c.moveTo(x, u.bbox.top); c.lineTo(x, u.bbox.top + u.bbox.height); c.stroke();
    if (label) {
      c.font = `600 ${11 * r}px system-ui, sans-serif`;
      const w = c.measureText(label).width + 8 * r;
      const lx = Math.min(x + 3 * r, u.bbox.left + u.bbox.width - w);
      c.fillStyle = "rgba(255,255,255,.85)"; c.fillRect(lx, u.bbox.top + 2 * r, w, 15 * r);
      c.fillStyle = color; c.fillText(label, lx + 4 * r, u.bbox.top + 13 * r);
    }
    c.restore();
  };
  return {
    hooks: {
      draw: [(u) => {
        const { t1, t2, snap1, snap2 } = state;
        if (t1 !== null && t2 !== null) {
          const a = u.valToPos(Math.min(t1, t2) / 1000, "x", true), b = u.valToPos(Math.max(t1, t2) / 1000, "x", true);
          const l = Math.max(a, u.bbox.left), rr = Math.min(b, u.bbox.left + u.bbox.width);
          if (rr > l) { u.ctx.save(); u.ctx.fillStyle = "rgba(20,30,60,.08)"; u.ctx.fillRect(l, u.bbox.top, rr - l, u.bbox.height); u.ctx.restore(); }
        }
        if (snap1 !== null && snap1 !== t1) line(u, snap1, "", "#1d2330", true);
        if (snap2 !== null && snap2 !== t2) line(u, snap2, "", "#b3261e", true);
        if (t1 !== null) line(u, t1, "T1 " + clock(t1), "#1d2330", false);
        if (t2 !== null) line(u, t2, "T2 " + clock(t2), "#b3261e", false);
      }],
    },
  };
}

function setPicks(t1, t2, byUser) {
  if (t1 !== null && t2 !== null && t2 < t1) [t1, t2] = [t2, t1];
  state.t1 = t1; state.t2 = t2; state.snap1 = null; state.snap2 = null;
  state.picked = !!byUser;
  if (byUser) writeHash();
  if (state.wsPlot) state.wsPlot.redraw(false);
  if (t1 !== null && t2 !== null) {
    $("ws-hint").textContent = `T1 ${clock(t1)}, T2 ${clock(t2)}: click to start a new pair, or drag across a span`;
    loadDiff();
  } else if (t1 !== null) {
    $("ws-hint").textContent = `T1 ${clock(t1)}: click again for T2`;
  }
}

function wsMessage(text) {
  $("ws-msg").textContent = text;
}

async function loadWorkingSet(fresh) {
  if (!state.pid) return;
  const box = $("ws-chart"), pid = state.pid;
  // A point every second pixel is plenty for stacked areas, and keeps long
  // ranges on the coarse rollups: 7 days on a 1,200-pixel box in 20-minute
  // steps from the 10-minute tier (1,008 rows a series), where a point a
  // pixel asked for 9-minute steps from 10,080 minute rows (issue 26).
  const width = Math.max(100, Math.min(2000, Math.round((box.clientWidth || 1000) / 2)));
  const url = "/api/v1/query?match=" + encodeURIComponent(processSelector("memwatch_workingset_bytes")) +
    "&from=" + encodeURIComponent(rangeFrom()) + "&to=now&agg=avg&max_points=" + width;
  $("ws-json").href = url;
  $("ws-proc").textContent = state.name ? `${state.name} (pid ${pid})` : `pid ${pid}`;
  let d;
  try { d = await getJSON(url); } catch (e) { wsMessage("Working set over time is not available: " + e.message); return; }
  if (pid !== state.pid) return;
  // Sum the sharing classes per category.
  const per = {};
  let totalsOnly = null;
  for (const s of d.series) {
    const c = s.labels.category || "other";
    if (c === "all") { totalsOnly = s.values; continue; }
    const a = per[c] || (per[c] = d.t.map(() => null));
    s.values.forEach((v, i) => { if (v !== null) a[i] = (a[i] || 0) + v; });
  }
  let cats = CATS.filter(([c]) => per[c]).concat(Object.keys(per).filter((c) => !CAT_COLOR[c]).map((c) => [c, "#bbbbbb"]));
  if (!cats.length && totalsOnly) { per.all = totalsOnly; cats = [["all", "#7f7f7f"]]; }
  if (!cats.length || !d.t.length) {
    if (state.wsPlot) { state.wsPlot.destroy(); state.wsPlot = null; }
    box.removeAttribute("data-drawn");
    wsMessage(`No working-set samples for this process in this range; watch it to get them: [daemon] watch = ${state.name || pid}`);
    return;
  }
  // Running sums bottom-up; drawn top-down so each fill paints over the one above it.
  const cum = [];
  let run = d.t.map(() => null);
  for (const [c] of cats) {
    run = run.map((x, i) => (x === null && per[c][i] === null ? null : (x || 0) + (per[c][i] || 0)));
    cum.push(run);
  }
  const order = cats.map((_, i) => i).reverse();
  state.wsRaw = [null, ...order.map((i) => per[cats[i][0]])];
  const data = [d.t.map((t) => t / 1000), ...order.map((i) => cum[i])];
  wsMessage(`${d.t.length} points, ${d.step_ms < 0 ? "raw" : "step " + d.step_ms + " ms"}, average per step; ` +
    (totalsOnly && cats[0][0] === "all" ? "totals only (the collector could not classify pages)" : "stacked by category, sharing classes summed"));
  // Default picks: the first and the last sample, so the diff shows the whole range.
  if (state.t1 === null && state.t2 === null) {
    const ts = d.t.filter((_, i) => data.slice(1).some((s) => s[i] !== null));
    if (ts.length >= 2) setTimeout(() => setPicks(ts[0], ts[ts.length - 1]));
  }
  const key = pid + "|" + cats.map((c) => c[0]).join(",");
  if (state.wsPlot && state.wsPlot._key === key && !fresh) {
    state.wsPlot.setData(data);
    return;
  }
  if (state.wsPlot) state.wsPlot.destroy();
  const opts = {
    width: box.clientWidth || 800, height: 260,
    cursor: { drag: { x: true, y: false, setScale: false } },
    scales: { x: { time: true }, y: { range: (u, lo, hi) => [0, hi > 0 ? hi * 1.05 : 1] } },
    tzDate: tzUTC, padding: TIME_PADDING,
    axes: [timeAxis(), { size: 80, values: (u, v) => v.map((x) => bytes(x, 0)) }],
    series: [{ value: timeLegend },
      ...order.map((i) => ({
        label: catName(cats[i][0]), stroke: cats[i][1], fill: cats[i][1], width: 1, points: { show: false },
        value: (u, v, si, idx) => (idx === null || idx === undefined || !state.wsRaw[si] ? "–" : bytes(state.wsRaw[si][idx])),
      }))],
    plugins: [picksPlugin()],
    hooks: {
      setSelect: [(u) => {
        if (u.select.width < 4) return;
        const a = Math.round(u.posToVal(u.select.left, "x") * 1000);
        const b = Math.round(u.posToVal(u.select.left + u.select.width, "x") * 1000);
        state.dragged = Date.now();
        u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
        setPicks(a, b, true);
      }],
    },
  };
  state.wsPlot = new uPlot(opts, data, box);
  state.wsPlot._key = key;
  box.setAttribute("data-drawn", cats.length);
  const u = state.wsPlot;
  u.over.addEventListener("click", () => {
    if (Date.now() - (state.dragged || 0) < 300 || u.cursor.left < 0) return;
    const t = Math.round(u.posToVal(u.cursor.left, "x") * 1000);
    if (state.t1 !== null && state.t2 === null) setPicks(state.t1, t, true);
    else setPicks(t, null, true);
  });
  u.over.addEventListener("dblclick", () => { setPicks(null, null, true); loadWorkingSet(); });
}

function diffError(e) {
  if (e.status === 404 && /no such path/i.test(e.message))
    return "This daemon has no /api/v1/diff endpoint (an older memwatchd): the diff cannot be shown.";
  if (e.status === 404)
    return "No diff: " + e.message + " (region snapshots are kept only for watched processes, [daemon] watch).";
  return "The diff could not be computed: " + e.message;
}

function sumSharing(o, sharing) {
  if (!o) return null;
  return sharing.reduce((a, k) => a + (o[k] || 0), 0);
}

function signed(v) { return v === null || v === undefined ? "–" : (v > 0 ? "+" : "") + bytes(v); }
function deltaCell(v) { return el("td", { class: "num " + (v > 0 ? "up" : v < 0 ? "down" : "") }, signed(v)); }
function shortOwner(o) { return o ? String(o).split(/[\\/]/).pop() : ""; }

async function loadDiff() {
  const out = $("diff"), sum = $("diff-summary"), pid = state.pid, t1 = state.t1, t2 = state.t2;
  if (!pid || t1 === null || t2 === null) return;
  const url = "/api/v1/diff?pid=" + encodeURIComponent(pid) + "&from=" + t1 + "&to=" + t2 + "&limit=" + DIFF_LIMIT;
  $("diff-json").href = url;
  const seq = (state.diffSeq = (state.diffSeq || 0) + 1);
  let d;
  try {
    d = await getJSON(url);
    if (!d || !Array.isArray(d.regions) || !d.totals) throw new Error("unexpected answer");
  } catch (e) {
    if (seq !== state.diffSeq || pid !== state.pid) return;
    sum.textContent = "";
    out.replaceChildren(el("p", { class: "note", id: "diff-error" }, diffError(e)));
    return;
  }
  if (seq !== state.diffSeq || pid !== state.pid) return;
  state.snap1 = d.t1_ms ?? null; state.snap2 = d.t2_ms ?? null;
  if (state.wsPlot) state.wsPlot.redraw(false);
  const sharing = d.sharing || ["private", "shareable", "shared"];
  const cats = d.categories || CATS.map((c) => c[0]);
  sum.textContent = `${d.process || "?"} (pid ${d.pid ?? pid}): snapped to ${clock(d.t1_ms)} and ${clock(d.t2_ms)}` +
    ` (asked ${clock(d.from_ms ?? t1)} and ${clock(d.to_ms ?? t2)}), ${ms2text(d.t2_ms - d.t1_ms)} apart`;
  // Totals per category: T1, T2, change, and the change by sharing class.
  const tt = el("table", { id: "diff-totals", class: "fit" });
  const h = el("tr");
  for (const x of ["category", "at T1", "at T2", "change"].concat(sharing.map((s) => "Δ " + s)))
    h.append(el("th", { class: x === "category" ? "" : "num" }, x));
  tt.append(el("thead"), el("tbody"));
  tt.tHead.append(h);
  const total = { t1: 0, t2: 0, change: 0 }, totalSh = {};
  for (const c of cats) {
    const v1 = sumSharing(d.totals.t1?.[c], sharing), v2 = sumSharing(d.totals.t2?.[c], sharing);
    const ch = d.totals.change?.[c] ? sumSharing(d.totals.change[c], sharing) : (v2 ?? 0) - (v1 ?? 0);
    total.t1 += v1 || 0; total.t2 += v2 || 0; total.change += ch || 0;
    const tr = el("tr");
    const name = el("td");
    name.append(el("i", { class: "swatch", style: "background:" + (CAT_COLOR[c] || "#bbb") }), document.createTextNode(catName(c)));
    tr.append(name, el("td", { class: "num" }, bytes(v1)), el("td", { class: "num" }, bytes(v2)), deltaCell(ch));
    for (const s of sharing) {
      const v = d.totals.change?.[c]?.[s] ?? 0;
      totalSh[s] = (totalSh[s] || 0) + v;
      tr.append(deltaCell(v));
    }
    tt.tBodies[0].append(tr);
  }
  const ft = el("tr", { class: "total" });
  ft.append(el("td", {}, "working set"), el("td", { class: "num" }, bytes(total.t1)), el("td", { class: "num" }, bytes(total.t2)),
    deltaCell(total.change), ...sharing.map((s) => deltaCell(totalSh[s])));
  tt.tBodies[0].append(ft);
  // The changed regions, in the order given (largest change first).
  const nodes = [el("div", { class: "tscroll" })];
  nodes[0].append(tt);
  const n = d.regions_total ?? d.regions.length;
  nodes.push(el("p", { class: "muted", id: "diff-count" }, n === 0 ? "No region changed between the two moments."
    : `${num(n)} region${n === 1 ? "" : "s"} changed` + (n > d.regions.length ? `; the ${d.regions.length} largest changes listed` : "") +
      `; page size ${bytes(d.page_size || 4096)}`));
  if (d.regions.length) {
    const rt = el("table", { id: "diff-regions", class: "fit" });
    const hr = el("tr");
    for (const [x, cl] of [["change", ""], ["category", ""], ["base", ""], ["size", "num"], ["owner", "owner"], ["at T1", "num"], ["at T2", "num"], ["delta", "num"]])
      hr.append(el("th", { class: cl }, x));
    rt.append(el("thead"), el("tbody"));
    rt.tHead.append(hr);
    for (const r of d.regions) {
      const tr = el("tr", { "data-base": r.base });
      const badge = el("td");
      badge.append(el("span", { class: "badge ch-" + r.change }, r.change));
      const cat = el("td");
      cat.append(el("i", { class: "swatch", style: "background:" + (CAT_COLOR[r.category] || "#bbb") }), document.createTextNode(catName(r.category)));
      const owner = el("td", { class: "owner" }, r.owner ? r.owner : (r.owner_kind && r.owner_kind !== "unknown" ? r.owner_kind + (r.owner_id ? " " + r.owner_id : "") : "–"));
      owner.title = [r.owner, r.owner_kind && `kind ${r.owner_kind}`, r.owner_id ? `id ${r.owner_id}` : ""].filter(Boolean).join("\n");
      const delta = deltaCell(r.delta_bytes);
      if (r.delta) delta.title = sharing.map((s) => `${s} ${signed(r.delta[s] || 0)}`).join("\n");
      tr.append(badge, cat, el("td", { class: "mono" }, r.base), el("td", { class: "num" }, bytes(r.size)), owner,
        el("td", { class: "num" }, bytes(r.bytes_t1)), el("td", { class: "num" }, bytes(r.bytes_t2)), delta);
      rt.tBodies[0].append(tr);
    }
    const wrap = el("div", { class: "tscroll" });
    wrap.append(rt);
    nodes.push(wrap);
  }
  out.replaceChildren(...nodes);
  state.diffBases = new Map(d.regions.map((r) => [r.base, r.change]));
  loadMap(d.t2_ms);
}

// ---- address-space map -----------------------------------------------------------
// /api/v1/regions (the regions with resident pages at a moment) drawn in
// address order as blocks whose width grows with the logarithm of their size,
// so 4 KiB and 1 GiB regions are both visible; the gaps between them (free,
// reserved or not resident) get a bounded width with their size printed.
// The memwatch_vm_* series give the committed/reserved/free totals and the
// fragmentation figures.
const ADDR_TOP = 2 ** 47;	// 128 TiB of user address space (x64)
const VM_TYPES = [["image", "#6c8ebf"], ["mapped", "#e6ab02"], ["private", "#4daf4a"]];

function hex(n) { return "0x" + Math.round(n).toString(16).padStart(12, "0"); }
function logWidth(size, lo, hi) {
  return Math.max(lo, Math.min(hi, Math.round(4 + 5.5 * (Math.log2(Math.max(size, 4096)) - 12))));
}

function lastValue(s, at) {
  for (let i = s.values.length - 1; i >= 0; i--) if (s.values[i] !== null) return s.values[i];
  return null;
}

async function loadVmTotals(box, at) {
  const sel = `{__name__=~"memwatch_vm_(bytes|largest_free_bytes|free_blocks|regions)", pid=${quote(state.pid)}}`;
  const url = "/api/v1/query?match=" + encodeURIComponent(sel) + "&from=" + (at - 600000) + "&to=" + at + "&agg=last&max_points=10";
  $("vmmap-json").href = url;
  const d = await getJSON(url);
  const vm = {}, fig = {};
  for (const s of d.series) {
    const v = lastValue(s);
    if (v === null) continue;
    if (s.name === "memwatch_vm_bytes") (vm[s.labels.state] = vm[s.labels.state] || {})[s.labels.type] = v;
    else fig[s.name.replace(/^memwatch_vm_/, "")] = v;
  }
  if (!Object.keys(vm).length) throw new Error("no memwatch_vm_bytes samples");
  const tot = (st) => Object.values(vm[st] || {}).reduce((a, b) => a + b, 0);
  const committed = tot("committed"), reserved = tot("reserved"), free = tot("free");
  // The used address space (committed + reserved) as one bar by state and type:
  // free space is left out, or it would dwarf everything.
  const used = committed + reserved;
  const bar = el("div", { class: "stack", id: "vm-used" });
  const legend = el("div", { class: "legend" });
  for (const st of ["committed", "reserved"]) {
    for (const [ty, color] of VM_TYPES) {
      const v = vm[st]?.[ty] || 0;
      if (!v) continue;
      const style = `width:${(100 * v / (used || 1)).toFixed(2)}%;background:${color}` + (st === "reserved" ? ";opacity:.45" : "");
      bar.append(el("div", { style, title: `${st} ${ty}: ${bytes(v)}` }));
      const item = el("span");
      item.append(el("i", { style: `background:${color}` + (st === "reserved" ? ";opacity:.45" : "") }), document.createTextNode(`${st} ${ty} ${bytes(v)}`));
      legend.append(item);
    }
  }
  const largest = fig.largest_free_bytes ?? null;
  const frag = largest !== null && free > 0 ? 100 * (1 - largest / free) : null;
  const figs = el("div", { class: "figs", id: "vm-figures" });
  const figure = (label, value, title, id) => {
    const f = el("span", id ? { id } : {});
    f.append(el("b", {}, value), document.createTextNode(" " + label));
    if (title) f.title = title;
    figs.append(f);
  };
  figure("committed", bytes(committed));
  figure("reserved", bytes(reserved));
  figure("free", bytes(free));
  figure("largest free block", bytes(largest), "the largest contiguous free range: the biggest allocation that can still succeed", "largest-free");
  if (fig.free_blocks !== undefined) figure("free blocks", num(fig.free_blocks));
  if (fig.regions !== undefined) figure("regions", num(fig.regions));
  figure("fragmentation", frag === null ? "–" : frag.toFixed(frag < 1 ? 3 : 1) + " %", "1 − largest free block / all free space: 0 % when the free space is one block", "fragmentation");
  box.append(figs, el("div", { class: "muted" }, `used address space ${bytes(used)}, by state and type (reserved drawn pale; free space not drawn):`), bar, legend);
}

function mapBlock(cls, width, label, title) {
  const b = el("div", { class: cls, style: `flex-basis:${width}px`, title });
  if (label && width >= 46) b.append(el("span", {}, label));
  return b;
}

function drawRegions(box, d) {
  const regions = (d.regions || []).map((r) => ({ ...r, b: Number(BigInt(r.base)) }))
    .filter((r) => Number.isFinite(r.b)).sort((x, y) => x.b - y.b);
  const top = Math.max(ADDR_TOP, ...regions.map((r) => r.b + r.size));
  const map = el("div", { class: "addrmap", id: "addrmap-blocks" });
  let at = 0, blocks = 0, gaps = 0, resident = 0;
  const gap = (from, to) => {
    const g = to - from;
    if (g < 65536) return;	// below the allocation granularity: no gap drawn
    gaps++;
    map.append(mapBlock("gap", logWidth(g, 8, 84), bytes(g, -1), `${hex(from)} – ${hex(to)}: ${bytes(g)} without resident pages (free, reserved or paged out)`));
  };
  for (const r of regions) {
    gap(at, r.b);
    const res = r.resident ? (r.resident.private || 0) + (r.resident.shareable || 0) + (r.resident.shared || 0) : 0;
    resident += res;
    const change = state.diffBases && state.diffBases.get(r.base);
    const owner = r.owner ? shortOwner(r.owner) : "";
    const cls = "blk" + (change ? " changed ch-" + change : "");
    const b = mapBlock(cls, logWidth(r.size, 4, 150), owner || catName(r.category),
      `${r.base} – ${hex(r.b + r.size)}  ${bytes(r.size)}\n${catName(r.category)}${r.owner ? "\n" + r.owner : r.owner_kind ? "\n" + r.owner_kind : ""}` +
      `\nresident ${bytes(res)}` + (r.resident ? ` (private ${bytes(r.resident.private || 0)}, shareable ${bytes(r.resident.shareable || 0)}, shared ${bytes(r.resident.shared || 0)})` : "") +
      (change ? `\nchanged since T1: ${change}` : ""));
    b.style.background = CAT_COLOR[r.category] || "#bbb";
    b.dataset.base = r.base;
    map.append(b);
    blocks++;
    at = Math.max(at, r.b + r.size);
  }
  gap(at, top);
  box.append(el("div", { class: "addr-ends muted" }, `${hex(0)} (low) → ${hex(top)} (high), left to right, row after row`), map);
  box.setAttribute("data-blocks", blocks);
  box.setAttribute("data-gaps", gaps);
  box.append(el("p", { class: "muted" }, `${num(blocks)} regions with resident pages, ${bytes(resident)} resident; ` +
    `${num(gaps)} gaps of 64 KiB or more`));
}

async function loadMap(at) {
  if (!state.pid) return;
  const pid = state.pid;
  at = at ?? state.snap2 ?? state.t2 ?? Date.now();
  const seq = (state.mapSeq = (state.mapSeq || 0) + 1);
  const totals = el("div"), regionsBox = el("div", { id: "addrmap-inner" });
  $("map-when").textContent = `${state.name || ""} (pid ${pid}) at ${clock(at)}`;
  const rUrl = "/api/v1/regions?pid=" + encodeURIComponent(pid) + "&at=" + at;
  $("regions-json").href = rUrl;
  const [vmRes, rRes] = await Promise.allSettled([loadVmTotals(totals, at), getJSON(rUrl)]);
  if (seq !== state.mapSeq || pid !== state.pid) return;
  if (vmRes.status === "rejected")
    totals.append(el("p", { class: "muted" }, "No address-space totals for this process (" + vmRes.reason.message + "); watch it: [daemon] watch = " + (state.name || pid)));
  if (rRes.status === "fulfilled" && Array.isArray(rRes.value.regions)) {
    drawRegions(regionsBox, rRes.value);
  } else {
    const e = rRes.reason || new Error("unexpected answer");
    regionsBox.append(el("p", { class: "note", id: "map-error" }, e.status === 404 && /no such path/i.test(e.message)
      ? "This daemon has no /api/v1/regions endpoint (an older memwatchd): the region map cannot be drawn."
      : "No region map: " + e.message));
  }
  $("vmmap").replaceChildren(totals);
  $("addrmap").replaceChildren(regionsBox);
  const legend = $("addrmap-legend");
  legend.replaceChildren();
  for (const [c, color] of CATS) {
    const item = el("span");
    item.append(el("i", { style: "background:" + color }), document.createTextNode(catName(c)));
    legend.append(item);
  }
  const g = el("span");
  g.append(el("i", { class: "gap-swatch" }), document.createTextNode("gap (free, reserved or not resident), its size printed"));
  legend.append(g);
  const c = el("span");
  c.append(el("i", { class: "changed-swatch" }), document.createTextNode("changed between T1 and T2"));
  legend.append(c, el("span", { class: "muted" }, "width grows with log₂ of the size (4 KiB narrow, 1 GiB wide); gaps are capped"));
  markOverflow();
}

// Whether anything makes the page scroll sideways; tests read the attribute.
function markOverflow() {
  const r = document.documentElement;
  r.setAttribute("data-overflow-x", Math.max(0, r.scrollWidth - r.clientWidth));
  // Sections whose own content is wider than they are (they scroll inside).
  r.setAttribute("data-inner-overflow", [...document.querySelectorAll("main > section")]
    .filter((s) => s.offsetParent && s.scrollWidth > s.clientWidth + 1).map((s) => s.id).join(" "));
}

// ---- deep links --------------------------------------------------------------
// #pid=P[&started=S&process=NAME&series=KEY] opens on that process (a watched
// one needs no live row), with &t1=MS&t2=MS the diff of those moments;
// choose() writes the same hash.  &show=diff or &show=map: that panel alone
// (for screenshots and links).
async function applyHash() {
  const h = new URLSearchParams(location.hash.replace(/^#/, ""));
  if (/^(diff|map)$/.test(h.get("show") || "")) document.body.dataset.show = h.get("show");
  const pid = h.get("pid");
  if (!pid) return;
  let name = h.get("process"), started = h.get("started");
  if (!name) {
    try {
      const d = await getJSON("/api/v1/series?match=" +
        encodeURIComponent(`{__name__=~"memwatch_(workingset|vm|process_private)_bytes", pid=${quote(pid)}}`));
      const s = d.series.find((x) => x.labels.started) || d.series[0];
      name = s ? s.labels.process : null;
      started = started || (s && s.labels.started) || null;
    } catch (e) { /* the panels say what is missing */ }
  }
  const t1 = Number(h.get("t1")), t2 = Number(h.get("t2"));
  choose({ pid, process: name || null, started, series: h.get("series") }, { by: "link" });
  if (t1 > 0 && t2 > 0) setPicks(t1, t2, true);
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
$("selector").addEventListener("change", () => { state.zoomed = false; state.leak = null; loadChart(); });
// A hash typed or pasted into the address bar chooses too; the page's own
// links scroll without replacing the hash that holds the selection.
window.addEventListener("hashchange", () => { if (new URLSearchParams(location.hash.replace(/^#/, "")).has("pid")) applyHash(); });
for (const a of document.querySelectorAll('nav a[href^="#"]'))
  a.addEventListener("click", (e) => { e.preventDefault(); $(a.getAttribute("href").slice(1))?.scrollIntoView(); });
// A new range: the selected process's panels first, then the leak
// verdicts.  Judging every process over a long range takes one of the
// daemon's few web threads for a while (0.4-1 s for 300 processes over 7
// days), and a request the browser sends on a kept-alive connection of
// that thread waits for it: asked last, it holds up nothing else.
$("range").addEventListener("change", async () => {
  state.zoomed = false;
  await Promise.allSettled([loadChart(), loadWorkingSet(), loadExitLeaks()]);
  loadLeaks();
});
$("leaks-match").addEventListener("change", () => loadLeaks());
$("agg").addEventListener("change", () => loadChart());
window.addEventListener("resize", () => {
  if (state.plot) state.plot.setSize({ width: $("chart").clientWidth, height: 320 });
  if (state.wsPlot) state.wsPlot.setSize({ width: $("ws-chart").clientWidth, height: 260 });
  markOverflow();
});

loadHealth();
applyHash();
loadLeaks();
loadExitLeaks();
loadProcesses();
loadChart();
setInterval(() => { if ($("follow").checked && !state.zoomed) loadChart(); }, 2000);
setInterval(loadProcesses, 5000);
setInterval(loadLeaks, 60000);
setInterval(loadExitLeaks, 15000);
setInterval(loadHealth, 15000);
setInterval(() => loadWorkingSet(), 15000);
setInterval(markOverflow, 1000);
