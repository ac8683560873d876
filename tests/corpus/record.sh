#!/bin/sh
# Records the real-process leak corpus: starts memwatchd (1 s interval,
# watching lk_* and ok_*), then every workload under its own executable
# name, lets them run DURATION seconds, and stops everything it started by
# pid.  Usage: tests/corpus/record.sh OUTDIR [DURATION_S]   (default 3300)
# CORPUS_SET=services records the second set instead (real services:
# tests/data/leak_services/), CORPUS_SET=runtimes the third (a JVM and
# Perl: tests/data/leak_runtimes/), CORPUS_SET=allocators the fourth (Ruby,
# Lua, PHP, jemalloc, tcmalloc, PostgreSQL), CORPUS_SET=jvm the runtimes
# set's workloads for tests/data/leak_jvm/, CORPUS_SET=validation the fifth
# (vk_* / vo_*: glibc and CPython heaps creeping under random-size
# replacements, with and without leaks), CORPUS_SET=mapped the seventh
# (file-backed memory: mapsvc.py), CORPUS_SET=go the Go set (gosvc.go),
# CORPUS_SET=go2 the second Go set (gosvc.go, freeing to the system),
# CORPUS_SET=release the releases set (gosvc.go and workload.c: services
# handing memory back to the system again and again),
# CORPUS_SET=langs the langs set (Rust, Tcl, Node's Buffers, the JVM's
# parallel and serial collectors),
# CORPUS_SET=wine the Wine set (winsvc.c under Wine, the Windows daemon),
# CORPUS_SET=pools the pools set (poolsvc.c: a master and its workers);
# the default is the first set.
# CORPUS_PORT: the daemon's port (18431), to record two sets at once;
# CORPUS_PG_PORT: the allocators set's PostgreSQL port (15432).
# CORPUS_WATCH: what the daemon watches ("lk_*,ok_*"); empty records the
# workloads as unwatched processes (the process collector's series only).
# OUTDIR gets rec.db, bin/, logs/<name>.log (leak counters), starts.txt
# ("name pid epoch_ms" per workload) and the daemon's log.
set -eu
OUT=${1:?usage: record.sh OUTDIR [DURATION_S]}
DUR=${2:-3300}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
mkdir -p "$OUT/bin" "$OUT/logs"
BIN=$OUT/bin
export CORPUS_LOG=$OUT/logs
PIDS=""

cc -O1 -g -Wall -o "$BIN/workload" "$HERE/workload.c" -lpthread -lm
for n in lk_heap lk_mmap lk_stacks lk_shm lk_bursty lk_late lk_slow lk_slowing lk_fds \
         ok_churn ok_cache ok_batch ok_arenas ok_onetime ok_idle; do
    cp "$BIN/workload" "$BIN/$n"
done
PY=$(readlink -f /usr/bin/python3)
cp "$PY" "$BIN/lk_python"; cp "$PY" "$BIN/ok_python_gc"
cp "$(readlink -f /usr/bin/node)" "$BIN/lk_node"; cp "$(readlink -f /usr/bin/node)" "$BIN/ok_node_gc"
# the servers only where the first set runs them (another set records
# without them installed)
if [ "${CORPUS_SET:-base}" = base ]; then
    cp "$(readlink -f /usr/bin/redis-server)" "$BIN/ok_redis"
    cp "$(readlink -f /usr/bin/memcached)" "$BIN/ok_memcached"
fi

stop_all() {
    for p in $PIDS; do kill "$p" 2>/dev/null || true; done
    sleep 2
    for p in $PIDS; do kill -9 "$p" 2>/dev/null || true; done
}
trap 'stop_all' EXIT INT TERM

