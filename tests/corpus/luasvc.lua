-- lk_lua (argument "leak") / ok_lua (the allocators set): a Lua 5.4
-- service under Lua's incremental GC.  Ten times a second (ticks read
-- from a child shell, as stock Lua has no sleep) it builds 300 request
-- tables that die at once and replaces 50 entries of a 20,000-entry cache
-- of 200-800-byte strings; the leak also keeps a session table per
-- request, about RATE bytes an hour (bytes per session from
-- collectgarbage("count") over the first 2,000 sessions, which the leak
-- keeps, so it reuses no memory freed at start).
-- Usage: lua luasvc.lua ok|leak NAME RATE.  Logs "elapsed_ms
-- leaked_bytes" once a minute to $CORPUS_LOG/NAME.log.
local leak = arg[1] == "leak"
local name = arg[2] or "lua"
local rate = tonumber(arg[3] or "0")
local log
if os.getenv("CORPUS_LOG") then
  log = io.open(os.getenv("CORPUS_LOG") .. "/" .. name .. ".log", "w")
  log:setvbuf("line")
end
local function session(i)
  return { id = i, user = string.format("user-%08d", i), seen = os.time(), roles = { "r" .. (i % 13) } }
end
collectgarbage("collect")
local a = collectgarbage("count") * 1024
local sessions = {}
for i = 1, 2000 do sessions[i] = session(i) end
local per = math.max((collectgarbage("count") * 1024 - a) / 2000, 100)
if not leak then sessions = {} end
local cache = {}
for i = 1, 20000 do cache[i] = string.rep("v", 200 + i % 600) .. i end
local n, owed = #sessions, 0
local ticks = io.popen("while sleep 0.1; do echo; done")
local t0 = os.time()
local tick, nxt = 0, 0
for _ in ticks:lines() do
  tick = tick + 1
  for k = 1, 300 do local req = { path = "/item/" .. k, method = "GET", hdr = { "a", "b", tick } } end
  for _ = 1, 50 do cache[math.random(20000)] = string.rep("v", 200 + math.random(600)) .. tick end
  local e = os.time() - t0
  if leak then
    owed = owed + rate / 36000
    while owed >= per do n = n + 1; sessions[n] = session(n); owed = owed - per end
  end
  if log and e >= nxt then log:write(string.format("%d %d\n", e * 1000, math.floor(n * per))); nxt = nxt + 60 end
end
