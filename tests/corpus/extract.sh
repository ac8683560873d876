#!/bin/sh
# Turns a recording made by record.sh into the test data of
# tests/test_leak_real.c (tests/data/leak_real/):
#   rec.json.gz   memwatch's own JSON export of every per-process series of
#                 the workloads (all metrics but the daemon's memwatch_leak_*
#                 gauges), from the daemon's start to its stop (gzip: essential on Debian);
#   labels.csv    class, start, onset, kind(s), design rate per workload;
#   counters.csv  the leak counters the workloads logged once a minute.
# Usage: tests/corpus/extract.sh RECDIR [URL]
# CORPUS_SET=services (runtimes, allocators, mapped, go, go2, release, langs, wine, pools)
# writes tests/data/leak_services/ (leak_runtimes/, leak_allocators/, leak_mapped/, leak_go/,
# leak_go2/, leak_release/, leak_langs/, leak_wine/, leak_pools/) from a recording of that set
# (record.sh with the same CORPUS_SET).
# Without URL, `memwatchd export` reads RECDIR/rec.db offline.
set -eu
REC=${1:?usage: extract.sh RECDIR [URL]}
URL=${2:-}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
SET=${CORPUS_SET:-base}
case $SET in
base) DST=$ROOT/tests/data/leak_real ;;
services) DST=$ROOT/tests/data/leak_services ;;
runtimes) DST=$ROOT/tests/data/leak_runtimes ;;
allocators) DST=$ROOT/tests/data/leak_allocators ;;
validation) DST=$ROOT/tests/data/leak_validation ;;
jvm) DST=$ROOT/tests/data/leak_jvm ;;
mapped) DST=$ROOT/tests/data/leak_mapped ;;
go) DST=$ROOT/tests/data/leak_go ;;
go2) DST=$ROOT/tests/data/leak_go2 ;;
release) DST=$ROOT/tests/data/leak_release ;;
langs) DST=$ROOT/tests/data/leak_langs ;;
wine) DST=$ROOT/tests/data/leak_wine ;;
pools) DST=$ROOT/tests/data/leak_pools ;;
# later recordings of the jvm set's workloads, each kept as a set of its own
jvm[2-9]) DST=$ROOT/tests/data/leak_$SET ;;
*) echo "extract.sh: unknown CORPUS_SET '$SET' (base, services, runtimes, allocators, validation, mapped, go, go2, release, langs, wine, pools, jvm or jvm2-jvm9)" >&2; exit 2 ;;
esac
mkdir -p "$DST"
FROM=$(awk '$1 == "memwatchd" {print $3}' "$REC/starts.txt")
TO=$(awk '$1 == "memwatchd-stopped" {print $3}' "$REC/starts.txt")
[ -n "$TO" ] || TO=$(date +%s%3N)
# only the pids record.sh started (another program run under a workload's
# name meanwhile, e.g. a try of a changed workload, stays out), with the
# children it listed (ok_pg_child: the postmaster's)
NAMES='(lk|ok)_'
[ "$SET" = validation ] && NAMES='(vk|vo)_'
PIDS=$(awk -v re="^$NAMES" '$1 ~ re {printf "%s%s", sep, $2; sep = "|"}' "$REC/starts.txt")
MATCH="{__name__!~\"memwatch_leak_.*\",process=~\"$NAMES.*\",pid=~\"$PIDS\"}"
# the Wine set: its series carry Wine's process ids, not the Linux ones
# record.sh listed; its Wine prefix ran nothing else
[ "$SET" = wine ] && MATCH="{__name__!~\"memwatch_leak_.*\",process=~\"(lk|ok)_win.*\"}"
# the second Go set: ok_gosettle is left out (its cache's content rose 5
# MiB from 10 to 50 minutes, its resident set 89 -> 131 MiB under Go's
# heap goal and the churn: no not-leak within the recording, and no leak
# by construction; tests/corpus/README.md)
[ "$SET" = go2 ] && MATCH="{__name__!~\"memwatch_leak_.*\",process=~\"lk_gofreed|lk_goscav|ok_gofreed\",pid=~\"$PIDS\"}"
# the pools set: the workers a master forked (and ok_poolcgi's children)
# are not in starts.txt; no other process had these names
[ "$SET" = pools ] && MATCH="{__name__!~\"memwatch_leak_.*\",process=~\"(lk|ok)_pool.*\"}"
if [ -z "$URL" ]; then
    # offline (memwatchd export reads the file without a lock and without
    # the web's query time-out, which a busy recording machine can pass)
    "$ROOT/build/native/memwatchd" export --db "$REC/rec.db" --match "$MATCH" \
        --from "$FROM" --to "$TO" --format json >"$REC/export.json"