if [ "${CORPUS_SET:-base}" = wine ]; then
    # the Wine set (session 25): Windows programs (winsvc.c, MinGW-w64)
    # leaking through HeapAlloc, VirtualAlloc, sections, thread stacks and
    # handles, recorded by the Windows build of memwatchd under the same
    # Wine (a prefix of its own, OUTDIR/wineprefix: every Wine process in
    # it is one this script started)
    export MW_WINEPREFIX=$OUT/wineprefix
    WINE_RUN=$ROOT/scripts/wine-run.sh
    x86_64-w64-mingw32-gcc -O1 -g -Wall -o "$BIN/winsvc.exe" "$HERE/winsvc.c"
    "$WINE_RUN" cmd /c exit 0 >/dev/null 2>&1 || true   # make the prefix first
    export CORPUS_LOG="Z:$(echo "$OUT/logs" | tr / '\\')"
    "$WINE_RUN" "$ROOT/build/win64/memwatchd.exe" run --interval 1s \
        --db "Z:$(echo "$OUT/rec.db" | tr / '\\')" --listen 127.0.0.1:${CORPUS_PORT:-18432} \
        --watch "${CORPUS_WATCH-lk_*,ok_*}" >"$OUT/daemon.log" 2>&1 &
    DPID=$!
    echo "memwatchd $DPID $(date +%s%3N)" >"$OUT/starts.txt"
    sleep 5
    for n in lk_winheap lk_winvalloc lk_winsection lk_winthreads lk_winhandles lk_winslow \
             lk_winburst ok_winchurn ok_wincache ok_winbatch ok_winonetime ok_winidle; do
        cp "$BIN/winsvc.exe" "$BIN/$n.exe"
        "$WINE_RUN" "$BIN/$n.exe" >"$OUT/logs/$n.out" 2>&1 &
        PIDS="$! $PIDS"
        echo "$n $! $(date +%s%3N)" >>"$OUT/starts.txt"
    done
    sleep "$DUR"
    stop_all
    PIDS=""
    sleep 3   # the daemon records the exits
    kill -INT "$DPID" 2>/dev/null || true
    wait "$DPID" 2>/dev/null || true
    echo "memwatchd-stopped $DPID $(date +%s%3N)" >>"$OUT/starts.txt"
    exit 0
fi
DEFAULT_WATCH="lk_*,ok_*"
[ "${CORPUS_SET:-base}" = validation ] && DEFAULT_WATCH="vk_*,vo_*"
POOLS="lk_poolone lk_poolall lk_poolspread lk_poolshm lk_poolforks ok_poolchurn ok_poolrecycle ok_poolshared ok_poolcgi ok_poolidle"
[ "${CORPUS_SET:-base}" = pools ] &&
    DEFAULT_WATCH="lk_pool*,ok_poolchurn,ok_poolrecycle,ok_poolshared,ok_poolidle"
WATCH=${CORPUS_WATCH-$DEFAULT_WATCH}
"$ROOT/build/native/memwatchd" run --interval 1s --db "$OUT/rec.db" --listen 127.0.0.1:${CORPUS_PORT:-18431} \
    ${WATCH:+--watch "$WATCH"} >"$OUT/daemon.log" 2>&1 &
DPID=$!
echo "memwatchd $DPID $(date +%s%3N)" >"$OUT/starts.txt"
sleep 5

start() { # name, command...
    n=$1; shift
    "$@" >"$OUT/logs/$n.out" 2>&1 &
    PIDS="$! $PIDS"
    echo "$n $! $(date +%s%3N)" >>"$OUT/starts.txt"
}
finish() { # stop the workloads, then the daemon once it has seen them go
    stop_all
    PIDS=""
    sleep 3   # the daemon records the exits
    kill "$DPID" 2>/dev/null || true
    wait "$DPID" 2>/dev/null || true
    echo "memwatchd-stopped $DPID $(date +%s%3N)" >>"$OUT/starts.txt"
}
if [ "${CORPUS_SET:-base}" = validation ]; then
    # the fifth set (session 12), named vk_* / vo_*: recorded after that
    # session's detector changes and judged without tuning on it
    cc -O1 -Wall -o "$BIN/frag" "$HERE/frag.c"
    for n in vk_frag vk_fraglate vo_ramp vo_frag; do cp "$BIN/frag" "$BIN/$n"; done
    cp "$PY" "$BIN/vo_pydict"; cp "$PY" "$BIN/vk_pydict"
    for n in vk_frag vk_fraglate vo_ramp vo_frag; do start $n "$BIN/$n"; done
    start vo_pydict "$BIN/vo_pydict" "$HERE/pydict.py"
    start vk_pydict "$BIN/vk_pydict" "$HERE/pydict.py" leak
    sleep "$DUR"
    finish
    exit 0
