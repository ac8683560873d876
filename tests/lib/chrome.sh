# tests/lib/chrome.sh - part of the shell test library, sourced by
# tests/lib/tap.sh (not on its own): headless Chromium for the page tests
# (tests/api/chromium.sh, leaks.sh, page_*.sh, tests/e2e/diff_linux.sh)
# and the page fixture (tests/api/page_fixture.py) served behind its
# stand-in proxy.  Uses tap.sh's check, skip, track and $tmpdir, and
# daemon.sh's mw_serve.

# ---- headless Chromium -------------------------------------------------------

# chromium, or empty when it is not installed
chrome=$(command -v chromium || command -v chromium-browser || true)
# headless, nothing fetched of its own, the page's scripts given 8 s of
# virtual time; a later --window-size overrides the default one
chrome_flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
	--disable-background-networking --disable-component-update --disable-sync
	--disable-extensions --disable-default-apps --hide-scrollbars
	--window-size=1280,900 --virtual-time-budget=8000)

# run_chrome ARGS...: one headless Chromium run with a fresh profile,
# bounded to 40 s; its stderr goes to $tmpdir/chrome.log.
run_chrome() {
	timeout 40 "$chrome" "${chrome_flags[@]}" --user-data-dir="$(mktemp -d "$tmpdir/chrome.XXXXXX")" \
		"$@" 2>>"$tmpdir/chrome.log"
}

# devtools_chrome ARGS...: Chromium left running headless with its
# DevTools on a free port, dport (driven by tests/api/page_*.js), stopped
# at exit.
devtools_chrome() {
	dport=$(free_port)
	"$chrome" --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
		--disable-extensions --hide-scrollbars --window-size=1280,1100 --remote-debugging-port="$dport" \
		--user-data-dir="$tmpdir/chrome" "$@" about:blank >/dev/null 2>"$tmpdir/chrome.log" &
	track "$!"
}

# devtools_drive DESC SECONDS DRIVER URL PNG: node runs tests/api/DRIVER
# against devtools_chrome's Chromium (bounded to SECONDS), opening URL and
# saving its screenshot as build/PNG; its JSON lines go to
# $tmpdir/steps.json.  ok DESC when it finished, not ok else.
devtools_drive() {
	local desc=$1 secs=$2 driver=$3 url=$4 png=$5
	mkdir -p "$root/build"
	if timeout "$secs" node --experimental-websocket "$root/tests/api/$driver" "$dport" \
		"$url" "$root/build/$png" >"$tmpdir/steps.json" 2>>"$tmpdir/chrome.log"; then
		ok "$desc"
	else
		not_ok "$desc"
	fi
}

# need_devtools: chromium and node with WebSocket (tests/api/page_*.js
# drive the page over DevTools), or one SKIP and exit 0.
need_devtools() {
	if [ -z "$chrome" ] || ! command -v node >/dev/null ||
		! node --experimental-websocket -e 'WebSocket' 2>/dev/null; then
		skip "chromium or node with WebSocket not installed"
		finish
		exit 0
	fi
}

# fixture_serve DESC INTERVAL [EXPORT ARGS...]: the recording of
# tests/api/page_fixture.py imported into $tmpdir/x.db (checked as DESC),
# a daemon serving it (mw_serve x --interval INTERVAL, in main_pid) and the
# fixture's stand-in proxy in front of it on pport, both checked ready.
fixture_serve() {
	local desc=$1 interval=$2 fixture=$root/tests/api/page_fixture.py
	shift 2
	check "$desc" sh -c 'f=$1 d=$2 m=$3; shift 3
		python3 "$f" export "$d/f.json" "$@" && "$m" import --db "$d/x.db" "$d/f.json"' \
		sh "$fixture" "$tmpdir" "$daemon" "$@"
	mw_serve x --interval "$interval"
	main_pid=$mw_pid
	check "daemon ready" wait_ready "$base/healthz"
	pport=$(free_port)
	start_bg proxy python3 "$fixture" proxy "$pport" "$port"
	check "stand-in proxy ready" wait_ready "http://127.0.0.1:$pport/healthz"
}
