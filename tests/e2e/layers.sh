#!/usr/bin/env bash
# layers.sh - the house rule holds (README.md, "## Layout"): every include
# goes down the layers (scripts/check-layers.sh), no two object files call
# each other in a circle, natively and in the MinGW build
# (scripts/check-calls.py), no portable product file has an #if of
# its own for Windows (only platform files and the compat layer's
# base/sockets.h), JSON has one writer (base/json_out): no product
# file builds or prints a cJSON tree (cJSON only parses), and web/ calls
# libmicrohttpd only through a server's table (web/mhd_api.h).
set -u
cd "$(dirname "$0")/../.."
. tests/lib/tap.sh

check "includes go down the layers" scripts/check-layers.sh
check "no call circles between native objects" python3 scripts/check-calls.py build/native/obj
if [ -d build/win64/obj ]; then
	check "no call circles between win64 objects" python3 scripts/check-calls.py build/win64/obj
else
	skip "no win64 build"
fi
ifs=$(grep -ln '_WIN32' base/*.[ch] core/*.[ch] collectors/*.[ch] storage/*.[ch] analysis/*.[ch] \
	forward/*.[ch] import/*.[ch] web/*.[ch] app/*.[ch] | grep -v '_win32\.c$' | grep -v '^base/sockets\.h$')
check "no #if _WIN32 in portable product files" "[ -z \"$ifs\" ]"
[ -n "$ifs" ] && echo "# $ifs"
trees=$(grep -nE 'cJSON_(Create|Add|Print|Replace|InsertItem|Duplicate|SetValuestring|SetNumber)' \
	base/*.[ch] core/*.[ch] collectors/*.[ch] storage/*.[ch] analysis/*.[ch] forward/*.[ch] \
	import/*.[ch] web/*.[ch] app/*.[ch])
ntrees=$(printf '%s' "$trees" | grep -c .)
check "one JSON writer: no cJSON tree built or printed in product files" "[ $ntrees -eq 0 ]"
[ -n "$trees" ] && echo "$trees" | sed 's/^/# /'
# An HTTPS server's connections and responses belong to the library it
# runs on (web/mhd_api.h): a direct MHD_ call would use the linked one.
direct=$(grep -nE '\<MHD_[a-z_]+ *\(' web/*.[ch] | grep -v '^web/mhd_api\.c:')
check "libmicrohttpd is called through the server's table only (web/mhd_api.h)" "[ -z \"$direct\" ]"
[ -n "$direct" ] && echo "$direct" | sed 's/^/# /'
finish