fi
GO_SETS="lk_goroutine lk_gomap lk_goslow lk_goburst ok_gochurn ok_gocache ok_gobatch"
# the second Go set (session 27): services handing pages back to the
# system on a timer (debug.FreeOSMemory), their resident sets dipping
[ "${CORPUS_SET:-base}" = go2 ] && GO_SETS="lk_gofreed lk_goscav ok_gofreed ok_gosettle"
# the releases set (session 28): the same on other timers and shapes,
# and glibc services trimming after each batch (workload.c)
[ "${CORPUS_SET:-base}" = release ] &&
    GO_SETS="lk_goslice lk_gorelslow ok_gowander ok_gorel ok_gocachefree"
case ${CORPUS_SET:-base} in go | go2 | release)
    # the Go set (session 23): services under the Go runtime's collector
    # and scavenger (gosvc.go; Debian's golang-go builds it)
    if [ "${CORPUS_SET:-base}" = release ]; then
        for n in lk_trimbatch ok_trimbatch; do
            cp "$BIN/workload" "$BIN/$n"
            start $n "$BIN/$n"
        done
    fi
    go build -o "$BIN/gosvc" "$HERE/gosvc.go"
    for n in $GO_SETS; do
        cp "$BIN/gosvc" "$BIN/$n"
        start $n "$BIN/$n"
    done
    sleep "$DUR"
    finish
    exit 0
    ;;
esac
if [ "${CORPUS_SET:-base}" = pools ]; then
    # the pools set (session 26): prefork services, a master and the
    # workers it forks under one name (poolsvc.c); ok_poolcgi's children
    # come and go as a build agent's do, unwatched as they would be
    cc -O1 -g -Wall -o "$BIN/poolsvc" "$HERE/poolsvc.c"
    for n in $POOLS; do
        cp "$BIN/poolsvc" "$BIN/$n"
        start $n "$BIN/$n"
    done
    sleep "$DUR"
    finish
    exit 0
fi
if [ "${CORPUS_SET:-base}" = mapped ]; then
    # the mapped-files set (session 19): file-backed resident memory that
    # grows, as page cache an indexer or SQLite maps, or as mappings kept
    for n in ok_mapscan ok_sqlmmap lk_mapfiles; do cp "$PY" "$BIN/$n"; done
    start ok_mapscan "$BIN/ok_mapscan" "$HERE/mapsvc.py" scan "$OUT/work/scan"
    start ok_sqlmmap "$BIN/ok_sqlmmap" "$HERE/mapsvc.py" sqlite "$OUT/work/sqlite"
    start lk_mapfiles "$BIN/lk_mapfiles" "$HERE/mapsvc.py" leak "$OUT/work/leak"
    sleep "$DUR"
    finish
    exit 0
fi
java_as() { # names...: Service.java compiled, the JDK's launcher under each name
    # the launcher finds its JVM relative to itself: a copy of the whole
    # JDK, the launcher under each workload's name
    JDK=$(dirname "$(dirname "$(readlink -f /usr/bin/java)")")
    cp -a "$JDK" "$BIN/jdk"
    for n in "$@"; do cp "$BIN/jdk/bin/java" "$BIN/jdk/bin/$n"; done
    mkdir -p "$BIN/classes"
    javac -d "$BIN/classes" "$HERE/Service.java"
}
if [ "${CORPUS_SET:-base}" = runtimes ] || [ "${CORPUS_SET:-base}" = jvm ]; then
    java_as lk_java ok_java
    PERL=$(readlink -f /usr/bin/perl)
    cp "$PERL" "$BIN/lk_perl"; cp "$PERL" "$BIN/ok_perl"
    start lk_java "$BIN/jdk/bin/lk_java" -Xmx256m -XX:+UseG1GC -cp "$BIN/classes" Service leak lk_java
    start ok_java "$BIN/jdk/bin/ok_java" -Xmx256m -XX:+UseG1GC -cp "$BIN/classes" Service ok ok_java
    start lk_perl "$BIN/lk_perl" "$HERE/perlsvc.pl" leak
    start ok_perl "$BIN/ok_perl" "$HERE/perlsvc.pl"
    sleep "$DUR"
    finish
    exit 0
