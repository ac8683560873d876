#!/usr/bin/env bash
# build-deb.sh BINARY VERSION - the Debian package of memwatch, what `make
# deb` runs after building BINARY (build/deb/memwatchd, hardened flags).
#
# A native package built with dpkg-deb from a tree staged in
# build/deb/root (no debian/ source tree, no dpkg-buildpackage: the binary
# is already built by the Makefile, so this takes a second or two):
#   /usr/bin/memwatchd                       BINARY, stripped
#   /lib/systemd/system/memwatch.service     packaging/debian/memwatch.service
#   /etc/memwatch/memwatch.conf              conffile: `memwatchd config` with
#                                            every option commented out but
#                                            db = /var/lib/memwatch/memwatch.db
#   /usr/share/doc/memwatch/                 copyright, changelog.gz, README.md.gz
#   /usr/share/man/man1/memwatchd.1.gz
#   DEBIAN/ control (Depends from dpkg-shlibdeps), conffiles, md5sums,
#           postinst, prerm, postrm
# Prints the .deb's path: build/deb/memwatch_VERSION_ARCH.deb.
# tests/e2e/deb.sh checks the result (lintian, dpkg -i/-r/-P, the unit).
set -euo pipefail

bin=${1:?usage: scripts/build-deb.sh BINARY VERSION}
version=${2:?usage: scripts/build-deb.sh BINARY VERSION}
cd "$(dirname "$0")/.."
src=packaging/debian
out=build/deb
root=$out/root
die() {
	echo "build-deb: error: $*" >&2
	exit 1
}

# The version is the Makefile's VERSION, which the binary reports and the
# changelog's top entry must name (a release adds its entry first).
got=$("$bin" --version)
[ "$got" = "memwatchd $version" ] || die "$bin --version says '$got', want 'memwatchd $version'"
top=$(dpkg-parsechangelog -l "$src/changelog" -S Version)
[ "$top" = "$version" ] ||
	die "$src/changelog's top entry is $top, the Makefile's VERSION $version: add an entry"
arch=$(dpkg --print-architecture)
deb=$out/memwatch_${version}_${arch}.deb

rm -rf "$root"
umask 022
install -d "$root/DEBIAN" "$root/usr/bin" "$root/lib/systemd/system" "$root/etc/memwatch" \
	"$root/usr/share/doc/memwatch" "$root/usr/share/man/man1"

install -m 0755 "$bin" "$root/usr/bin/memwatchd"
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$root/usr/bin/memwatchd"
install -m 0644 "$src/memwatch.service" "$root/lib/systemd/system/memwatch.service"

# The conffile: the reference config (every option with its default), each
# key commented out, so that an upgrade with new defaults never conflicts
# with a file the admin did not edit; only the database is set, to the
# service's state directory.
conf=$root/etc/memwatch/memwatch.conf
{
	cat <<'EOF'
# /etc/memwatch/memwatch.conf - settings of memwatch.service (memwatchd run
# --config /etc/memwatch/memwatch.conf).  Every option is shown with its
# default, commented out: uncomment and change what you need, then
# `systemctl restart memwatch`.  `memwatchd config --config
# /etc/memwatch/memwatch.conf` prints the settings in effect.
# Durations: 100ms, 1s, 5m, 2h, 7d.  Sizes: 512KB, 512MB, 2GB (powers of 1024).
# Lines starting with # or ; are comments; there are no trailing comments.
EOF
	"$bin" config | awk '
		NR == 1, /^$/ { if (/^$/) print; next }	# the reference header: ours instead
		/^db = / { print "db = /var/lib/memwatch/memwatch.db"; next }
		/^[a-z_0-9]+ =( |$)/ { print "# " $0; next }
		{ print }'
} >"$conf"
chmod 0644 "$conf"
# It must say exactly the defaults (but db): read back through memwatchd.
diff <("$bin" config | sed 's|^db = .*|db = /var/lib/memwatch/memwatch.db|') \
	<("$bin" config --config "$conf") >/dev/null ||
	die "the conffile does not give the reference settings: diff <($bin config) <($bin config --config $conf)"

doc=$root/usr/share/doc/memwatch
{
	cat "$src/copyright.in"
	lic=build/npm/node_modules/uplot/LICENSE
	[ -f "$lic" ] || die "$lic missing (uPlot, embedded in the chart page; scripts/npm-assets.sh)"
	printf '\nFiles: build/npm/node_modules/uplot/*\n'
	printf 'Comment: uPlot, embedded in memwatchd as the chart page'"'"'s plotting library.\n'
	sed -n 's/^Copyright /Copyright: /p' "$lic" | head -1 | sed 's/(c) //'
	printf 'License: Expat\n'
	sed -e 's/^[[:space:]]*$/./' -e 's/^/ /' "$lic"
} >"$doc/copyright"
gzip -9n <"$src/changelog" >"$doc/changelog.gz"
gzip -9n <README.md >"$doc/README.md.gz"
sed "s/@VERSION@/$version/" "$src/memwatchd.1" | gzip -9n >"$root/usr/share/man/man1/memwatchd.1.gz"
chmod 0644 "$doc"/* "$root/usr/share/man/man1/memwatchd.1.gz"

# Depends: the shared libraries memwatchd links, as dpkg-shlibdeps finds
# them (it wants a debian/control beside it).
shl=$out/shlibdeps
rm -rf "$shl"
mkdir -p "$shl/debian"
printf 'Source: memwatch\n\nPackage: memwatch\nArchitecture: any\n' >"$shl/debian/control"
depends=$(cd "$shl" && dpkg-shlibdeps -O -e "$OLDPWD/$root/usr/bin/memwatchd" 2>/dev/null |
	sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || die "dpkg-shlibdeps found no dependencies of $bin"
# libcurl is loaded when forwarding or `check --url` first needs it
# (forward/curl_lib_linux.c), so dpkg-shlibdeps cannot see it.
depends="$depends, libcurl4"
# libmicrohttpd is linked static and without HTTPS; Debian's, with
# GnuTLS, is loaded only for [web] tls_cert (web/mhd_api_linux.c): a
# Recommends in control.in, since most installs serve plain HTTP on
# loopback.

size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
sed -e "s/@VERSION@/$version/" -e "s/@ARCH@/$arch/" -e "s/@SIZE@/$size/" \
	-e "s/@DEPENDS@/$depends/" "$src/control.in" >"$root/DEBIAN/control"
echo /etc/memwatch/memwatch.conf >"$root/DEBIAN/conffiles"
for s in postinst prerm postrm; do
	install -m 0755 "$src/$s" "$root/DEBIAN/$s"
done
# (conffiles left out, as dh_md5sums does: dpkg keeps their sums itself)
(cd "$root" && find . \( -path ./DEBIAN -o -path ./etc \) -prune -o -type f -printf '%P\0' | LC_ALL=C sort -z |
	xargs -0 md5sum) >"$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/conffiles" "$root/DEBIAN/md5sums"

rm -f "$out"/memwatch_*.deb
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "$deb"
