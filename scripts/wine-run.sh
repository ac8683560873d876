#!/usr/bin/env bash
# wine-run.sh EXE [ARGS...] - run a Windows program under Wine and exit with
# its exit code.  Uses a throwaway prefix, build/wine/prefix (override with
# MW_WINEPREFIX), made with `wineboot -i` on first use; needs no display.
# Parallel callers are safe: making the prefix is serialized with flock.
set -euo pipefail

if [ $# -lt 1 ]; then
	echo "usage: scripts/wine-run.sh EXE [ARGS...]" >&2
	exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
if ! command -v wine >/dev/null 2>&1; then
	echo "wine-run: wine is not installed (scripts/deps.sh win64 installs it)" >&2
	exit 127
fi

prefix=${MW_WINEPREFIX:-$root/build/wine/prefix}
export WINEPREFIX=$prefix
# quiet unless the caller asks for a channel (run-tests.sh does on a retry)
export WINEDEBUG=${WINEDEBUG:--all}
# no Mono or Gecko install prompts
export WINEDLLOVERRIDES="mscoree,mshtml=${WINEDLLOVERRIDES:+;$WINEDLLOVERRIDES}"
export WINEARCH=win64

# Make the prefix once.  .mw-ready is written last, so a prefix left half
# made by an interrupted run is made again.
if [ ! -f "$prefix/.mw-ready" ]; then
	mkdir -p "$(dirname "$prefix")"
	exec 8>"$prefix.lock"
	flock 8
	if [ ! -f "$prefix/.mw-ready" ]; then
		log=$prefix.log
		rm -rf "$prefix"
		if ! {
			wine wineboot -i &&
				# a crash prints its backtrace instead of opening a dialog
				wine reg add 'HKCU\Software\Wine\WineDbg' /v ShowCrashDialog \
					/t REG_DWORD /d 0 /f &&
				wineserver -w
		} >"$log" 2>&1; then
			echo "wine-run: creating the Wine prefix $prefix failed:" >&2
			tail -n 20 "$log" >&2
			exit 125
		fi
		touch "$prefix/.mw-ready"
	fi
	exec 8>&-
fi

exe=$1
shift
exec wine "$exe" "$@"
