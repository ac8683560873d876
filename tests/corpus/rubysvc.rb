# lk_ruby (argument "leak") / ok_ruby (the allocators set): a Ruby
# service's heap under Ruby's GC.  Ten times a second it builds 300
# request hashes that die at once and replaces 50 entries of a
# 20,000-entry cache of 200-800-byte strings; the leak also keeps a
# session hash per request, about RATE bytes an hour (the bytes per
# session measured from /proc/self/statm over the first 2,000 sessions,
# which the leak keeps, so it reuses no memory freed at start).
# Usage: ruby rubysvc.rb ok|leak NAME RATE.  Logs "elapsed_ms
# leaked_bytes" once a minute to $CORPUS_LOG/NAME.log.
leak = ARGV[0] == 'leak'
name = ARGV[1] || 'ruby'
rate = (ARGV[2] || '0').to_f
log = ENV['CORPUS_LOG'] ? File.open(File.join(ENV['CORPUS_LOG'], name + '.log'), 'w') : nil
log.sync = true if log
def rss = File.read('/proc/self/statm').split[1].to_i * 4096
def session(i) = { id: i, user: format('user-%08d', i), seen: Time.now.to_f, roles: ["r#{i % 13}"] }
GC.start
a = rss
sessions = (1..2000).map { |i| session(i) }
per = [(rss - a) / 2000.0, 100.0].max
sessions = [] unless leak
cache = Array.new(20000) { |i| 'v' * (200 + i % 600) }
owed = 0.0; n = 0
t0 = Process.clock_gettime(Process::CLOCK_MONOTONIC); last = t0; nxt = 0
loop do
  now = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  300.times { |k| req = { path: "/item/#{k}", method: 'GET', hdr: ['a', 'b', now] } }
  50.times { cache[rand(20000)] = 'v' * (200 + rand(600)) }
  if leak
    owed += rate * (now - last) / 3600.0
    while owed >= per
      sessions << session(n); n += 1; owed -= per
    end
  end
  last = now
  e = now - t0
  if log && e >= nxt
    log.printf("%d %d\n", e * 1000, n * per); nxt += 60
  end
  sleep 0.1
end