else
    curl -sfG "$URL/api/v1/export" --data-urlencode "match=$MATCH" \
        --data-urlencode "from=$FROM" --data-urlencode "to=$TO" --data-urlencode format=json \
        -o "$REC/export.json"
fi
gzip -9n -c "$REC/export.json" >"$DST/rec.json.gz"

# process,class,start_ms,onset_ms (since its start, or none),kinds,design bytes (or fds)/h,unit
labels_base() {
    cat <<'EOF'
lk_heap leak none heap 20971520 bytes
lk_mmap leak none private_data 10485760 bytes
lk_stacks leak none stack 2949120 bytes
lk_shm leak none shmem|shared 10485760 bytes
lk_bursty leak none heap 10485760 bytes
lk_late leak 720000 heap 15728640 bytes
lk_slow leak none heap 1048576 bytes
lk_slowing leak none heap 0 bytes
lk_fds leak none fds|handles 360 fds
lk_python leak none private_data|heap 15728640 bytes
lk_node leak none private_data|heap 20971520 bytes
ok_churn not-leak none - 0 bytes
ok_cache not-leak none - 0 bytes
ok_batch not-leak none - 0 bytes
ok_arenas not-leak none - 0 bytes
ok_onetime not-leak none - 0 bytes
ok_idle not-leak none - 0 bytes
ok_python_gc not-leak none - 0 bytes
ok_node_gc not-leak none - 0 bytes
ok_redis not-leak none - 0 bytes
ok_memcached not-leak none - 0 bytes
EOF
}
# the services set: redis and memcached store what the feeder keeps (values'
# bytes; their own overhead comes on top), lk_sqlite its audit rows' bytes
labels_services() {
    cat <<'EOF'
lk_node_svc leak none private_data|heap 10485760 bytes
ok_node_svc not-leak none - 0 bytes
lk_sqlite leak none heap|private_data 8388608 bytes
ok_sqlite not-leak none - 0 bytes
lk_redis leak none heap|private_data 8388608 bytes
lk_memcached leak none heap|private_data 8388608 bytes
EOF
}
# the runtimes set: the JVM's heap is anonymous mappings; the design rates
# are the objects' bytes as each runtime measured them at start
labels_runtimes() {
    cat <<'EOF'
lk_java leak none java_heap|private_data|heap 10485760 bytes
ok_java not-leak none - 0 bytes
lk_perl leak none heap|private_data 8388608 bytes
ok_perl not-leak none - 0 bytes
EOF
}
# the jvm set: the runtimes set's workloads, recorded with the jvm collector
labels_jvm() {
    labels_runtimes
}
# the allocators set: Zend's chunks and jemalloc's extents are anonymous
# mappings, tcmalloc starts in the brk heap; lk_je leaks from 12 minutes on
labels_allocators() {
    cat <<'EOF'
ok_pg not-leak none - 0 bytes
lk_ruby leak none heap|private_data 4194304 bytes
ok_ruby not-leak none - 0 bytes
lk_lua leak none heap|private_data 2097152 bytes
ok_lua not-leak none - 0 bytes
lk_php leak none private_data|heap 8388608 bytes
ok_php not-leak none - 0 bytes
lk_je leak 720000 private_data|heap 6291456 bytes
ok_je not-leak none - 0 bytes
lk_tc leak none heap|private_data 3145728 bytes
ok_tc not-leak none - 0 bytes
EOF
}
# the validation set: the bytes asked of malloc (frag.c), sessions
# counted at 400 bytes (pydict.py); vk_fraglate leaks from 14 minutes on
labels_validation() {
    cat <<'EOF'
vk_frag leak none heap|private_data 3145728 bytes
vk_fraglate leak 840000 heap|private_data 6291456 bytes
vo_ramp not-leak none - 0 bytes
vo_frag not-leak none - 0 bytes
vk_pydict leak none private_data|heap 3145728 bytes
vo_pydict not-leak none - 0 bytes
EOF
}
# the mapped-files set: lk_mapfiles keeps a 1 MiB mapping every 30 s
labels_mapped() {
    cat <<'EOF'
ok_mapscan not-leak none - 0 bytes
ok_sqlmmap not-leak none - 0 bytes
lk_mapfiles leak none mapped 125829120 bytes
EOF
}
# the Go set: the Go heap (goroutine stacks too) is anonymous mappings;
# the design rates are the resident bytes each unit cost at start (the
# rise of statm over 500 goroutines or 20,000 entries; gosvc.go)
labels_go() {
    cat <<'EOF'
lk_goroutine leak none private_data|heap 10485760 bytes
lk_gomap leak none private_data|heap 6291456 bytes
lk_goslow leak none private_data|heap 1048576 bytes
lk_goburst leak none private_data|heap 10532571 bytes
ok_gochurn not-leak none - 0 bytes
ok_gocache not-leak none - 0 bytes
ok_gobatch not-leak none - 0 bytes
EOF
}
# the Wine set (names as Windows gives them, with .exe): lk_winthreads
# keeps a thread every 2 minutes with a 1 MiB stack, which Wine commits
# whole (its counter: threads, times 1 MiB; private bytes rose 0.98 MiB a
# thread over the recording), lk_winhandles an event every 10 s
labels_wine() {
    cat <<'EOF'
lk_winheap.exe leak none heap|private_data 8388608 bytes
lk_winvalloc.exe leak none private_data 10485760 bytes
lk_winsection.exe leak none shared 6291456 bytes
lk_winthreads.exe leak none stack 31457280 bytes
lk_winhandles.exe leak none handles 360 fds
lk_winslow.exe leak none heap|private_data 1048576 bytes
lk_winburst.exe leak none heap|private_data 10785353 bytes
ok_winchurn.exe not-leak none - 0 bytes
ok_wincache.exe not-leak none - 0 bytes
ok_winbatch.exe not-leak none - 0 bytes
ok_winonetime.exe not-leak none - 0 bytes
ok_winidle.exe not-leak none - 0 bytes
EOF
}
# the second Go set: lk_gomap's leak, freeing to the system on a timer
labels_go2() {
    cat <<'EOF'
lk_gofreed leak none private_data|heap 3145728 bytes
lk_goscav leak none private_data|heap 1572864 bytes
ok_gofreed not-leak none - 0 bytes
EOF
}
# the releases set: Go services freeing to the system on a timer, glibc
# services trimming after each batch
labels_release() {
    cat <<'EOF'
lk_goslice leak none private_data|heap 2097152 bytes
lk_gorelslow leak none private_data|heap 1048576 bytes
lk_trimbatch leak none heap 3145728 bytes
ok_gowander not-leak none - 0 bytes
ok_gorel not-leak none - 0 bytes
ok_gocachefree not-leak none - 0 bytes
ok_trimbatch not-leak none - 0 bytes
EOF
}
# the langs set: Rust's records and Tcl's sessions over glibc malloc, the
# JVM's sessions in the Java heap, Node's pooled Buffer slices (each keeps
# its 8 KiB pool alive: the design rate is their lengths, the resident
# cost more); lk_rustlate leaks from 15 minutes on
labels_langs() {
    cat <<'EOF'
lk_rust leak none heap|private_data 3145728 bytes
lk_rustlate leak 900000 heap|private_data 4194304 bytes
lk_tcl leak none heap|private_data 2097152 bytes
lk_nodebuf leak none heap|private_data 6291456 bytes
lk_javapar leak none java_heap|private_data|heap 10485760 bytes
ok_rustcache not-leak none - 0 bytes
ok_tcl not-leak none - 0 bytes
ok_nodebuf not-leak none - 0 bytes
ok_javaser not-leak none - 0 bytes
EOF
}
# the pools set: a pool's rate is its workers' together (lk_poolspread:
# four of 0.4 MiB/h); lk_poolforks keeps 1 MiB in a helper that never
# exits every 2 minutes, lk_poolshm writes new pages of a memfd
labels_pools() {
    cat <<'EOF'
lk_poolone leak none heap|private_data 6291456 bytes
lk_poolall leak none heap|private_data 6291456 bytes
lk_poolspread leak none heap|private_data 1677722 bytes
lk_poolshm leak none shmem|shared 4194304 bytes
lk_poolforks leak none heap|private_data 31457280 bytes
ok_poolchurn not-leak none - 0 bytes
ok_poolrecycle not-leak none - 0 bytes
ok_poolshared not-leak none - 0 bytes
ok_poolcgi not-leak none - 0 bytes
ok_poolidle not-leak none - 0 bytes
EOF
}
{
    echo "process,class,start_ms,onset_ms,kinds,design_per_hour,unit"
    case $SET in jvm*) labels_jvm ;; *) labels_$SET ;; esac | while read -r n cls onset kinds rate unit; do
        s=$(awk -v n="${n%.exe}" '$1 == n {print $3}' "$REC/starts.txt")
        echo "$n,$cls,$s,$onset,$kinds,$rate,$unit"
    done
} >"$DST/labels.csv"

