#!/bin/sh
# check-layers.sh - the house rule, checked from the code's own includes:
# each folder includes only its own headers and those of the layers below it
# (README.md, "The layout").  Prints every include that goes up or sideways
# and exits 1 if there is one.
cd "$(dirname "$0")/.." || exit 2
allowed() {
	case $1 in
	base) echo "base" ;;
	core) echo "base core" ;;
	collectors) echo "base core collectors" ;;
	storage) echo "base core storage" ;;
	analysis) echo "base core storage analysis" ;;
	forward) echo "base core storage forward" ;;
	import) echo "base core storage import" ;;
	web) echo "base core storage analysis web" ;;
	app) echo "base core collectors storage analysis forward import web app" ;;
	esac
}
bad=0
for dir in base core collectors storage analysis forward import web app; do
	ok=$(allowed $dir)
	for f in "$dir"/*.c "$dir"/*.h; do
		[ -e "$f" ] || continue
		for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([a-z_]*\)\/[^"]*".*/\1/p' "$f"); do
			case " $ok " in
			*" $inc "*) ;;
			*) echo "$f includes $inc/ (a $dir file may include only: $ok)"; bad=1 ;;
			esac
		done
	done
done
exit $bad
