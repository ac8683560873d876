#!/usr/bin/env bash
# once_native.sh - `memwatchd once` on this machine prints JSON with the
# system and process collectors' samples; bad options fail cleanly.
set -u
cd "$(dirname "$0")/../.."
exe=build/native/memwatchd
. tests/lib/tap.sh

out=$tmpdir
"$exe" once >"$out/once.json" 2>"$out/err"
check "once exits 0" "[ $? -eq 0 ]"
python3 - "$out/once.json" <<'PY' >"$out/py" 2>&1
import json, os, sys
d = json.load(open(sys.argv[1]))
cs = {c["name"]: c for c in d["collectors"]}
sysc = cs["system"]
assert sysc["supported"] is True, sysc
names = {s["name"] for s in sysc["samples"]}
for m in ("memwatch_system_physical_bytes", "memwatch_system_available_bytes",
          "memwatch_system_commit_bytes", "memwatch_system_commit_limit_bytes"):
    assert m in names, m
phys = [s["value"] for s in sysc["samples"] if s["name"] == "memwatch_system_physical_bytes"][0]
avail = [s["value"] for s in sysc["samples"] if s["name"] == "memwatch_system_available_bytes"][0]
assert 0 < avail <= phys, (avail, phys)
p = cs["process"]
assert p["supported"] is True and p["duration_us"] >= 0
ws = [s for s in p["samples"] if s["name"] == "memwatch_process_working_set_bytes"]
assert len(ws) >= 2, len(ws)
for s in ws:
    assert set(s["labels"]) == {"process", "pid", "started"}, s["labels"]
    assert s["ts"] > 1.6e12
print("ok")
PY
check "once JSON has system and process samples" "grep -q '^ok$' '$out/py' || { cat '$out/py'; false; }"
"$exe" once --interval 1 >/dev/null 2>"$out/err"
check "bad --interval exits 2" "[ $? -eq 2 ]"
check "bad --interval names the option and value" "grep -q -- \"--interval.*'1'\" '$out/err'"
printf '[daemon]\nintervall = 1s\n' >"$out/bad.ini"
"$exe" once --config "$out/bad.ini" >/dev/null 2>"$out/err"
check "bad config key exits 2" "[ $? -eq 2 ]"
check "bad config names file, line and key" "grep -q 'bad.ini:2.*intervall' '$out/err'"
"$exe" once --config "$out/missing.ini" >/dev/null 2>"$out/err"
check "missing config file is an error naming it" "grep -q 'missing.ini' '$out/err'"
check "--version names memwatchd and its version" "\"$exe\" --version | grep -q '^memwatchd [0-9]'"
finish
check "--version" "[ $? -eq 0 ]"
"$exe" --help | grep -q 'usage: memwatchd'
check "--help" "[ $? -eq 0 ]"
"$exe" bogus >/dev/null 2>&1
check "unknown command exits 2" "[ $? -eq 2 ]"
"$exe" config >"$out/ref.ini"
check "'memwatchd config' matches config/memwatch.ini" "cmp -s '$out/ref.ini' config/memwatch.ini"
