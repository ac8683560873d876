// lk_node (argv "leak") / ok_node_gc: V8 under a large GC sawtooth.  Every
// 100 ms some 4 MB of objects are made; they are kept for ~10 s (so they
// survive the scavenges, are promoted and die in old space: the old
// generation grows until a mark-compact, a sawtooth tens of MB deep).  The
// leak also keeps records forever at a design rate of 20 MiB/h (bytes per
// record measured once at start with --expose-gc), logged once a minute to
// $CORPUS_LOG/<name>.log as "elapsed_ms leaked_bytes".
'use strict';
const fs = require('fs');
const path = require('path');
const leak = process.argv[2] === 'leak';
const name = path.basename(process.execPath);
const logdir = process.env.CORPUS_LOG;
const log = logdir ? fs.openSync(path.join(logdir, name + '.log'), 'w') : null;

function record(i) {
  return { id: i, name: 'user-' + String(i).padStart(8, '0'), tags: ['a' + (i % 97), 'b' + (i % 89)],
           payload: new Array(16).fill(i) };
}
let per = 200;
if (global.gc) {
  global.gc(); const a = process.memoryUsage().heapUsed;
  const probe = []; for (let i = 0; i < 20000; i++) probe.push(record(i));
  global.gc(); per = (process.memoryUsage().heapUsed - a) / 20000; probe.length = 0;
}
const RATE = 20 * 1024 * 1024 / 3600;
const kept = [];
let generations = [[]];
let owed = 0, i = 0;
const t0 = Date.now(); let last = t0; let nextLog = 0;
setInterval(() => {
  const now = Date.now();
  const cur = generations[generations.length - 1];
  for (let k = 0; k < 20000; k++) cur.push({ k, s: 'x' + k, a: [k, k + 1, k + 2] });
  if ((now - t0) % 10000 < 100 || cur.length > 2000000) { generations.push([]); if (generations.length > 1) generations.shift(); }
  if (leak) {
    owed += RATE * (now - last) / 1000;
    while (owed >= per) { kept.push(record(i++)); owed -= per; }
  }
  last = now;
  const e = (now - t0) / 1000;
  if (log !== null && e >= nextLog) { fs.writeSync(log, `${Math.round(e * 1000)} ${Math.round(kept.length * per)}\n`); nextLog += 60; }
}, 100);
