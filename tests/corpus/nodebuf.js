// lk_nodebuf (argv "leak") / ok_nodebuf, the langs set (session 29): a
// Node service whose memory is mostly Buffers, outside V8's heap (malloc'd
// by Node, freed when the collector finds their wrappers dead).  Every 50
// ms a "request" reads 100 Buffers of 1-8 KiB that die young and replaces
// 50 random entries of a 4,000-entry cache of 2-6 KiB Buffers (about 16
// MB).  The leak keeps a 256-2,048-byte Buffer made from a string per
// request forever (Buffer.from: small ones are slices of Node's shared 8
// KiB pool, which they keep alive), at a design rate of 6 MiB/h of their
// lengths, logged once a minute to $CORPUS_LOG/<name>.log as "elapsed_ms
// leaked_bytes".
'use strict';
const fs = require('fs');
const path = require('path');
const leak = process.argv[2] === 'leak';
const name = path.basename(process.execPath);
const logdir = process.env.CORPUS_LOG;
const log = logdir ? fs.openSync(path.join(logdir, name + '.log'), 'w') : null;

const RATE = 6 * 1024 * 1024 / 3600;
const rnd = (lo, span) => lo + Math.floor(Math.random() * span);
const cache = new Array(4000);
for (let i = 0; i < cache.length; i++) cache[i] = Buffer.alloc(rnd(2048, 4097), i & 255);
const kept = [];
let owed = 0, leaked = 0;
const t0 = Date.now(); let last = t0; let nextLog = 0; let sink = 0;
setInterval(() => {
  const now = Date.now();
  for (let k = 0; k < 100; k++) {
    const b = Buffer.allocUnsafe(rnd(1024, 7169));
    b[0] = k;
    sink += b[0];
  }
  for (let k = 0; k < 50; k++) cache[rnd(0, cache.length)] = Buffer.alloc(rnd(2048, 4097), k);
  if (leak) {
    owed += RATE * (now - last) / 1000;
    while (owed >= 256) {
      const b = Buffer.from('s'.repeat(rnd(256, 1793)) + now);
      kept.push(b);
      leaked += b.length;
      owed -= b.length;
    }
  }
  last = now;
  const e = (now - t0) / 1000;
  if (log !== null && e >= nextLog) { fs.writeSync(log, `${Math.round(e * 1000)} ${leaked}\n`); nextLog += 60; }
  if (sink === -1) console.log(kept.length);
}, 50);
