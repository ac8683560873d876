# lib.sh - shared by the tests/api/*.sh scripts (sourced, not run).
#
# TAP output: `ok N - desc`, `not ok N - desc`, `ok N # SKIP reason`.
# Daemons started with mw_start are stopped at exit.  Loopback only.

n=0
failures=0
pids=()
tmpdir=$(mktemp -d "${TMPDIR:-/tmp}/mw-api.XXXXXX")

ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failures=$((failures + 1)); echo "not ok $n - $1"; }
skip() { n=$((n + 1)); echo "ok $n # SKIP $1"; }

# check DESC CMD...: ok when CMD succeeds; its output is shown on failure.
# Runs in this shell (no subshell), so `wait` works on our daemons.
check() {
	local desc=$1
	shift
	if "$@" >"$tmpdir/check.out" 2>&1; then
		ok "$desc"
	else
		not_ok "$desc"
		head -20 "$tmpdir/check.out" | sed 's/^/#   /'
	fi
}

cleanup() {
	local p
	for p in "${pids[@]}"; do
		kill -TERM "$p" 2>/dev/null && wait "$p" 2>/dev/null
	done
	rm -rf "$tmpdir"
}
trap cleanup EXIT

free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# mw_start NAME ARGS...: start `$daemon run ARGS` in the background with
# its log in $tmpdir/NAME.log; sets mw_pid.
mw_start() {
	local name=$1
	shift
	"$daemon" run "$@" >"$tmpdir/$name.log" 2>&1 &
	mw_pid=$!
	pids+=("$mw_pid")
}

# wait_ready URL: poll until it answers (readiness; bounded to ~10 s).
wait_ready() {
	local i
	for i in $(seq 1 100); do
		curl -s -o /dev/null --max-time 1 "$1" && return 0
		sleep 0.1
	done
	return 1
}

# wait_data BASE [AUTH_HEADER]: poll until /api/v1/series lists a series
# (the first flush; bounded to ~15 s).
wait_data() {
	local i
	for i in $(seq 1 150); do
		curl -s --max-time 2 ${2:+-H "$2"} "$1/api/v1/series" |
			python3 -c 'import json,sys; sys.exit(0 if json.load(sys.stdin)["series"] else 1)' 2>/dev/null &&
			return 0
		sleep 0.1
	done
	return 1
}

# mw_stop PID: SIGTERM and expect exit status 0.
mw_stop() {
	local p=$1 rc q rest=()
	kill -TERM "$p" || return 1
	wait "$p"
	rc=$?
	for q in "${pids[@]}"; do [ "$q" != "$p" ] && rest+=("$q"); done
	pids=("${rest[@]}")
	[ "$rc" -eq 0 ] || { echo "exit status $rc"; return 1; }
}

# js CODE: run Python over the JSON on stdin as `d`; CODE must be an expression
# that is true, or statements that raise.
js() {
	python3 -c "import json,sys
d=json.load(sys.stdin)
r=($1)
if r is False: print(json.dumps(d)[:600]); sys.exit(1)"
}

# status URL [CURL ARGS...]: print the HTTP status code.
status() {
	local url=$1
	shift
	curl -s -o "$tmpdir/body" -w '%{http_code}' --max-time 10 "$@" "$url"
}

# expect_error CODE NEEDLE URL [CURL ARGS...]: status CODE and a JSON
# {"error": "..."} containing NEEDLE.
expect_error() {
	local code=$1 needle=$2 url=$3 got
	shift 3
	got=$(status "$url" "$@")
	[ "$got" = "$code" ] || { echo "status $got, want $code: $(head -c 300 "$tmpdir/body")"; return 1; }
	python3 -c "import json,sys
e=json.load(open(sys.argv[1]))['error']
sys.exit(0 if sys.argv[2] in e else (print(e) or 1))" "$tmpdir/body" "$needle"
}

finish() {
	echo "1..$n"
	[ "$failures" -eq 0 ]
}
