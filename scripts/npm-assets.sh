#!/usr/bin/env bash
# npm-assets.sh - install the chart page's front-end packages (uPlot) from
# the npm registry into build/npm, pinned by web/npm/package-lock.json.
# Nothing from node_modules is committed; scripts/embed-assets.sh embeds
# the dist files into the binary.  Idempotent: does nothing when the
# installed version already matches the lock.
set -euo pipefail
cd "$(dirname "$0")/.."
dest=build/npm
want=$(python3 -c 'import json,sys; print(json.load(open("web/npm/package-lock.json"))["packages"]["node_modules/uplot"]["version"])' 2>/dev/null ||
	sed -n 's/.*"version": "\(1\.[0-9.]*\)".*/\1/p' web/npm/package-lock.json | head -1)
have=$(sed -n 's/^ *"version": "\([^"]*\)".*/\1/p' "$dest/node_modules/uplot/package.json" 2>/dev/null | head -1 || true)
if [ -n "$want" ] && [ "$have" = "$want" ] && [ -f "$dest/node_modules/uplot/dist/uPlot.iife.min.js" ]; then
	exit 0
fi
if ! command -v npm >/dev/null; then
	echo "npm-assets: npm not found (Debian: apt-get install npm); the page will lack its chart library" >&2
	exit 1
fi
mkdir -p "$dest"
cp web/npm/package.json web/npm/package-lock.json "$dest/"
# npm ci: exactly the lock's versions and integrity hashes; no audit/fund noise.
npm ci --prefix "$dest" --no-audit --no-fund --loglevel=error
test -f "$dest/node_modules/uplot/dist/uPlot.iife.min.js"
