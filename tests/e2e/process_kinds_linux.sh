#!/usr/bin/env bash
# process_kinds_linux.sh - the process collector's resident memory by kind
# on Linux: `memwatchd once` before and after each step of
# tests/helpers/kindhog_linux shows the right series growing (anon for
# malloc, mmap and thread stacks, shmem for a /dev/shm segment, file for a
# mapped file), each within a page of the helper's own /proc/PID/status;
# PSS/USS, swap and the private working set are there; a copy of the
# helper named verylongprocessname-leaky (and one with spaces in its name)
# is listed under its full name; run as another user, the helper is still
# named in full and its unreadable figures are absent, not 0.  Needs
# build/native/memwatchd and build/native/helpers/kindhog_linux.
set -u
cd "$(dirname "$0")/../.."
exe=$PWD/build/native/memwatchd
helper=build/native/helpers/kindhog_linux
. tests/lib/tap.sh

out=$tmpdir
chmod 755 "$out"
need_file "make build/native/memwatchd build/native/helpers/kindhog_linux" "$exe" "$helper"

long="$out/verylongprocessname-leaky"
spaced="$out/kind hog spaced"
cp "$helper" "$long"
cp "$helper" "$spaced"

helper_want='did*'
helper_timeout=60
helper_start "$long"
# a second copy, with spaces in its name, idle on a pipe
sleep_fifo="$out/fifo"
mkfifo "$sleep_fifo"
"$spaced" <"$sleep_fifo" >/dev/null &
spid=$!
track "$spid"
exec 7>"$sleep_fifo"

check "helper starts" helper_ready

# snap NAME [runner...]: once; JSON to $out/NAME.json, then the helper's
# status to $out/NAME.status (it is idle between steps)
snap() {
	local name=$1
	shift
	# a whole core's PSS budget: on a busy machine (hundreds of processes)
	# the default 5% of one tick runs out before the helper, the newest
	# pid and so the last in the round-robin, is read
	"$@" "$exe" once --set collector.process.min_age=0 --set collector.process.pss_budget=100% \
		>"$out/$name.json" 2>"$out/$name.err"
	local rc=$?
	cat "/proc/$hpid/status" >"$out/$name.status"
	return $rc
}

# figures NAME: "key=value" lines for the helper from the JSON and its status
figures() {
	python3 - "$out/$1.json" "$out/$1.status" "$hpid" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
pid = sys.argv[3]
p = [c for c in d["collectors"] if c["name"] == "process"][0]
for s in p["samples"]:
    l = s["labels"]
    if l.get("pid") != pid:
        continue
    key = s["name"].replace("memwatch_process_", "")
    if "kind" in l:
        key += "." + l["kind"]
    print("%s=%d" % (key, s["value"]))
    if key == "working_set_bytes":
        print("name=%s" % l["process"].replace(" ", "_"))
st = {}
for line in open(sys.argv[2]):
    k, _, v = line.partition(":")
    if v.strip().endswith("kB"):
        print("status.%s=%d" % (k, int(v.split()[0]) * 1024))
print("mode=%s" % (p.get("mode") or "").replace(" ", "_"))
PY
}

# get NAME KEY
get() { figures "$1" | sed -n "s/^$2=//p"; }
within_page() { local a=$1 b=$2; [ -n "$a" ] && [ -n "$b" ] && [ $((a > b ? a - b : b - a)) -le 4096 ]; }

snap s0
check "once exits 0" "[ $? -eq 0 ]"
check "helper listed under its full name verylongprocessname-leaky" \
	"[ \"\$(get s0 name)\" = verylongprocessname-leaky ]"
check "a process with spaces in its name is listed under it" \
	"python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); p=[c for c in d[\"collectors\"] if c[\"name\"]==\"process\"][0]; sys.exit(0 if any(s[\"labels\"][\"process\"]==\"kind hog spaced\" and s[\"labels\"][\"pid\"]==sys.argv[2] for s in p[\"samples\"]) else 1)' '$out/s0.json' $spid"
for k in anon file shmem; do
	check "resident_bytes{kind=$k} within a page of status" \
		"within_page \"\$(get s0 resident_bytes.$k)\" \"\$(get s0 status.Rss${k^})\""
done
check "swap_bytes is VmSwap" "within_page \"\$(get s0 swap_bytes)\" \"\$(get s0 status.VmSwap)\""
check "private_working_set_bytes is RssAnon" \
	"within_page \"\$(get s0 private_working_set_bytes)\" \"\$(get s0 status.RssAnon)\""
