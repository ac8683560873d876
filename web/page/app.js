// app.js - memwatch's chart page: process table, a uPlot chart of any
// selector with zoom and live follow, the per-process breakdown bar and
// the address-space view.  Everything comes from this daemon's JSON API;
// nothing is fetched from anywhere else.
"use strict";

const $ = (id) => document.getElementById(id);
const state = { sort: "private_bytes", pid: null, started: null, name: null, plot: null, zoomed: false };

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
async function loadProcesses() {
  const url = "/api/v1/processes?sort=" + encodeURIComponent(state.sort) + "&limit=200";
  $("proc-json").href = url;
  let data;
  try { data = await getJSON(url); } catch (e) { $("proc-count").textContent = e.message; return; }
  const tb = $("processes").tBodies[0];
  tb.replaceChildren();
  for (const p of data.processes) {
    const tr = el("tr");
    tr.dataset.pid = p.pid;
    if (p.pid === state.pid) tr.className = "selected";
    const g = p.private_growth_bytes;
    tr.append(el("td", {}, p.process), el("td", {}, p.pid),
      el("td", { class: "num" }, bytes(p.private_bytes)),
      el("td", { class: "num" }, bytes(p.working_set_bytes)),
      el("td", { class: "num " + (g > 0 ? "up" : g < 0 ? "down" : "") }, g === null ? "–" : (g > 0 ? "+" : "") + bytes(g)),
      el("td", { class: "num" }, bytes(p.virtual_bytes)),
      el("td", { class: "num" }, p.handles ?? "–"), el("td", { class: "num" }, p.threads ?? "–"));
    tr.addEventListener("click", () => selectProcess(p));
    tb.append(tr);
  }
  $("proc-count").textContent = `${data.processes.length} live`;
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
    loadChart();
  }
  loadDetail();
}

// ---- chart -----------------------------------------------------------------
function queryURL() {
  const width = Math.max(200, Math.min(4000, $("chart").clientWidth || 1000));
  return "/api/v1/query?match=" + encodeURIComponent($("selector").value.trim()) +
    "&from=" + encodeURIComponent($("range").value) + "&to=now&agg=" + $("agg").value +
    "&max_points=" + width;
}

function seriesLabel(s) {
  const l = Object.entries(s.labels).filter(([k]) => k !== "started").map(([k, v]) => `${k}=${v}`);
  return s.name.replace(/^memwatch_/, "") + (l.length ? " {" + l.join(", ") + "}" : "");
}

const PALETTE = ["#2f6fdb", "#d6604d", "#4daf4a", "#8c6bb1", "#e6ab02", "#17becf", "#7f7f7f"];

async function loadChart() {
  const url = queryURL();
  $("chart-json").href = url;
  let d;
  try { d = await getJSON(url); } catch (e) { $("chart-msg").textContent = e.message; return; }
  $("chart-msg").textContent = `${d.t.length} points, ` +
    (d.step_ms < 0 ? "raw" : `step ${d.step_ms} ms`) + `, tier ${d.tier}` +
    (d.truncated ? " (truncated)" : "");
  const data = [d.t.map((t) => t / 1000), ...d.series.map((s) => s.values)];
  const key = d.series.map((s) => s.id).join(",");
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
    series: [{}, ...d.series.map((s, i) => ({
      label: seriesLabel(s), stroke: PALETTE[i % PALETTE.length], width: 1.5, spanGaps: false,
      value: (u, v) => isBytes ? bytes(v) : (v ?? "–"),
    }))],
    hooks: { setSelect: [(u) => { if (u.select.width > 0) state.zoomed = true; }] },
  };
  state.plot = new uPlot(opts, data, $("chart"));
  state.plot._key = key;
  // Double-click resets the zoom and resumes following.
  state.plot.over.addEventListener("dblclick", () => { state.zoomed = false; loadChart(); });
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
  th.addEventListener("click", () => { state.sort = th.dataset.sort; loadProcesses(); });
$("selector").addEventListener("change", () => { state.zoomed = false; loadChart(); });
$("range").addEventListener("change", () => { state.zoomed = false; loadChart(); });
$("agg").addEventListener("change", () => loadChart());
window.addEventListener("resize", () => { if (state.plot) state.plot.setSize({ width: $("chart").clientWidth, height: 320 }); });

loadHealth();
loadProcesses();
loadChart();
setInterval(() => { if ($("follow").checked && !state.zoomed) loadChart(); }, 2000);
setInterval(loadProcesses, 5000);
setInterval(loadHealth, 15000);
