#!/usr/bin/env bash
# workingset_linux.sh - the workingset collector on Linux: `memwatchd once
# --watch PID` of tests/helpers/wsdemo_linux before and after each of its
# steps shows the categories growing (image for a dlopen()ed library,
# mapped_file, stack, heap, shareable), and its totals agree with the
# helper's own /proc/PID/smaps.  Needs build/native/memwatchd and
# build/native/helpers/wsdemo_linux.
set -u
cd "$(dirname "$0")/../.."
. tests/lib/tap.sh
helper_test wsdemo_linux


# The collector's figures for the helper, as "category=bytes ..." lines.
summary() {
	python3 - "$out/$1.json" "$hpid" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ws = [c for c in d["collectors"] if c["name"] == "workingset"][0]
assert ws["supported"] is True, ws
assert ws["error"] is None, ws
cats = {}
other = {}
for s in ws["samples"]:
    if s["labels"].get("pid") != sys.argv[2]:
        continue
    if s["name"] == "memwatch_workingset_bytes":
        c = s["labels"]["category"]
        cats[c] = cats.get(c, 0) + s["value"]
        k = c + "." + s["labels"]["sharing"]
        other[k] = s["value"]
    else:
        other[s["name"]] = s["value"]
for k, v in sorted(cats.items()):
    print("%s %d" % (k, v))
for k, v in sorted(other.items()):
    print("%s %d" % (k, v))
print("mode %s" % ws["mode"].replace(" ", "_"))
PY
}
# grew BEFORE AFTER CATEGORY MIN_BYTES
grew() {
	local a b
	a=$(val "$1" "$3"); b=$(val "$2" "$3")
	echo "# $3: $a -> $b (at least +$4)"
	[ -n "$a" ] && [ -n "$b" ] && [ $((b - a)) -ge "$4" ]
}

once_snap s0 && summary s0 >"$out/s0.sum"
check "once --watch PID: workingset samples for the helper" "[ -s '$out/s0.sum' ] && grep -q '^heap ' '$out/s0.sum'"
check "mode names /proc/PID/smaps and the read time" "grep -q '^mode /proc/PID/smaps;_[0-9.]*_ms,_1_process,_slowest_[0-9.]*_ms' '$out/s0.sum'"
check "PSS and USS reported" "[ \"\$(val s0 memwatch_workingset_pss_bytes)\" -gt 0 ] && [ \"\$(val s0 memwatch_workingset_uss_bytes)\" -gt 0 ]"

for st in dlopen mmap threads heap shm; do
	helper_next_step "$st"
	once_snap "$cur" && summary "$cur" >"$out/$cur.sum"
	case $st in
	dlopen)
		zrss=$(awk '/^[0-9a-f]+-[0-9a-f]+ .*libz\.so/ { z = 1; next } /^[0-9a-f]+-/ { z = 0 } z && /^Rss:/ { s += $2 } END { print s * 1024 }' "$out/$cur.smaps")
		check "dlopen: libz.so.1 mapped ($zrss bytes resident), image grew by it" \
			"[ '$zrss' -gt 0 ] && grew $prev $cur image $zrss" ;;
	mmap)
		check "mmap: mapped_file grew by the 8 MiB file" "grew $prev $cur mapped_file $((8 << 20))"
		check "mmap: the file's pages are page cache (shareable), not private" \
			"grew $prev $cur mapped_file.shareable $((8 << 20))" ;;
	threads)
		check "threads: stack grew by 4 x 512 KiB" "grew $prev $cur stack $((4 * 512 * 1024))" ;;
	heap)
		check "heap: heap grew by 8192 malloc(4000) blocks (31 MiB)" "grew $prev $cur heap $((8192 * 4000))" ;;
	shm)
		check "shm: shareable grew by 8 MiB (shm_open + memfd)" "grew $prev $cur shareable $((8 << 20))"
		check "shm: as shareable pages (mapped here only)" \
			"grew $prev $cur shareable.shareable $((8 << 20))" ;;
	esac
done

# The last sample against the helper's smaps read right after it (the
# helper is idle, waiting on stdin: they should agree to within a few pages).
python3 - "$out/$cur.smaps" "$out/$cur.sum" >"$out/agree" 2>&1 <<'PY'
import sys, re
rss = pss = priv = heap = stack = 0
cur = None
for line in open(sys.argv[1]):
    m = re.match(r"^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$", line)
    if m:
        cur = m.group(1).strip()
        continue
    k, _, v = line.partition(":")
    if k in ("Rss", "Pss", "Private_Clean", "Private_Dirty"):
        kb = int(v.split()[0]) * 1024
        if k == "Rss":
            rss += kb
            if cur == "[heap]":
                heap += kb
            if cur == "[stack]":
                stack += kb
        elif k == "Pss":
            pss += kb
        else:
            priv += kb
got = {}
for line in open(sys.argv[2]):
    k, v = line.split()
    if k != "mode":
        got[k] = int(v)
cats = ("image", "mapped_file", "shareable", "heap", "stack", "private_data", "other")
total = sum(got.get(c, 0) for c in cats)
slack = 64 * 4096
def near(a, b, what):
    print("%s: collector %d, smaps %d" % (what, a, b))
    assert abs(a - b) <= slack, what
near(total, rss, "sum of categories vs Rss")
near(got["memwatch_workingset_pss_bytes"], pss, "PSS")
near(got["memwatch_workingset_uss_bytes"], priv, "USS")
assert got["heap"] >= heap - slack, ("heap", got["heap"], heap)
assert got["stack"] >= stack - slack, ("stack", got["stack"], stack)
print("ok")
PY
check "totals agree with /proc/PID/smaps (Rss, PSS, USS, [heap], [stack])" \
	"grep -q '^ok$' '$out/agree' || { sed 's/^/# /' '$out/agree'; false; }"
sed 's/^/# /' "$out/agree" | grep -v '^# ok$'

helper_quits_and_gone workingset "gone pid: no error, no samples"
finish