fi
if [ "${CORPUS_SET:-base}" = langs ]; then
    # the langs set (session 29), runtimes no set had: Rust's collections
    # over glibc malloc (rustsvc.rs), Debian's threaded Tcl (tclsvc.tcl),
    # Node's Buffers outside V8's heap (nodebuf.js), and the JVM under the
    # parallel and serial collectors (Service.java)
    rustc -O -o "$BIN/rustsvc" "$HERE/rustsvc.rs"
    for n in lk_rust lk_rustlate ok_rustcache; do cp "$BIN/rustsvc" "$BIN/$n"; done
    TCL=$(readlink -f "$(command -v tclsh)")
    for n in lk_tcl ok_tcl; do cp "$TCL" "$BIN/$n"; done
    for n in lk_nodebuf ok_nodebuf; do cp "$(readlink -f /usr/bin/node)" "$BIN/$n"; done
    java_as lk_javapar ok_javaser
    for n in lk_rust lk_rustlate ok_rustcache; do start $n "$BIN/$n"; done
    start lk_tcl "$BIN/lk_tcl" "$HERE/tclsvc.tcl" leak
    start ok_tcl "$BIN/ok_tcl" "$HERE/tclsvc.tcl"
    start lk_nodebuf "$BIN/lk_nodebuf" "$HERE/nodebuf.js" leak
    start ok_nodebuf "$BIN/ok_nodebuf" "$HERE/nodebuf.js"
    start lk_javapar "$BIN/jdk/bin/lk_javapar" -Xmx256m -XX:+UseParallelGC -cp "$BIN/classes" \
        Service leak lk_javapar
    start ok_javaser "$BIN/jdk/bin/ok_javaser" -Xmx256m -XX:+UseSerialGC -cp "$BIN/classes" \
        Service ok ok_javaser
    sleep "$DUR"
    finish
    exit 0
fi
if [ "${CORPUS_SET:-base}" = allocators ]; then
    # other runtimes and allocators: Ruby, Lua 5.4, PHP's Zend memory
    # manager, a C service under jemalloc and under tcmalloc, and a
    # PostgreSQL 15 server (shared buffers) under pgbench
    cc -O1 -Wall -o "$BIN/allocsvc" "$HERE/allocsvc.c" -lm
    for n in lk_je ok_je lk_tc ok_tc; do cp "$BIN/allocsvc" "$BIN/$n"; done
    for n in lk_ruby ok_ruby; do cp "$(readlink -f /usr/bin/ruby)" "$BIN/$n"; done
    for n in lk_lua ok_lua; do cp "$(readlink -f /usr/bin/lua5.4)" "$BIN/$n"; done
    for n in lk_php ok_php; do cp "$(readlink -f /usr/bin/php)" "$BIN/$n"; done
    JE=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2
    TC=/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4
    # postgres finds its share and lib folders relative to itself: a copy
    # of both trees, the server binary under the workload's name
    PG=$BIN/pg
    PGPORT=${CORPUS_PG_PORT:-15432}
    mkdir -p "$PG/lib/postgresql" "$PG/share/postgresql" "$OUT/pgdata" "$OUT/pgsock"
    cp -a /usr/lib/postgresql/15 "$PG/lib/postgresql/"
    cp -a /usr/share/postgresql/15 "$PG/share/postgresql/"
    cp "$PG/lib/postgresql/15/bin/postgres" "$PG/lib/postgresql/15/bin/ok_pg"
    chown postgres "$OUT/pgdata" "$OUT/pgsock"
    AS_PG="setpriv --reuid=postgres --regid=postgres --clear-groups"
    $AS_PG "$PG/lib/postgresql/15/bin/initdb" -D "$OUT/pgdata" -A trust -U postgres >"$OUT/logs/initdb.out" 2>&1
    start ok_pg $AS_PG "$PG/lib/postgresql/15/bin/ok_pg" -D "$OUT/pgdata" -p "$PGPORT" -k "$OUT/pgsock" \
        -c shared_buffers=128MB -c listen_addresses=
    PGPID=$!
    start lk_ruby "$BIN/lk_ruby" "$HERE/rubysvc.rb" leak lk_ruby 4194304
    start ok_ruby "$BIN/ok_ruby" "$HERE/rubysvc.rb" ok ok_ruby
    start lk_lua "$BIN/lk_lua" "$HERE/luasvc.lua" leak lk_lua 2097152
    start ok_lua "$BIN/ok_lua" "$HERE/luasvc.lua" ok ok_lua
    start lk_php "$BIN/lk_php" -d memory_limit=-1 "$HERE/phpsvc.php" leak lk_php 8388608
    start ok_php "$BIN/ok_php" -d memory_limit=-1 "$HERE/phpsvc.php" ok ok_php
    # lk_je starts leaking at 12 minutes (a late onset under jemalloc)
    start lk_je env LD_PRELOAD=$JE "$BIN/lk_je" leak 6291456 720
    start ok_je env LD_PRELOAD=$JE "$BIN/ok_je" ok
    start lk_tc env LD_PRELOAD=$TC "$BIN/lk_tc" leak 3145728
    start ok_tc env LD_PRELOAD=$TC "$BIN/ok_tc" ok
    sleep 5
    PGB="$PG/lib/postgresql/15/bin/pgbench -h $OUT/pgsock -p $PGPORT -U postgres"
    $AS_PG $PGB -i -s 20 postgres >"$OUT/logs/pgbench_init.out" 2>&1
    start feed_pg $AS_PG $PGB -n -c 2 -R 20 -T "$DUR" postgres
    # the postmaster's children (its workers and a backend per pgbench
    # connection) are ok_pg too: listed for extract.sh by their parent
    sleep 5
    for c in $(ps -o pid= --ppid "$PGPID"); do
        echo "ok_pg_child $c $(date +%s%3N)" >>"$OUT/starts.txt"
    done
    sleep "$DUR"
    finish
    exit 0
