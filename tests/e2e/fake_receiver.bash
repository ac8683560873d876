# tests/e2e/fake_receiver.bash - sourced (after tests/lib/tap.sh) by the
# e2e tests that forward to tests/e2e/remote_write_fake.py: clock_step.sh
# and remote_write_full_disk.sh.  Not a test itself (the runner takes
# *.sh only).

# fake_receiver_start ARGS...: remote_write_fake.py ARGS on a loopback port
# the system chose, stopped at exit; checked; its URL in recv.
fake_receiver_start() {
	start_bg recv python3 "$root/tests/e2e/remote_write_fake.py" "$tmpdir/recv.port" "$@"
	check "receiver listens" wait_until 10 test -s "$tmpdir/recv.port"
	recv=http://127.0.0.1:$(cat "$tmpdir/recv.port")
}

# forwarding_ini URL: the INI sections of these tests after [daemon],
# [storage] and [web]: a leak judgement every second, every collector but
# the system one off (a small, steady set of series), and
# [remote_write.ok] sending the system and leak series to URL (more keys
# of that section may follow).
forwarding_ini() {
	local c
	printf '[leak]\nrefresh = 1s\ncpu_budget = 0\n'
	for c in process workingset perfcounters heap vmmap; do
		printf '[collector.%s]\nenabled = false\n' "$c"
	done
	printf '[remote_write.ok]\nurl = %s\nmatch = {__name__=~"memwatch_(system|leak)_.*"}\n' "$1"
	printf 'max_backoff = 1s\n'
}

# metric NAME: its value in the daemon's /metrics ($base), -1 when absent.
metric() {
	curl -sf "$base/metrics" | awk -v m="$1" '$1 == m { print int($2); f=1 } END { if (!f) print -1 }'
}
