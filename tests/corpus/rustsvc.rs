// Rust services for the langs set (session 29; std only, the system's
// glibc malloc under Rust's collections).  Every 50 ms a "request" builds
// some 100 KB of strings and vectors that die at once, and replaces 50
// random entries of a 10,000-entry HashMap cache of 500-1,500-byte values
// (about 10 MB live).  The workload's name (argv[0]'s file name) chooses:
//
//   lk_rust       also keeps a 64-512-byte record per request in a Vec
//                 forever, at 3 MiB/h from the start
//   lk_rustlate   the same at 4 MiB/h from 15 minutes on (a late onset)
//   ok_rustcache  no request cache: a HashMap cache filling toward 40 MiB
//                 of values over about 15 minutes (its table doubling as
//                 it grows), then replacing at random to stay there
//
// A leak's bytes are its records' usable sizes (malloc's 16-byte steps),
// logged once a minute to $CORPUS_LOG/<name>.log as "elapsed_ms
// leaked_bytes", as the other sets' workloads do.
use std::collections::HashMap;
use std::env;
use std::fs::File;
use std::io::Write;
use std::thread::sleep;
use std::time::{Duration, Instant};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn value(r: &mut Rng, lo: u64, span: u64) -> Vec<u8> {
    let n = (lo + r.below(span)) as usize;
    vec![(n % 251) as u8; n]
}

fn request(r: &mut Rng) -> usize {
    let mut parts: Vec<String> = Vec::with_capacity(400);
    for k in 0..400 {
        parts.push(format!("/item/{}/{}", k, r.next()).repeat(4));
    }
    let body: Vec<u64> = (0..2000).map(|_| r.next()).collect();
    parts.len() + body.len()
}

fn main() {
    let argv0 = env::args().next().unwrap_or_default();
    let name = argv0.rsplit('/').next().unwrap_or("lk_rust").to_string();
    let mut log = env::var("CORPUS_LOG")
        .ok()
        .and_then(|d| File::create(format!("{}/{}.log", d, name)).ok());
    let (rate, onset_s) = match name.as_str() {
        "lk_rust" => (3.0 * 1048576.0 / 3600.0, 0.0),
        "lk_rustlate" => (4.0 * 1048576.0 / 3600.0, 900.0),
        _ => (0.0, 0.0),
    };
    let filling = name == "ok_rustcache";
    let mut r = Rng(0x9e3779b97f4a7c15 ^ name.len() as u64);
    let mut cache: HashMap<u64, Vec<u8>> = HashMap::new();
    let mut cache_bytes: usize = 0;
    let cap: usize = 40 << 20;
    if !filling {
        for i in 0..10000u64 {
            let v = value(&mut r, 500, 1001);
            cache.insert(i, v);
        }
    }
    let mut kept: Vec<Box<[u8]>> = Vec::new();
    let (mut owed, mut leaked) = (0.0f64, 0u64);
    let t0 = Instant::now();
    let mut last = 0.0f64;
    let mut next_log = 0.0f64;
    let mut key: u64 = 10000;
    let mut sink = 0usize;
    loop {
        let e = t0.elapsed().as_secs_f64();
        if filling {
            // about 46 KB a second: 40 MiB in some 15 minutes
            for _ in 0..4 {
                let v = value(&mut r, 500, 1001);
                cache_bytes += v.len();
                cache.insert(key, v);
                key += 1;
                while cache_bytes > cap {
                    let k = key - 1 - r.below(key.min(200000));
                    if let Some(old) = cache.remove(&k) {
                        cache_bytes -= old.len();
                    }
                }
            }
        } else {
            sink = sink.wrapping_add(request(&mut r));
            for _ in 0..50 {
                let k = r.below(10000);
                cache.insert(k, value(&mut r, 500, 1001));
            }
        }
        if rate > 0.0 && e >= onset_s {
            owed += rate * (e - last.max(onset_s));
            while owed >= 64.0 {
                let n = 64 + r.below(449) as usize;
                let usable = ((n + 8 + 15) / 16 * 16 - 8) as u64;
                kept.push(vec![(n % 7) as u8; n].into_boxed_slice());
                leaked += usable;
                owed -= usable as f64;
            }
        }
        last = e;
        if e >= next_log {
            if let Some(f) = log.as_mut() {
                let _ = writeln!(f, "{} {}", (e * 1000.0).round() as u64, leaked);
                let _ = f.flush();
            }
            next_log += 60.0;
        }
        if sink == usize::MAX {
            println!("{} {}", sink, kept.len());
        }
        sleep(Duration::from_millis(if filling { 100 } else { 50 }));
    }
}
