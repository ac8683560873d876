// devtools.js - the Chrome DevTools protocol client shared by the page tests'
// drivers (tests/api/page_click.js, page_select.js; node 20+ with
// --experimental-websocket): the first page tab of a headless Chromium on a
// port, one request/answer call over its WebSocket, an evaluate that returns
// the value (or {error} when the page threw), a mouse event, a JSON-lines
// step printer and a screenshot saved to a file.  One copy, so both drivers
// speak the protocol the same way.
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// connect(PORT): the page's DevTools session, once its WebSocket is open.
// Chromium may still be starting: /json is polled for up to ~10 s.
async function connect(port) {
  let tabs;
  for (let i = 0; i < 50; i++) { try { tabs = await (await fetch(`http://127.0.0.1:${port}/json`)).json(); break; } catch { await sleep(200); } }
  const page = tabs.find((t) => t.type === "page");
  const ws = new WebSocket(page.webSocketDebuggerUrl);
  await new Promise((r) => ws.addEventListener("open", r));
  let id = 0; const pending = {};
  ws.addEventListener("message", (m) => { const d = JSON.parse(m.data); if (d.id && pending[d.id]) { pending[d.id](d); delete pending[d.id]; } });
  const send = (method, params = {}) => new Promise((r) => { const i = ++id; pending[i] = r; ws.send(JSON.stringify({ id: i, method, params })); });
  const ev = async (expr) => {
    const r = (await send("Runtime.evaluate", { expression: expr, returnByValue: true, awaitPromise: true })).result;
    if (r.exceptionDetails) return { error: r.exceptionDetails.exception?.description || r.exceptionDetails.text };
    return r.result.value;
  };
  const mouse = async (type, x, y) => send("Input.dispatchMouseEvent", { type, x, y, button: "left", clickCount: 1 });
  // screenshot(PNG) then close: the last step of a driver.
  const finish = async (png) => {
    const shot = await send("Page.captureScreenshot", { format: "png" });
    require("fs").writeFileSync(png, Buffer.from(shot.result.data, "base64"));
    ws.close();
    process.exit(0);
  };
  return { send, ev, mouse, finish };
}

// out(STEP, VALUE): one JSON line the shell test reads back.
const out = (step, v) => console.log(JSON.stringify({ step, v }));

module.exports = { sleep, connect, out };
