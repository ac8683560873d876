#!/usr/bin/env bash
# once_win64.sh - the cross-built memwatchd.exe under Wine: a single static
# file, `once` prints JSON whose process table lists Wine's own processes
# with real working sets, and unsupported collectors say why.
set -u
cd "$(dirname "$0")/../.."
exe=build/win64/memwatchd.exe
. tests/lib/tap.sh

out=$tmpdir
dlls=$(x86_64-w64-mingw32-objdump -p "$exe" | awk '/DLL Name/ {print tolower($3)}' | sort -u)
bad=$(echo "$dlls" | grep -vE '^(kernel32|msvcrt|ws2_32|advapi32|psapi|pdh|ntdll|user32|bcrypt|shell32|ole32|iphlpapi|crypt32|secur32|winhttp|version|shlwapi|userenv|mswsock|api-ms-win-.*)\.dll$')
check "memwatchd.exe imports only system DLLs" "[ -z \"\$bad\" ] || { echo \"unexpected: \$bad\"; false; }"
# min_age=0: a Wine just started has services younger than the 5 s default
scripts/wine-run.sh "$exe" once --set collector.process.min_age=0 >"$out/once.json" 2>"$out/err"
check "wine memwatchd.exe once exits 0" "[ $? -eq 0 ] || { cat '$out/err'; false; }"
python3 - "$out/once.json" <<'PY' >"$out/py" 2>&1
import json, sys
d = json.load(open(sys.argv[1]))
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
wine_procs = [n for n in ws if n.lower() in ("services.exe", "winedevice.exe", "explorer.exe",
                                             "plugplay.exe", "svchost.exe", "rpcss.exe")]
assert wine_procs, sorted(ws)
for c in d["collectors"]:
    if not c["supported"]:
        assert c["reason"], c
# the jvm collector looks in Wine's temporary folders: no JVM, no error
j = cs["jvm"]
assert j["supported"] and not j.get("error"), j
assert j["mode"] == "hsperfdata: 0 JVMs", j["mode"]
print("ok")
PY
check "process table lists Wine's processes with real working sets" "grep -q '^ok$' '$out/py' || { cat '$out/py' '$out/err'; false; }"
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