check "pss and uss reported, uss <= pss <= working set" \
	"u=\$(get s0 uss_bytes); p=\$(get s0 pss_bytes); w=\$(get s0 working_set_bytes); [ -n \"\$u\" ] && [ \"\$u\" -le \"\$p\" ] && [ \"\$p\" -le \"\$w\" ]"
check "status mode reports the PSS cost" "get s0 mode | grep -q '^pss_100%:_[0-9]*_read_[0-9.]*_ms'"

prev=s0
i=0
# run STEP KIND MIN_GROWTH: the step grows KIND by at least MIN_GROWTH bytes
# in the collector's figures, agreeing with status
run() {
	local cmd=$1 kind=$2 min=$3 k
	i=$((i + 1))
	step "$cmd"
	check "step '$cmd' answered" "[ $? -eq 0 ]"
	snap "s$i"
	local before after
	before=$(get "$prev" "resident_bytes.$kind")
	after=$(get "s$i" "resident_bytes.$kind")
	echo "# $cmd: $kind $before -> $after"
	check "'$cmd' grows resident_bytes{kind=$kind} by >= $min" \
		"[ -n '$after' ] && [ -n '$before' ] && [ \$(( $after - $before )) -ge $min ]"
	for k in anon file shmem; do
		within_page "$(get "s$i" "resident_bytes.$k")" "$(get "s$i" "status.Rss${k^}")" ||
			{ nok "'$cmd': resident_bytes{kind=$k} within a page of status"; prev="s$i"; return; }
	done
	ok "'$cmd': every kind within a page of status"
	prev="s$i"
}
MB=1048576
run "malloc 32" anon $((30 * MB))
run "mmap 32" anon $((30 * MB))
run "shm 32" shmem $((30 * MB))
check "the shared-memory segment is in the helper's USS" \
	"[ \$(( \$(get s3 uss_bytes) - \$(get s2 uss_bytes) )) -ge $((30 * MB)) ] || [ \$(( \$(get s3 uss_bytes) - \$(get s0 uss_bytes) )) -ge $((90 * MB)) ]"
run "threads 4" anon $((1 * MB))
run "file 16" file $((15 * MB))

# another user: exe, smaps_rollup and fd unreadable - name from cmdline,
# those figures absent (not 0), the rest there
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
	snap nobody setpriv --reuid=65534 --regid=65534 --clear-groups
	check "once as another user exits 0" "[ $? -eq 0 ]"
	check "as another user: helper still named verylongprocessname-leaky" \
		"[ \"\$(get nobody name)\" = verylongprocessname-leaky ]"
	check "as another user: no PSS/USS or handles series for it (absent, not 0)" \
		"[ -z \"\$(get nobody pss_bytes)\" ] && [ -z \"\$(get nobody uss_bytes)\" ] && [ -z \"\$(get nobody handles)\" ]"
	check "as another user: resident kinds still there" \
		"within_page \"\$(get nobody resident_bytes.shmem)\" \"\$(get nobody status.RssShmem)\""
else
	ok "# SKIP another user: not root"
fi

# processes exiting mid-read: a loop of short-lived ones while once runs
( while :; do /bin/true; done ) &
churn=$!
track "$churn"
snap churn
rc=$?
stop_pid "$churn"
untrack "$churn"
check "once amid exiting processes exits 0 without a process error" \
	"[ $rc -eq 0 ] && python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); p=[c for c in d[\"collectors\"] if c[\"name\"]==\"process\"][0]; sys.exit(0 if p[\"error\"] is None and p[\"supported\"] else 1)' '$out/churn.json'"
check "no zero working set where status has one" \
	"python3 - '$out/churn.json' <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
p = [c for c in d['collectors'] if c['name'] == 'process'][0]
bad = []
for s in p['samples']:
    if s['name'] != 'memwatch_process_resident_bytes' or s['value'] != 0:
        continue
    try:
        st = open('/proc/%s/status' % s['labels']['pid']).read()
    except OSError:
        continue
    key = 'Rss' + s['labels']['kind'].capitalize() + ':'
    line = [l for l in st.splitlines() if l.startswith(key)]
    if line and int(line[0].split()[1]) > 1024:
        bad.append((s['labels'], line[0]))
sys.exit(1 if bad else 0)
PY"

step quit >/dev/null 2>&1
exec 7>&-
finish
