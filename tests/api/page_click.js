// page_click.js PORT URL PNG - run by tests/api/page_map.sh with node --experimental-websocket:
// over the Chrome DevTools protocol of a headless Chromium on PORT, opens URL,
// clicks the working-set chart twice (T1, T2), then drags across a span, and
// prints the page state after each step as JSON lines; saves a screenshot.
const [port, url] = process.argv.slice(2);
const { sleep, connect, out } = require("./devtools.js");
(async () => {
  const { send, ev, mouse, finish } = await connect(port);
  await send("Page.navigate", { url });
  await sleep(4000);
  const box = await ev(`(() => { const r = state.wsPlot.over.getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; })()`);
  out("defaults", await ev(`[state.t1, state.t2, document.querySelectorAll("#diff-regions tbody tr").length]`));
  const click = async (x, y) => { await mouse("mouseMoved", x, y); await mouse("mousePressed", x, y); await mouse("mouseReleased", x, y); await sleep(300); };
  const y = box[1] + box[3] / 2;
  await click(box[0] + box[2] * 0.25, y);
  out("click1", await ev(`[state.t1 && clock(state.t1), state.t2, $("ws-hint").textContent]`));
  await click(box[0] + box[2] * 0.6, y);
  await sleep(1500);
  out("click2", await ev(`[clock(state.t1), clock(state.t2), $("diff-summary").textContent, document.querySelectorAll("#diff-regions tbody tr").length]`));
  // drag from 10% to 40%
  await mouse("mouseMoved", box[0] + box[2] * 0.1, y);
  await mouse("mousePressed", box[0] + box[2] * 0.1, y);
  for (let f = 0.12; f <= 0.4; f += 0.04) await mouse("mouseMoved", box[0] + box[2] * f, y);
  await mouse("mouseReleased", box[0] + box[2] * 0.4, y);
  await sleep(1500);
  out("drag", await ev(`[clock(state.t1), clock(state.t2), $("diff-summary").textContent, state.wsPlot.scales.x.min, state.wsPlot.select.width]`));
  await finish(process.argv[4]);
})();
