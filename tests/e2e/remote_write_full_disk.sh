#!/usr/bin/env bash
# remote_write_full_disk.sh - remote write while the database's disk is
# full (issue 22): the daemon's database on a small tmpfs in a private
# mount namespace (unshare -m: nothing outside sees it).  The receiver
# (tests/e2e/remote_write_fake.py) leaves the first requests unanswered,
# so the forwarder has a backlog when a file fills the disk and a reader
# holds a snapshot (the WAL cannot start over: every commit fails, the
# cursor's too).  While the backlog goes out and the writer fails flush
# after flush, the receiver must get every point at most once (the cursor
# could not be written, and each pass used to start again from the one on
# disk).  After the filler is removed the writer recovers and forwarding
# goes on, still without duplicates.
# Linux, root (or a user namespace) for the mount; skipped otherwise.
# Every process is started here and stopped by its PID; loopback only.
set -u
if [ "${1:-}" != "--inside" ]; then
	if command -v unshare >/dev/null && unshare -m true 2>/dev/null; then
		exec unshare -m bash "$0" --inside
	fi
	. "$(dirname "$0")/../lib/tap.sh"
	skip "no private mount namespace here (unshare -m)"
	finish
	exit 0
fi
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/fake_receiver.bash"
need curl python3
daemon=$root/build/native/memwatchd
need_file "make build/native/memwatchd" "$daemon"

disk=$tmpdir/disk
mkdir -p "$disk"
check "a 16 MB tmpfs for the database" mount -t tmpfs -o size=16m tmpfs "$disk"
at_exit "umount '$disk' 2>/dev/null"

# the receiver leaves its first requests unanswered: the forwarder falls
# behind, and still has stored points to send when the disk is full
fake_receiver_start --hang 12

cat >"$tmpdir/mw.ini" <<INI
[daemon]
interval = 200ms
[storage]
db = $disk/mw.db
flush_interval = 500ms
$(forwarding_ini "$recv/hang")
timeout = 1s
batch_size = 50
INI
port=$(free_port)
base=http://127.0.0.1:$port
mw_start fd --config "$tmpdir/mw.ini" --listen "127.0.0.1:$port"
check "daemon ready" wait_ready "$base/healthz"

received() { curl -sf "$recv/dump?path=/hang" | python3 -c "import json,sys; print(len(json.load(sys.stdin)['samples']))"; }
received_above() { [ "$(received)" -gt "$1" ]; }
failed_above() { [ "$(metric memwatch_storage_failed_flushes_total)" -gt "$1" ]; }
# duplicates: the (series, timestamp) pairs the receiver got more than once
duplicates() {
	curl -sf "$recv/dump?path=/hang" | python3 -c "import json,sys,collections
c=collections.Counter((k,t) for k,t,v in json.load(sys.stdin)['samples'])
print(sum(n-1 for n in c.values() if n>1))"
}

requests() { curl -sf "$recv/dump?path=/hang" | python3 -c "import json,sys; print(json.load(sys.stdin)['requests'])"; }
requests_above() { [ "$(requests)" -gt "$1" ]; }
check "remote write is trying (the receiver does not answer yet)" wait_until 20 requests_above 0

# a reader that always holds a snapshot (as the web side's readers do
# under load): the WAL cannot start over, so once the disk is full every
# commit fails, the cursor's small ones too
start_bg reader python3 -c "import sqlite3, time
c = sqlite3.connect('$disk/mw.db', isolation_level=None)
c.execute('BEGIN')
c.execute('SELECT count(*) FROM series').fetchall()
open('$tmpdir/reader.ready', 'w').close()
time.sleep(3600)"
check "a reader holds a snapshot" wait_until 10 test -e "$tmpdir/reader.ready"

# fill the disk: the writer's flushes fail from now on
dd if=/dev/zero of="$disk/filler" bs=64k >/dev/null 2>&1
f0=$(metric memwatch_storage_failed_flushes_total)
# the WAL takes what fits in the space it already has first: tens of
# seconds at this rate
check "the disk is full: flushes fail" wait_until 120 failed_above "$f0"
check "the backlog reaches the receiver" wait_until 90 received_above 0
f1=$(metric memwatch_storage_failed_flushes_total)
check "  ... and the disk stays full for five more flush intervals" wait_until 30 failed_above $((f1 + 5))
check "no point reached the receiver twice while the disk was full" test "$(duplicates)" -eq 0

rm -f "$disk/filler"
stop_pid "$bg_pid"; untrack "$bg_pid"
sent_before=$(received)
check "the disk has room again: remote write goes on" wait_until 60 received_above $((sent_before + 50))
check "no point reached the receiver twice" test "$(duplicates)" -eq 0
check "daemon stops cleanly" mw_stop "$mw_pid"
finish
