// lk_node_svc (argv "leak") / ok_node_svc: a service-like V8 heap, unlike
// nodeleak.js's extreme one.  Every 50 ms a "request" builds some 200 KB of
// objects that die young (scavenges), and replaces 200 random entries of a
// 20,000-entry cache (old-space garbage: the mark-compacts' sawtooth, tens
// of MB deep).  The leak also keeps a session record per request forever,
// at a design rate of 10 MiB/h (bytes per record measured at start with
// --expose-gc), logged once a minute to $CORPUS_LOG/<name>.log as
// "elapsed_ms leaked_bytes".
'use strict';
const fs = require('fs');
const path = require('path');
const leak = process.argv[2] === 'leak';
const name = path.basename(process.execPath);
const logdir = process.env.CORPUS_LOG;
const log = logdir ? fs.openSync(path.join(logdir, name + '.log'), 'w') : null;

function session(i) {
  return { id: i, user: 'user-' + String(i).padStart(8, '0'), seen: Date.now(), roles: ['r' + (i % 13)] };
}
function entry(i) {
  return { key: 'k' + i, body: 'v'.repeat(200 + (i % 600)), hits: 0 };
}
let per = 150;
if (global.gc) {
  global.gc(); const a = process.memoryUsage().heapUsed;
  const probe = []; for (let i = 0; i < 20000; i++) probe.push(session(i));
  global.gc(); per = (process.memoryUsage().heapUsed - a) / 20000; probe.length = 0;
}
const RATE = 10 * 1024 * 1024 / 3600;
const cache = new Array(20000);
for (let i = 0; i < cache.length; i++) cache[i] = entry(i);
const sessions = new Map();
let owed = 0, n = 0, seq = 0;
const t0 = Date.now(); let last = t0; let nextLog = 0;
setInterval(() => {
  const now = Date.now();
  const req = [];
  for (let k = 0; k < 2000; k++) req.push({ k, path: '/item/' + k, hdr: ['a', 'b', String(now)] });
  for (let k = 0; k < 200; k++) { const j = Math.floor(Math.random() * cache.length); cache[j] = entry(seq++); }
  if (leak) {
    owed += RATE * (now - last) / 1000;
    while (owed >= per) { sessions.set(n, session(n)); n++; owed -= per; }
  }
  last = now;
  const e = (now - t0) / 1000;
  if (log !== null && e >= nextLog) { fs.writeSync(log, `${Math.round(e * 1000)} ${Math.round(n * per)}\n`); nextLog += 60; }
  if (req.length === -1) console.log(req);
}, 50);
