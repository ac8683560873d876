#!/usr/bin/env bash
# deps.sh [all|native|win64] - make a Debian 12 machine ready to build and
# test memwatch.  Safe to run again: when everything is there it only looks
# (dpkg-query, command -v, a stamp) and prints nothing.
#
#   native  Debian packages for the host build, then libmicrohttpd built
#           static and without HTTPS, and SQLite static and small (-Os),
#           from Debian's source packages into
#           build/deps/native/{include,lib,lib/pkgconfig}: the Makefile
#           finds their .pc before Debian's, so memwatchd maps no GnuTLS
#           unless [web] tls_cert asks for HTTPS (web/mhd_api.h), and
#           fewer resident pages of SQLite's code than Debian's -O2 build
#   win64   the packages the cross build needs, then the four libraries
#           (libmicrohttpd, cJSON, SQLite, cmocka) cross-built as static
#           MinGW-w64 x86_64 libraries from Debian's own source packages,
#           into build/win64/deps/{include,lib,lib/pkgconfig}, plus
#           build/win64/deps/cflags.txt and libs.txt for the Makefile
#   all     both, plus what the tests use (prometheus, chromium); the default
#
# The sources come from `apt-get source` run with a private apt
# configuration under build/deps/apt/: deb-src entries derived at run time
# from the machine's own enabled Debian entries, private lists and cache;
# they are unpacked once into build/deps/src/ for both builds.  The
# system's apt sources and lists are not touched.  Build logs are kept in
# build/deps/native-build/*.log and build/win64/deps-build/*.log.
# build/deps/native/.stamp and build/win64/deps/.stamp mark a finished
# build; each is redone when this script changes.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
SELF=$ROOT/scripts/deps.sh
what=${1:-all}
case $what in
all | native | win64) ;;
-h | --help)
	sed -n '2,24p' "$SELF" | sed 's/^# \{0,1\}//'
	exit 0
	;;
*)
	echo "usage: scripts/deps.sh [all|native|win64]" >&2
	exit 2
	;;
esac

say() { echo "deps: $*"; }
die() {
	echo "deps: error: $*" >&2
	exit 1
}

# One run at a time: `make -j` may start `deps.sh` and `deps.sh win64`
# together.  The second one waits, then finds everything done.
mkdir -p build
exec 9>build/.deps.lock
flock 9

# --- Debian packages ---------------------------------------------------------
# PACKAGE:COMMAND - a package counts as present when COMMAND is on PATH (tools
# may come from elsewhere, e.g. python3 from pyenv); PACKAGE alone - when
# dpkg says it is installed (libraries and headers).
NATIVE_PKGS=(
	gcc:gcc make:make pkg-config:pkg-config
	libmicrohttpd-dev libcjson-dev libsqlite3-dev libcmocka-dev
	libcurl4-openssl-dev
	sqlite3:sqlite3 curl:curl python3:python3 npm:npm
	dpkg-dev:dpkg-shlibdeps
	# apt-get source unpacks libmicrohttpd's and SQLite's Debian sources
	# with these; SQLite's amalgamation is made with tclsh
	xz-utils:xz patch:patch tcl:tclsh
)
# Only the tests need these: a real Prometheus scraping /metrics (promtool
# comes with it) and headless Chromium opening the chart page; openssl to
# make a throw-away certificate for the remote-write TLS tests; libsnappy
# to check our snappy blocks against (loaded at run time, never linked);
# lintian to check the Debian package (make deb, tests/e2e/deb.sh).
TEST_PKGS=(
	prometheus:promtool chromium:chromium openssl:openssl libsnappy1v5
	victoria-metrics:victoria-metrics lintian:lintian
)
WIN64_PKGS=(
	gcc:gcc make:make
	gcc-mingw-w64-x86-64:x86_64-w64-mingw32-gcc
	wine:wine wine64
	dpkg-dev:dpkg-source xz-utils:xz patch:patch
	cmake:cmake tcl:tclsh
	# make msi: wixl builds the installer, msibuild (msitools) amends it
	wixl:wixl msitools:msibuild
)

wanted=()
case $what in
native) wanted=("${NATIVE_PKGS[@]}") ;;
win64) wanted=("${WIN64_PKGS[@]}") ;;
all) wanted=("${NATIVE_PKGS[@]}" "${WIN64_PKGS[@]}" "${TEST_PKGS[@]}") ;;
esac

