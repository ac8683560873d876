// page_select.js PORT URL PNG - run by tests/api/page_select.sh with node --experimental-websocket:
// over the Chrome DevTools protocol of a headless Chromium on PORT, opens URL
// and records, as JSON lines, which process every panel asks for and names
// (the chart, the breakdown, the working set over time, the diff, the map)
// after each step: opening, clicking a leak row, clicking a process-table
// row, clicking the other leak row again, and opening the page's own URL
// afresh (a reload or a shared link).  Then the times the page shows: the
// chart legend and axis ticks, the leak's "since", the diff summary and the
// map title.  Saves a screenshot.
const [port, url, png] = process.argv.slice(2);
const { sleep, connect, out } = require("./devtools.js");
(async () => {
  const { send, ev, mouse, finish } = await connect(port);
  // A real mouse click at the middle of the element the expression finds.
  const click = async (find) => {
    const box = await ev(`(() => { const e = ${find}; if (!e) return null; e.scrollIntoView({ block: "center" });
      const r = e.getBoundingClientRect(); return [r.left + Math.min(r.width / 2, 60), r.top + r.height / 2]; })()`);
    if (!box || box.error) return false;
    await mouse("mouseMoved", box[0], box[1]); await mouse("mousePressed", box[0], box[1]); await mouse("mouseReleased", box[0], box[1]);
    return true;
  };
  const leakRow = (name) => `[...document.querySelectorAll("#leaks-table tbody tr")].find((tr) => tr.cells[1].textContent.startsWith(${JSON.stringify(name)}))`;
  const procRow = (pid) => `[...document.querySelectorAll("#processes tbody tr")].find((tr) => tr.cells[1].textContent === ${JSON.stringify(pid)})`;
  // What every panel asked for (its JSON link is the request it made) and the title it shows.
  const panels = `(() => {
    const q = (id) => { const e = document.getElementById(id); return e ? decodeURIComponent(e.getAttribute("href") || "") : null; };
    const t = (id) => { const e = document.getElementById(id); return e ? e.textContent : null; };
    return {
      chart: q("chart-json"), chart_title: t("chart-proc"),
      breakdown: q("breakdown-json"), breakdown_title: t("detail-proc"),
      ws: q("ws-json"), ws_title: t("ws-proc"),
      diff: q("diff-json"), diff_title: t("diff-summary"),
      vm: q("vmmap-json"), regions: q("regions-json"), map_title: t("map-when"),
      leak_selected: [...document.querySelectorAll("#leaks-table tbody tr.selected")].map((tr) => tr.cells[1].textContent),
      table_selected: [...document.querySelectorAll("#processes tbody tr.selected")].map((tr) => tr.cells[1].textContent),
      url: location.href,
    };
  })()`;
  // The panels once they all name pid (the diff and the map load last), or
  // as they are after ~12 s: on a busy machine no fixed sleep is enough.
  const settle = async (pid, first) => {
    await sleep(first);
    const want = new RegExp(`pid="?${pid}\\b`);
    let v;
    for (let i = 0; i < 48; i++) {
      v = await ev(panels);
      if (v && ["chart", "breakdown", "ws", "diff", "vm", "regions"].every((k) => v[k] && want.test(v[k])) &&
          [v.diff_title, v.map_title].every((t) => (t || "").includes(`pid ${pid}`))) break;
      await sleep(250);
    }
    return v;
  };
  // Rows exist once the leaks and the processes have loaded.
  const waitFor = async (expr) => { for (let i = 0; i < 60 && !(await ev(`!!(${expr})`)); i++) await sleep(250); };
  await send("Page.enable");
  await send("Page.navigate", { url });
  await waitFor(leakRow("leaky.exe"));
  await waitFor(procRow("5151"));
  out("open", await settle("5151", 1000));
  out("leak", (await click(leakRow("leaky.exe"))) ? await settle("4242", 1000) : "no leak row for leaky.exe");
  out("table", (await click(procRow("5151"))) ? await settle("5151", 1000) : "no table row for pid 5151");
  out("leak2", (await click(leakRow("leaky.exe"))) ? await settle("4242", 1000) : "no leak row for leaky.exe");
  const again = await ev("location.href");
  await send("Page.navigate", { url: "about:blank" });
  await sleep(300);
  await send("Page.navigate", { url: again });
  await waitFor(leakRow("leaky.exe"));
  out("reload", await settle("4242", 1500));
  // The times shown: legend (cursor in the middle), axis ticks, leak and diff texts.
  out("times", await ev(`(() => {
    const legend = (u) => {
      u.setCursor({ left: u.bbox.width / devicePixelRatio / 2, top: 10 });
      const i = u.cursor.idx;
      return { shown: u.root.querySelector(".u-legend .u-series .u-value").textContent,
        iso: i === null || i === undefined ? null : new Date(u.data[0][i] * 1000).toISOString() };
    };
    const row = ${leakRow("leaky.exe")};
    return {
      chart: state.plot ? { ...legend(state.plot), ticks: state.plot.axes[0]._values } : null,
      ws: state.wsPlot ? { ...legend(state.wsPlot), ticks: state.wsPlot.axes[0]._values } : null,
      since: row ? row.cells[3].textContent : null,
      leaks_summary: document.getElementById("leaks-summary").textContent,
      diff: document.getElementById("diff-summary").textContent,
      map: document.getElementById("map-when").textContent,
      hint: document.getElementById("ws-hint").textContent,
      tz: Intl.DateTimeFormat().resolvedOptions().timeZone,
    };
  })()`));
  // The page's own section links scroll; the hash keeps the selection.
  out("nav", (await click(`document.querySelector('nav a[href="#map-section"]')`)) ? (await sleep(500), await ev("location.hash")) : "no map link");
  await ev(`document.getElementById("chart-section").scrollIntoView({ block: "start" })`);
  await sleep(300);
  await finish(png);
})();
