# tests/lib/daemon.sh - part of the shell test library, sourced by
# tests/lib/tap.sh (not on its own): memwatchd started on a free loopback
# port with a scratch database and stopped by PID, natively or the Windows
# build under Wine; waits until it answers or has data; checks of exit
# statuses, HTTP errors and JSON.  Uses tap.sh's track/untrack, start_bg,
# wait_until and $tmpdir.

# ---- daemons -----------------------------------------------------------------

free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# The command that runs $daemon: empty natively, (scripts/wine-run.sh)
# for the Windows build under Wine.
mw_runner=()

# mw_start NAME ARGS...: `$daemon run ARGS` in the background, its log in
# $tmpdir/NAME.log; its PID in mw_pid, stopped at exit.
mw_start() {
	local name=$1
	shift
	start_bg "$name" "${mw_runner[@]}" "$daemon" run "$@"
	mw_pid=$bg_pid
}

# mw_serve NAME ARGS...: mw_start on a free loopback port with a scratch
# database $tmpdir/NAME.db (Z:\... under Wine); sets port and base (the
# URL).  Wait for it with wait_ready "$base/healthz".
mw_serve() {
	local name=$1 db
	shift
	port=$(free_port)
	base=http://127.0.0.1:$port
	db=$tmpdir/$name.db
	[ ${#mw_runner[@]} -gt 0 ] && db=$(wine_path "$db")
	mw_start "$name" --listen "127.0.0.1:$port" --db "$db" "$@"
}

# mw_serve_data NAME ARGS...: mw_serve, then checked: it answers /healthz
# and has data (its first flush).  Its PID in main_pid, its database in db.
mw_serve_data() {
	mw_serve "$@"
	main_pid=$mw_pid
	db=$tmpdir/$1.db
	check "daemon answers /healthz" wait_ready "$base/healthz"
	check "first samples are queryable" wait_data "$base"
}

# mw_stop PID: SIGTERM and expect exit status 0.
mw_stop() {
	local p=$1 rc
	kill -TERM "$p" || return 1
	wait "$p"
	rc=$?
	untrack "$p"
	[ "$rc" -eq 0 ] || { echo "exit status $rc"; return 1; }
}

# wine_daemon EXE: mw_start and mw_serve run the Windows build EXE under
# Wine from here on.  wine-run.sh execs Wine, which runs the .exe in the
# process started: its PID is mw_pid.
wine_daemon() {
	daemon=$1
	mw_runner=("$root/scripts/wine-run.sh")
}

# wine_serve NAME ARGS...: the cross-built build/win64/memwatchd.exe (in
# $exe) under Wine (wine_daemon), mw_serve NAME ARGS and a wait (not a
# check: each test checks the answer it needs) until it answers; Wine
# starts slowly, so 30 s.
wine_serve() {
	exe=$root/build/win64/memwatchd.exe
	wine_daemon "$exe"
	mw_serve "$@"
	wait_ready "$base/healthz" 30
}

# wine_path PATH: the same file as Wine's Z: drive names it.
wine_path() { local p=$1; echo "Z:${p//\//\\}"; }

# ---- waits on a daemon --------------------------------------------------------

# answers URL: one quick request succeeds (any HTTP answer, as curl -s).
answers() { curl -s -o /dev/null --max-time 2 "$1"; }

# wait_ready URL [SECONDS]: poll until it answers (default 10 s; the
# Windows build under Wine needs 30).
wait_ready() { wait_until "${2:-10}" answers "$1"; }

# has_series BASE [AUTH_HEADER]: /api/v1/series lists a series.
has_series() {
	curl -s --max-time 2 ${2:+-H "$2"} "$1/api/v1/series" |
		python3 -c 'import json,sys; sys.exit(0 if json.load(sys.stdin)["series"] else 1)' 2>/dev/null
}

# wait_data BASE [AUTH_HEADER]: poll until /api/v1/series lists a series
# (the first flush; bounded to 15 s).
wait_data() { wait_until 15 has_series "$@"; }

# ---- commands, JSON and HTTP ---------------------------------------------------

# expect_rc WANT CMD ARGS...: CMD exits WANT; its output (both streams) in
# $tmpdir/cmd.out, shown when the status is another.
expect_rc() {
	local want=$1 got
	shift
	"$@" >"$tmpdir/cmd.out" 2>&1
	got=$?
	[ "$got" = "$want" ] || { echo "exit $got, want $want"; cat "$tmpdir/cmd.out"; return 1; }
}

# enc TEXT: TEXT percent-encoded for a query string.
enc() { python3 -c 'import sys,urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$1"; }

# js CODE: run Python over the JSON on stdin as `d`; CODE must be an expression
# that is true, or statements that raise.
js() {
	python3 -c "import json,sys
d=json.load(sys.stdin)
r=($1)
if r is False: print(json.dumps(d)[:600]); sys.exit(1)"
}

# status URL [CURL ARGS...]: print the HTTP status code (body in $tmpdir/body).
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