missing_packages() {
	local entry pkg cmd dpkg_pkgs=() installed
	local -A seen=()
	for entry in "${wanted[@]}"; do
		pkg=${entry%%:*}
		[ -z "${seen[$pkg]:-}" ] || continue
		seen[$pkg]=1
		if [ "$entry" != "$pkg" ]; then
			cmd=${entry#*:}
			command -v "$cmd" >/dev/null 2>&1 || echo "$pkg"
		elif [ "$pkg" = wine64 ]; then
			# Debian's wine64 has no command of its own on PATH
			[ -x /usr/lib/wine/wine64 ] || command -v wine64 >/dev/null 2>&1 ||
				dpkg_pkgs+=("$pkg")
		else
			dpkg_pkgs+=("$pkg")
		fi
	done
	[ ${#dpkg_pkgs[@]} -gt 0 ] || return 0
	installed=$(dpkg-query -W -f='${Package} ${db:Status-Abbrev}\n' \
		"${dpkg_pkgs[@]}" 2>/dev/null | awk '$2 == "ii" { print $1 }') || true
	for pkg in "${dpkg_pkgs[@]}"; do
		grep -qx -- "$pkg" <<<"$installed" || echo "$pkg"
	done
}

install_packages() {
	local missing sudo=()
	mapfile -t missing < <(missing_packages)
	[ ${#missing[@]} -gt 0 ] || return 0
	if [ "$(id -u)" -ne 0 ]; then
		if command -v sudo >/dev/null 2>&1; then
			sudo=(sudo)
		else
			die "missing Debian packages and not root (no sudo either); as root run:
  apt-get update && apt-get install -y --no-install-recommends ${missing[*]}"
		fi
	fi
	say "installing ${missing[*]}"
	"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
	"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		--no-install-recommends -o DPkg::Lock::Timeout=600 "${missing[@]}"
	mapfile -t missing < <(missing_packages)
	[ ${#missing[@]} -eq 0 ] || die "still missing after apt-get install: ${missing[*]}"
}

install_packages

# --- libraries built from Debian's source packages --------------------------
# Two builds: native (libmicrohttpd, SQLite) and win64 (four libraries).  Each
# has its prefix DEPS (what the Makefile uses, with its .stamp), its BLD
# (build directories, logs, versions.txt) and its list of SOURCES; the
# functions below work on the build whose variables use_build set last.
SHARED=$ROOT/build/deps
APTDIR=$SHARED/apt
SRC=$SHARED/src
JOBS=$(nproc 2>/dev/null || echo 2)
HOST=x86_64-w64-mingw32
DEPS='' BLD='' STAMP='' TARGET=''
LIBS_A=() SOURCES=()
# What users of the win64 libraries add to their compile and link lines
# (cflags.txt, libs.txt).  MHD_W32LIB: microhttpd.h's mark for linking the
# static library on W32 (plain extern declarations, not dllimport).
# CJSON_HIDE_SYMBOLS: without it cJSON.h declares every function
# __declspec(dllexport) on Windows.  -lws2_32: libmicrohttpd's sockets.
DEP_CFLAGS="-DMHD_W32LIB -DCJSON_HIDE_SYMBOLS"
DEP_LIBS="-lmicrohttpd -lcjson -lsqlite3 -lcmocka -lws2_32"
SQLITE_DEFS="-DSQLITE_THREADSAFE=1 -DSQLITE_OMIT_LOAD_EXTENSION -DSQLITE_ENABLE_MATH_FUNCTIONS"
# The native SQLite (issue 26): compiled for size.  Debian's -O2 library is
# 1.4 MB of code, 1.2 MB of it resident in a daemon at 300 processes; this
# one is 0.6 MB, and the daemon's file-backed pages fell 4.06 -> 3.36 MB,
# while its 7-day read (bench_storage history: 40 -> 34 ms) and its
# flushes (0.31 -> 0.28 us a series) got no slower (no calls through the
# PLT).  No lookaside, as Debian's (a buffer per connection); dbstat for
# bench_storage's bytes per row.
NATIVE_SQLITE_FLAGS="-Os -fPIC $SQLITE_DEFS -DSQLITE_OMIT_LOOKASIDE -DSQLITE_ENABLE_DBSTAT_VTAB"
# Debian source package, the -dev package of the native build, upstream version
MHD_SOURCE=libmicrohttpd:libmicrohttpd-dev:0.9.75
SQLITE_SOURCE=sqlite3:libsqlite3-dev:3.40.1

# use_build native|win64: point the variables above at that build.
use_build() {
	case $1 in
	native)
		DEPS=$SHARED/native
		BLD=$SHARED/native-build
		TARGET="$(gcc -dumpmachine)"
		LIBS_A=(libmicrohttpd.a libsqlite3.a)
		SOURCES=("$MHD_SOURCE" "$SQLITE_SOURCE")
		;;
	win64)
		DEPS=$ROOT/build/win64/deps
		BLD=$ROOT/build/win64/deps-build
		TARGET=$HOST
		LIBS_A=(libmicrohttpd.a libcjson.a libsqlite3.a libcmocka.a)
		SOURCES=(
			"$MHD_SOURCE"
			cjson:libcjson-dev:1.7.15
			"$SQLITE_SOURCE"
			cmocka:libcmocka-dev:1.1.5
		)
		;;
	esac
	STAMP=$DEPS/.stamp
}

recipe=$(sha256sum "$SELF" | cut -c1-64)

stamp_ok() {
	local a
	[ -f "$STAMP" ] || return 1
	for a in "${LIBS_A[@]}"; do [ -f "$DEPS/lib/$a" ] || return 1; done
	[ "$STAMP" -nt "$SELF" ] && return 0
	# same script with a newer mtime (checkout, copy): still valid
	if grep -qx "recipe $recipe" "$STAMP"; then
		touch "$STAMP"
		return 0
	fi
	return 1
}

# start_build: a fresh prefix, the build's folders, the private apt tree.
start_build() {
	t_start=$(date +%s)
	rm -rf "$DEPS"
	mkdir -p "$DEPS/include" "$DEPS/lib/pkgconfig" "$BLD" "$SRC" \
		"$APTDIR/sources.list.d" "$APTDIR/lists/partial" "$APTDIR/cache/archives/partial"
	: >"$BLD/versions.txt"
}

# finish_build WHAT: the stamp, written last, and a line saying what was built.
finish_build() {
	{
		echo "recipe $recipe"
		cat "$BLD/versions.txt"
	} >"$STAMP.tmp"
	mv "$STAMP.tmp" "$STAMP"
	say "$1 ready in ${DEPS#"$ROOT"/} ($(($(date +%s) - t_start)) s): $(awk '{ printf "%s%s %s", (NR > 1 ? ", " : ""), $1, $2 }' "$BLD/versions.txt")"
}

# These builds see none of the caller's settings (compiler, flags, paths).
unset CC CXX CPP CFLAGS CXXFLAGS CPPFLAGS LDFLAGS LIBS PKG_CONFIG_PATH \
	PKG_CONFIG_LIBDIR PKG_CONFIG_SYSROOT_DIR MAKEFLAGS MFLAGS MAKELEVEL
export LC_ALL=C

# Steps still running when we exit (failure, ^C) are ended, with their
# children: each step runs in a process group of its own.
declare -A step_pid=() step_t0=()
cleanup() {
	local p
	for p in "${step_pid[@]}"; do kill -- "-$p" 2>/dev/null || true; done
}
trap cleanup EXIT

# start_step NAME FUNCTION: run FUNCTION in the background, traced, output
# to $BLD/NAME.log.  finish_step NAME: wait for it; on failure show the tail
# of its log and stop.  (A background subshell keeps `set -e` in force.)
start_step() {
	local name=$1 fn=$2
	step_t0[$name]=$SECONDS
	set -m # job control: the step gets its own process group
	(
		set -x
		"$fn"
	) >"$BLD/$name.log" 2>&1 </dev/null &
	step_pid[$name]=$!
	set +m
}
finish_step() {
	local name=$1 pid=${step_pid[$1]}
	if ! wait "$pid"; then
		unset "step_pid[$name]"
		echo "deps: error: $name failed; last lines of ${BLD#"$ROOT"/}/$name.log:" >&2
		tail -n 40 "$BLD/$name.log" | sed 's/^/    /' >&2
		exit 1
	fi
	unset "step_pid[$name]"
	say "  $name: $((SECONDS - step_t0[$name])) s"
}
run_step() {
	start_step "$1" "$2"
	finish_step "$1"
}

# --- the private apt configuration ----------------------------------------
# deb-src twins of the machine's enabled Debian entries, in both formats.
write_apt_sources() {
	local f lists=() sources=()
	[ -f /etc/apt/sources.list ] && lists+=(/etc/apt/sources.list)
	for f in /etc/apt/sources.list.d/*.list; do [ -f "$f" ] && lists+=("$f"); done
	for f in /etc/apt/sources.list.d/*.sources; do [ -f "$f" ] && sources+=("$f"); done
	# a Debian archive: a debian.org host, or a mirror's /debian... path
	local isdeb='function isdeb(u) {
		if (u ~ /debian-debug\/?$/ || u ~ /^cdrom:/) return 0
		return u ~ /[\/.@]debian\.org([:\/]|$)/ || u ~ /\/debian(-security|-ports)?\/?$/
	}'
	: >"$APTDIR/sources.list"
	rm -f "$APTDIR"/sources.list.d/*
	if [ ${#lists[@]} -gt 0 ]; then
		awk "$isdeb"'
		/^[ \t]*deb[ \t]/ {
			line = $0
			sub(/^[ \t]*deb[ \t]+/, "", line)
			opts = ""
			if (line ~ /^\[/) {
				i = index(line, "]")
				opts = substr(line, 1, i) " "
				line = substr(line, i + 1)
				sub(/^[ \t]+/, "", line)
			}
			split(line, a, /[ \t]+/)
			if (opts ~ /enabled=no/ || !isdeb(a[1])) next
			out = "deb-src " opts line
			if (!seen[out]++) print out
		}' "${lists[@]}" >"$APTDIR/sources.list.d/debian-src.list"
	fi
	if [ ${#sources[@]} -gt 0 ]; then
		awk "$isdeb"'
		BEGIN { RS = ""; FS = "\n" }
		{
			out = ""; types = ""; uris = ""; signed = ""; enabled = "yes"; keep = 0
			for (i = 1; i <= NF; i++) {
				l = $i
				if (l ~ /^#/) continue
				if (l ~ /^[ \t]/) { if (keep) out = out "\n" l; continue }
				c = index(l, ":")
				if (c == 0) continue
				k = tolower(substr(l, 1, c - 1))
				v = substr(l, c + 1)
				gsub(/^[ \t]+|[ \t]+$/, "", v)
				keep = 0
				if (k == "types") { types = v; continue }
				if (k == "enabled") { enabled = tolower(v); continue }
				if (k == "uris") uris = v
				if (k == "signed-by") signed = v
				keep = 1
				out = out "\n" l
			}
			if (enabled == "no" || types !~ /(^|[ \t])deb([ \t]|$)/) next
			deb = (signed ~ /debian-archive-keyring/)
			n = split(uris, u, /[ \t]+/)
			for (j = 1; j <= n; j++) if (isdeb(u[j])) deb = 1
			if (!deb) next
			print "Types: deb-src" out "\n"
		}' "${sources[@]}" >"$APTDIR/sources.list.d/debian-src.sources"
	fi
	[ -s "$APTDIR/sources.list.d/debian-src.list" ] ||
		[ -s "$APTDIR/sources.list.d/debian-src.sources" ] ||
		die "no enabled Debian entry in /etc/apt/sources.list{,.d/} to take deb-src entries from"
	find "$APTDIR/sources.list.d" -type f -empty -delete
}

APT_OPTS=(
	-o "Dir::Etc::SourceList=$APTDIR/sources.list"
	-o "Dir::Etc::SourceParts=$APTDIR/sources.list.d"
	-o "Dir::State::Lists=$APTDIR/lists"
	-o "Dir::Cache=$APTDIR/cache"
	-o "APT::Get::Only-Source=true"
)
# root's apt downloads as _apt, which may not reach into this tree
[ "$(id -u)" -ne 0 ] || APT_OPTS+=(-o "APT::Sandbox::User=root")

# newest VERSION...: the highest by Debian's ordering
newest() {
	local best="" v
	for v; do
		if [ -z "$best" ] || dpkg --compare-versions "$v" gt "$best"; then best=$v; fi
	done
	echo "$best"
}

# Sources land in $SRC/PKG/PKG-UPSTREAM; a finished fetch leaves
# $SRC/PKG/.fetched holding the version, so a rebuild (either build's)
# reuses it.
fetch_sources() {
	local entry src dev up want avail ver v
	write_apt_sources
	apt-get "${APT_OPTS[@]}" update
	for entry in "${SOURCES[@]}"; do
		IFS=: read -r src dev up <<<"$entry"
		mapfile -t avail < <(apt-cache "${APT_OPTS[@]}" showsrc "$src" |
			awk -v p="$src" '/^Package:/ { ok = ($2 == p) } ok && /^Version:/ { print $2 }')
		[ ${#avail[@]} -gt 0 ] || { echo "no source package $src in the deb-src lists"; exit 1; }
		# the version the native build uses, if the archive still has it
		want=$(dpkg-query -W -f='${db:Status-Abbrev} ${source:Version}\n' "$dev" 2>/dev/null |
			awk '$1 == "ii" { print $2 }') || true
		ver=""
		if [ -n "$want" ]; then
			for v in "${avail[@]}"; do [ "$v" = "$want" ] && ver=$v; done
		fi
		[ -n "$ver" ] || ver=$(newest "${avail[@]}")
		case $ver in
		"$up"-* | *:"$up"-*) ;;
		*) echo "WARNING: $src $ver is not upstream $up" ;;
		esac
		echo "$src $ver" >>"$BLD/versions.txt"
		if [ "$(cat "$SRC/$src/.fetched" 2>/dev/null)" = "$ver" ]; then
			continue
		fi
		rm -rf "${SRC:?}/$src"
		mkdir -p "$SRC/$src"
		(cd "$SRC/$src" && apt-get "${APT_OPTS[@]}" source -q "$src=$ver")
		echo "$ver" >"$SRC/$src/.fetched"
	done
}

srcdir() {
	local d
	for d in "$SRC/$1/$1"-*/; do
		[ -d "$d" ] && {
			echo "${d%/}"
			return 0
		}
	done
	echo "no unpacked source for $1" >&2
	return 1
}

# build_dir NAME: for the caller's `local s b`: s the unpacked source of
# NAME, b a fresh, empty $BLD/NAME (what a previous build left is removed),
# and the current directory.  One place, so every build starts clean.
build_dir() {
	s=$(srcdir "$1")
	b=$BLD/$1
	rm -rf "$b"
	mkdir -p "$b"
	cd "$b"
}

# pc NAME VERSION DESCRIPTION LIBS [CFLAGS]: a relocatable .pc file
pc() {
	cat >"$DEPS/lib/pkgconfig/$1.pc" <<EOF
prefix=\${pcfiledir}/../..
libdir=\${prefix}/lib
includedir=\${prefix}/include

Name: $1
Description: $3 (static, $TARGET)
Version: $2
Libs: -L\${libdir} $4
Cflags: -I\${includedir}${5:+ $5}
EOF
}

# libmicrohttpd, both builds: static, no HTTPS (so no GnuTLS), no docs,
# examples or translations.  mhd_configure ARG...: configure, in the
# caller's build_dir, with these options and the build's own ARGs;
# mhd_install LIBS [CFLAGS]: make, then the header, the archive and the
# .pc into $DEPS.
mhd_configure() {
	"$s/configure" --prefix="$b/inst" \
		--enable-static --disable-shared --disable-https --without-gnutls \
		--disable-doc --disable-examples --disable-curl --disable-nls \
		--disable-dependency-tracking "$@"
}
mhd_install() {
	make -j"$JOBS"
	make install
	cp inst/include/microhttpd.h "$DEPS/include/"
	cp inst/lib/libmicrohttpd.a "$DEPS/lib/"
	pc libmicrohttpd 0.9.75 "A library for creating an embedded HTTP server" "$@"
}

# win64: W32 threads.  Its configure (0.9.75) rejects --with-threads=w32 by
# mistake (W32 threads are only probed for "auto"); auto picks w32 on
# MinGW, checked below.
build_mhd_win64() {
	local s b
	build_dir libmicrohttpd
	mhd_configure --host=$HOST --with-threads=auto CFLAGS="-O2"
	grep -q '^#define MHD_USE_W32_THREADS 1' MHD_config.h
	mhd_install "-lmicrohttpd -lws2_32" "-DMHD_W32LIB"
}

# native: position-independent, as memwatchd and the ASan tests are PIE.
# HTTPS goes through Debian's libmicrohttpd.so.12, loaded only when asked.
build_mhd_native() {
	local s b
	build_dir libmicrohttpd
	mhd_configure --with-pic CFLAGS="-O2 -fPIC"
	mhd_install "-lmicrohttpd -pthread"
}

# cJSON: cJSON.c alone.  CJSON_HIDE_SYMBOLS: no __declspec(dllexport) (the
# header's Windows default), for the library and its users alike.
build_cjson() {
	local s b
	build_dir cjson
	mkdir -p "$DEPS/include/cjson"
	$HOST-gcc -O2 -std=c89 -DCJSON_HIDE_SYMBOLS -c "$s/cJSON.c" -o cJSON.o
	$HOST-ar rcs libcjson.a cJSON.o
	cp libcjson.a "$DEPS/lib/"
	# <cjson/cJSON.h> as Debian installs it; <cJSON.h> as its .pc allows
	cp "$s/cJSON.h" "$DEPS/include/cjson/"
	cp "$s/cJSON.h" "$DEPS/include/"
	pc libcjson 1.7.15 "Ultralightweight JSON parser in ANSI C" "-lcjson" \
		"-I\${includedir}/cjson -DCJSON_HIDE_SYMBOLS"
}

# SQLite: Debian ships the full source tree, so the amalgamation is made
# natively first (configure, lemon, tclsh), then sqlite3.c is compiled for
# the build: build_sqlite CC AR LIBS FLAGS...
build_sqlite() {
	local s b cc=$1 ar=$2 libs=$3
	shift 3
	build_dir sqlite3
	"$s/configure" CC=gcc --disable-tcl --disable-readline --disable-shared
	make -j"$JOBS" sqlite3.c sqlite3.h sqlite3ext.h
	"$cc" "$@" -c sqlite3.c -o sqlite3.o
	"$ar" rcs libsqlite3.a sqlite3.o
	cp libsqlite3.a "$DEPS/lib/"
	cp sqlite3.h sqlite3ext.h "$DEPS/include/"
	pc sqlite3 3.40.1 "SQL database engine" "$libs"
}

build_sqlite_win64() {
	# shellcheck disable=SC2086
	build_sqlite $HOST-gcc $HOST-ar "-lsqlite3" -O2 $SQLITE_DEFS
}

build_sqlite_native() {
	# shellcheck disable=SC2086
	build_sqlite gcc ar "-lsqlite3 -lm -pthread" $NATIVE_SQLITE_FLAGS
}

# cmocka: CMake with a MinGW toolchain file, only the static target.
build_cmocka() {
	local s b=$BLD/cmocka tc=$BLD/mingw-w64-x86_64.cmake
	s=$(srcdir cmocka)
	cat >"$tc" <<EOF
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(CMAKE_C_COMPILER $HOST-gcc)
set(CMAKE_RC_COMPILER $HOST-windres)
set(CMAKE_FIND_ROOT_PATH /usr/$HOST)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
EOF
	rm -rf "$b"
	cmake -S "$s" -B "$b" -DCMAKE_TOOLCHAIN_FILE="$tc" -DCMAKE_BUILD_TYPE=Release \
		-DWITH_STATIC_LIB=ON -DWITH_EXAMPLES=OFF -DUNIT_TESTING=OFF
	cmake --build "$b" --target cmocka-static -j "$JOBS"
	cp "$b/src/libcmocka-static.a" "$DEPS/lib/libcmocka.a"
	cp "$s/include/cmocka.h" "$s/include/cmocka_pbc.h" "$DEPS/include/"
	pc cmocka 1.1.5 "The cmocka unit testing library" "-lcmocka"
}

# A static link of all four must work and need no DLL beyond Windows' own.
smoke_test_win64() {
	local b=$BLD/smoke dlls
	rm -rf "$b"
	mkdir -p "$b"
	cat >"$b/t.c" <<'EOF'
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <microhttpd.h>
#include <cjson/cJSON.h>
#include <sqlite3.h>
static void t(void **state) { (void)state; assert_true(1); }
int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(t) };
	struct MHD_Daemon *d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, 0,
		NULL, NULL, NULL, NULL, MHD_OPTION_END);
	sqlite3 *db = NULL;
	cJSON_Delete(cJSON_Parse("{}"));
	sqlite3_open(":memory:", &db);
	sqlite3_close(db);
	if (d) MHD_stop_daemon(d);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
EOF
	# shellcheck disable=SC2046
	$HOST-gcc -static $(cat "$DEPS/cflags.txt") -I"$DEPS/include" "$b/t.c" -o "$b/t.exe" \
		-L"$DEPS/lib" $(cat "$DEPS/libs.txt") -lpthread
	dlls=$($HOST-objdump -p "$b/t.exe" | awk '/DLL Name:/ { print $3 }')
	echo "$dlls"
	! grep -qiE '^lib|pthread|gcc|stdc' <<<"$dlls"
}

# native: a program linking the archives starts and stops a daemon, says it
# has no TLS, needs no GnuTLS (what this build is for), opens a database
# with the SQLite it links, and needs no libsqlite3.so.
smoke_test_native() {
	local b=$BLD/smoke
	rm -rf "$b"
	mkdir -p "$b"
	cat >"$b/t.c" <<'EOF'
#include <stddef.h>
#include <microhttpd.h>
#include <sqlite3.h>
static enum MHD_Result h(void *cls, struct MHD_Connection *c, const char *url,
	const char *method, const char *version, const char *data, size_t *size,
	void **ctx)
{
	(void)cls; (void)c; (void)url; (void)method; (void)version; (void)data;
	(void)size; (void)ctx;
	return MHD_NO;
}
int main(void)
{
	struct MHD_Daemon *d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, 0,
		NULL, NULL, h, NULL, MHD_OPTION_END);
	sqlite3 *db = NULL;
	if (!d)
		return 1;
	MHD_stop_daemon(d);
	if (sqlite3_open(":memory:", &db) != SQLITE_OK ||
	    sqlite3_exec(db, "SELECT 1", NULL, NULL, NULL) != SQLITE_OK)
		return 3;
	sqlite3_close(db);
	return MHD_is_feature_supported(MHD_FEATURE_TLS) == MHD_NO ? 0 : 2;
}
EOF
	# shellcheck disable=SC2046
	gcc -O2 "$b/t.c" -o "$b/t" $(PKG_CONFIG_PATH="$DEPS/lib/pkgconfig" pkg-config \
		--cflags --libs libmicrohttpd sqlite3)
	"$b/t"
	readelf -d "$b/t" | grep NEEDED
	! readelf -d "$b/t" | grep -q 'NEEDED.*gnutls'
	! readelf -d "$b/t" | grep -q 'NEEDED.*libsqlite3'
}

native_libs() {
	use_build native
	stamp_ok && return 0
	say "building libmicrohttpd without HTTPS, and SQLite, from Debian sources (logs: ${BLD#"$ROOT"/}/*.log)"
	start_build
	run_step fetch-sources fetch_sources
	grep WARNING "$BLD/fetch-sources.log" >&2 || true
	start_step sqlite3 build_sqlite_native # one big file: beside libmicrohttpd
	run_step libmicrohttpd build_mhd_native
	finish_step sqlite3
	run_step smoke-test smoke_test_native
	finish_build "native libmicrohttpd and SQLite"
}

win64_libs() {
	use_build win64
	stamp_ok && return 0
	say "building the win64 libraries from Debian sources (logs: ${BLD#"$ROOT"/}/*.log)"
	start_build
	# where this script kept sources and apt's lists before build/deps
	rm -rf "$BLD/src" "$ROOT/build/win64/apt"
	run_step fetch-sources fetch_sources
	grep WARNING "$BLD/fetch-sources.log" >&2 || true
	start_step sqlite3 build_sqlite_win64 # the long one (one big file): in parallel
	run_step libmicrohttpd build_mhd_win64
	run_step cjson build_cjson
	run_step cmocka build_cmocka
	finish_step sqlite3

	echo "$DEP_CFLAGS" >"$DEPS/cflags.txt"
	echo "$DEP_LIBS" >"$DEPS/libs.txt"
	run_step smoke-test smoke_test_win64
	finish_build "win64 libraries"
}

[ "$what" = win64 ] || native_libs
[ "$what" = native ] || win64_libs
