#!/usr/bin/env bash
# max_size.sh DAEMON - [storage] max_size holds on a live daemon (issue 22):
# sampling this host every 100 ms with a 1 MB limit, the file fills, the
# oldest data goes (memwatch_storage_size_cut_* on /metrics grow) and the
# database file stays within a few percent of the limit while half the
# limit again is cut.  The daemon is ours, stopped by PID.
set -u
. "$(dirname "$0")/../lib/tap.sh"
daemon_under_test "$@"

cap=1048576
mw_serve size --interval 100ms --set storage.flush_interval=200ms \
	--set storage.max_size=1MB --set storage.chunk_points=20
main_pid=$mw_pid
db=$tmpdir/size.db
check "daemon answers /healthz" wait_ready "$base/healthz"

# counter NAME: its value on /metrics (0 when absent)
counter() {
	curl -s --max-time 2 "$base/metrics" | awk -v n="$1" '$1 == n { print int($2); f = 1 }
		END { if (!f) print 0 }'
}

# cut_enough: true once the cut freed half the limit again; meanwhile the
# largest file size seen is kept in $tmpdir/max_file
echo 0 >"$tmpdir/max_file"
cut_enough() {
	local size max
	size=$(stat -c %s "$db" 2>/dev/null || echo 0)
	max=$(cat "$tmpdir/max_file")
	[ "$size" -gt "$max" ] && echo "$size" >"$tmpdir/max_file"
	[ "$(counter memwatch_storage_size_cut_bytes_total)" -ge $((cap / 2)) ]
}
check "the oldest data goes once the file is full" wait_or_show 150 \
	'echo "cut so far: $(counter memwatch_storage_size_cut_bytes_total) bytes"' cut_enough
max=$(cat "$tmpdir/max_file")
if [ "$max" -le $((cap + cap / 20)) ]; then
	ok "the file stayed within 5 % of max_size ($max bytes, limit $cap)"
else
	not_ok "the file stayed within 5 % of max_size ($max bytes, limit $cap)"
fi
check "raw chunks and points were counted" bash -c \
	"[ $(counter memwatch_storage_size_cut_chunks_total) -gt 0 ] &&
	 [ $(counter memwatch_storage_size_cut_points_total) -gt 0 ]"
check "every size-cut counter is on /metrics" bash -c "curl -s '$base/metrics' |
	grep -c '^memwatch_storage_size_cut_[a-z_]*_total ' | grep -qx 6"
check "reaching the limit is logged once" bash -c \
	"[ \$(grep -c 'reached max_size' '$tmpdir/size.log') -eq 1 ]"
check "daemon stops with status 0" mw_stop "$main_pid"
finish