fi
if [ "${CORPUS_SET:-base}" = services ]; then
    cp "$(readlink -f /usr/bin/node)" "$BIN/lk_node_svc"; cp "$(readlink -f /usr/bin/node)" "$BIN/ok_node_svc"
    cp "$PY" "$BIN/lk_sqlite"; cp "$PY" "$BIN/ok_sqlite"
    cp "$(readlink -f /usr/bin/redis-server)" "$BIN/lk_redis"
    cp "$(readlink -f /usr/bin/memcached)" "$BIN/lk_memcached"
    start lk_node_svc "$BIN/lk_node_svc" --expose-gc "$HERE/nodesvc.js" leak
    start ok_node_svc "$BIN/ok_node_svc" --expose-gc "$HERE/nodesvc.js"
    start lk_sqlite "$BIN/lk_sqlite" "$HERE/sqlitesvc.py" leak
    start ok_sqlite "$BIN/ok_sqlite" "$HERE/sqlitesvc.py"
    start lk_redis "$BIN/lk_redis" --port 16380 --bind 127.0.0.1 --save "" --appendonly no --daemonize no
    start lk_memcached "$BIN/lk_memcached" -u root -p 16212 -l 127.0.0.1 -m 1024 -U 0
    sleep 2
    start feed_lk_redis python3 "$HERE/feed.py" redis 16380 8388608 lk_redis
    start feed_lk_memcached python3 "$HERE/feed.py" memcached 16212 8388608 lk_memcached
    sleep "$DUR"
    finish
    exit 0
fi
for n in lk_heap lk_mmap lk_stacks lk_shm lk_bursty lk_late lk_slow lk_slowing lk_fds \
         ok_churn ok_cache ok_batch ok_arenas ok_onetime ok_idle; do
    start $n "$BIN/$n"
done
start lk_python "$BIN/lk_python" "$HERE/pyleak.py" leak
start ok_python_gc "$BIN/ok_python_gc" "$HERE/pyleak.py"
start lk_node "$BIN/lk_node" --expose-gc "$HERE/nodeleak.js" leak
start ok_node_gc "$BIN/ok_node_gc" --expose-gc "$HERE/nodeleak.js"
start ok_redis "$BIN/ok_redis" --port 16379 --bind 127.0.0.1 --save "" --appendonly no --daemonize no
start ok_memcached "$BIN/ok_memcached" -u root -p 16211 -l 127.0.0.1 -m 64 -U 0
sleep 2
start feed_redis python3 "$HERE/feed.py" redis 16379
start feed_memcached python3 "$HERE/feed.py" memcached 16211

sleep "$DUR"
finish
