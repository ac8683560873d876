#!/usr/bin/env bash
# once_win64.sh - the cross-built memwatchd.exe under Wine: a single static
# file, `once` prints JSON whose process table lists itself and a Windows
# helper this test started with real working sets, and unsupported
# collectors say why.
set -u
cd "$(dirname "$0")/../.."
exe=build/win64/memwatchd.exe
. tests/lib/tap.sh

out=$tmpdir
dlls=$(x86_64-w64-mingw32-objdump -p "$exe" | awk '/DLL Name/ {print tolower($3)}' | sort -u)
bad=$(echo "$dlls" | grep -vE '^(kernel32|msvcrt|ws2_32|advapi32|psapi|pdh|ntdll|user32|bcrypt|shell32|ole32|iphlpapi|crypt32|secur32|winhttp|version|shlwapi|userenv|mswsock|api-ms-win-.*)\.dll$')
check "memwatchd.exe imports only system DLLs" "[ -z \"\$bad\" ] || { echo \"unexpected: \$bad\"; false; }"
# A Windows process of the test's own, holding 4 MiB touched, is the other
# process the table must list with its real working set.  Wine's own
# services are not waited for: when this test starts a fresh wineserver,
# whether services.exe is up by the time `once` reads the table depends on
# the machine's load (CI saw only memwatchd.exe once).
cp build/win64/helpers/memhog.exe "$out/idle_app.exe"
scripts/wine-run.sh "$out/idle_app.exe" 4096 10 1 120 >"$out/idle.out" 2>&1 &
track "$!"
wait_or_show 60 "cat '$out/idle.out'" grep -q '^ready' "$out/idle.out"
idle_pid=$(tr -d '\r' <"$out/idle.out" | awk '/^ready/ { print $2 }')
# min_age=0: the helper (and a Wine just started) is younger than the 5 s default
scripts/wine-run.sh "$exe" once --set collector.process.min_age=0 >"$out/once.json" 2>"$out/err"
check "wine memwatchd.exe once exits 0" "[ $? -eq 0 ] || { cat '$out/err'; false; }"
python3 - "$out/once.json" "$idle_pid" <<'PY' >"$out/py" 2>&1
import json, sys
d = json.load(open(sys.argv[1]))
idle_pid = sys.argv[2]
cs = {c["name"]: c for c in d["collectors"]}
assert cs["system"]["supported"], cs["system"]
phys = [s["value"] for s in cs["system"]["samples"] if s["name"] == "memwatch_system_physical_bytes"]
assert phys and phys[0] > 0
p = cs["process"]
assert p["supported"], p
ws = {s["labels"]["process"]: s["value"] for s in p["samples"]
      if s["name"] == "memwatch_process_working_set_bytes"}
assert "memwatchd.exe" in ws, sorted(ws)
assert ws["memwatchd.exe"] > 1 << 20, ws["memwatchd.exe"]
# the helper: under its own image name and Windows PID, 4 MiB resident
idle = [s for s in p["samples"] if s["name"] == "memwatch_process_working_set_bytes"
        and s["labels"]["process"] == "idle_app.exe"]
assert len(idle) == 1, (idle_pid, sorted(ws))
assert str(idle[0]["labels"].get("pid")) == idle_pid, (idle_pid, idle[0]["labels"])
assert idle[0]["value"] >= 4 << 20, idle[0]["value"]
for c in d["collectors"]:
    if not c["supported"]:
        assert c["reason"], c
# the jvm collector looks in Wine's temporary folders: no JVM, no error
j = cs["jvm"]
assert j["supported"] and not j.get("error"), j
assert j["mode"] == "hsperfdata: 0 JVMs", j["mode"]
print("ok")
PY
check "process table lists another Windows process (its PID, its 4 MiB) with its real working set" "grep -q '^ok$' '$out/py' || { cat '$out/py' '$out/err'; false; }"
# Watched, its working set is read page by page (Wine: QueryWorkingSetEx,
# QueryWorkingSet fails): PSS and USS from the pages' share counts.  The
# process collector's own PSS reads need QueryWorkingSet, so under Wine it
# has none, says so in its status, and reports no error.
scripts/wine-run.sh "$exe" once --watch memwatchd.exe >"$out/watch.json" 2>"$out/err"
check "wine memwatchd.exe once --watch exits 0" "[ $? -eq 0 ] || { cat '$out/err'; false; }"
python3 - "$out/watch.json" <<'PY' >"$out/py" 2>&1
import json, sys
d = json.load(open(sys.argv[1]))
cs = {c["name"]: c for c in d["collectors"]}
w = cs["workingset"]
val = lambda c, n: [s["value"] for s in c["samples"] if s["name"] == n
                   and s["labels"]["process"] == "memwatchd.exe"]
pss, uss = val(w, "memwatch_workingset_pss_bytes"), val(w, "memwatch_workingset_uss_bytes")
total = sum(val(w, "memwatch_workingset_bytes"))
assert len(pss) == 1 and len(uss) == 1, (w["mode"], pss, uss)
assert 0 < uss[0] <= pss[0] <= total, (uss, pss, total)
p = cs["process"]
assert not p.get("error"), p
assert not [s for s in p["samples"] if s["name"] == "memwatch_process_pss_bytes"]
assert "pss off: QueryWorkingSet unreadable" in p["mode"], p["mode"]
print("ok")
PY
check "a watched process's PSS and USS from its pages' share counts" "grep -q '^ok$' '$out/py' || { cat '$out/py' '$out/err'; false; }"
finish
