// page_requests.js PORT URL PNG - run by tests/api/page_requests.sh with node --experimental-websocket:
// over the Chrome DevTools protocol of a headless Chromium on PORT, opens URL,
// waits for the leak rows and their sparklines, the working set and the map
// of the selected process and no call open, then counts the page's own
// fetches (a wrapper around window.fetch installed at the page's start:
// every call, and how many are still open) while it switches the range to
// 7 days, until every call has answered
// and each leak row with a series has its sparkline again.  Prints one JSON
// line: the calls' URLs, the rows with and without a sparkline, what the
// chart and the working-set chart say after the switch, and the ms from the
// switch to the last answer read with each call's own time and size
// (figures, not checked; bench/page_week.sh prints them).
const [port, url, png] = process.argv.slice(2);
const { sleep, connect, out } = require("./devtools.js");
(async () => {
  const { send, ev, finish } = await connect(port);
  const rows = `(() => { const r = [...document.querySelectorAll("#leaks-table tbody tr")].filter((tr) => tr.dataset.series);
    return { rows: r.length, drawn: r.filter((tr) => tr.querySelector(".spark-cell svg")).length }; })()`;
  const waitFor = async (expr) => { for (let i = 0; i < 80 && !(await ev(`!!(${expr})`)); i++) await sleep(250); };
  await send("Page.enable");
  // The wrapper from the page's start, so the first load's own calls (the
  // selected process's diff and map follow the working set) are seen
  // settling before the switch, and are not counted as the switch's.
  await send("Page.addScriptToEvaluateOnNewDocument", { source: `
    window.__calls = []; window.__open = 0; window.__t0 = 0; window.__t1 = 0;
    const f = window.fetch.bind(window);
    window.fetch = (u, o) => { window.__calls.push(String(u)); window.__open++;
      return f(u, o).then(async (r) => { await r.clone().text(); window.__open--; window.__t1 = performance.now(); return r; },
                          (e) => { window.__open--; throw e; }); };` });
  await send("Page.navigate", { url });
  await waitFor(`(${rows}).rows > 0 && (${rows}).drawn === (${rows}).rows && window.__open === 0 &&
    document.getElementById("ws-chart").dataset.drawn && document.getElementById("addrmap-inner")`);
  await ev(`(() => {
    performance.clearResourceTimings(); performance.setResourceTimingBufferSize(10000);
    window.__calls = []; window.__t0 = performance.now(); window.__t1 = window.__t0;
    for (const tr of document.querySelectorAll("#leaks-table tbody tr")) tr.querySelector(".spark-cell")?.replaceChildren();
    const s = document.getElementById("range"); s.value = "-7d"; s.dispatchEvent(new Event("change"));
    return true; })()`);
  // Settled: no call open and every row drawn again (bounded ~20 s).
  await waitFor(`window.__open === 0 && (${rows}).rows > 0 && (${rows}).drawn === (${rows}).rows`);
  // Each call's own time (Resource Timing: request sent to the last byte
  // read, so the server's work and the transfer), when it started and
  // ended after the switch, and its body's size.
  const timing = `performance.getEntriesByType("resource").filter((e) => e.startTime >= window.__t0)
    .map((e) => ({ url: e.name.replace(location.origin, ""), ms: Math.round(e.responseEnd - e.requestStart),
      start: Math.round(e.startTime - window.__t0), end: Math.round(e.responseEnd - window.__t0), bytes: e.encodedBodySize }))`;
  out("switch", Object.assign(await ev(rows), { calls: await ev("window.__calls"), open: await ev("window.__open"),
    ms: await ev("Math.round(window.__t1 - window.__t0)"), timing: await ev(timing),
    // what the selected process's panels show after the switch
    chartMsg: await ev(`document.getElementById("chart-msg").textContent`),
    wsDrawn: await ev(`Number(document.getElementById("ws-chart").dataset.drawn || 0)`),
    wsMsg: await ev(`document.getElementById("ws-msg").textContent`) }));
  await finish(png);
})().catch((e) => { console.error(e); process.exit(1); });