# process,elapsed_ms,leaked (the validation set's workloads log nothing:
# their design, once a minute)
if [ "$SET" = validation ]; then
    END=$(( (TO - FROM) / 1000 ))
    {
        echo "process,elapsed_ms,leaked"
        tail -n +2 "$DST/labels.csv" | while IFS=, read -r n cls s onset kinds rate unit; do
            [ "$cls" = leak ] || continue
            [ "$onset" = none ] && onset=0
            awk -v n="$n" -v r="$rate" -v o="$onset" -v e="$END" 'BEGIN {
                for (t = 0; t <= e; t += 60) {
                    v = (t * 1000 > o) ? r * (t * 1000 - o) / 3600000 : 0
                    printf "%s,%d,%.0f\n", n, t * 1000, v } }'
        done
    } >"$DST/counters.csv"
    ls -l "$DST"
    exit 0
fi
{
    echo "process,elapsed_ms,leaked"
    for f in "$REC"/logs/*.log; do
        n=$(basename "$f" .log)
        # mapsvc.py's not-leaks log their progress (bytes read, lookups), no leak
        [ "$SET" = mapped ] && case $n in ok_*) continue ;; esac
        # lk_goburst: the kept recording logged statm's rise around the
        # collections it forces, no measure of its leak (gosvc.go now logs
        # the payload): its design, 1,200 KiB every 7 minutes
        [ "$SET" = go ] && [ "$n" = lk_goburst ] && { awk -v n="$n" 'NF == 2 {
            printf "%s,%s,%.0f\n", n, $1, int($1 / 420000) * 1228800 }' "$f"; continue; }
        # lk_stacks logs 64 KiB per thread; what stayed resident per exited,
        # never-joined thread is STACK_RESIDENT (8 KiB in /proc/PID/smaps
        # during the recording: glibc drops the rest of the stack at exit)
        [ "$SET" = wine ] && n=$n.exe
        awk -v n="$n" -v sr="${STACK_RESIDENT:-8192}" 'NF == 2 {
            v = $2; if (n == "lk_stacks") v = v / 65536 * sr
            if (n == "lk_winthreads.exe") v = v * 1048576
            printf "%s,%s,%.0f\n", n, $1, v }' "$f"
    done
} >"$DST/counters.csv"
ls -l "$DST"
