#!/usr/bin/env bash
# heap_linux.sh - the heap bar on Linux: `memwatchd once --watch PID` of
# tests/helpers/heaphog_linux before and after each of its steps shows the
# right kind of memwatch_heap_breakdown_bytes growing (heap for the brk
# heap and a thread's malloc arena, stack_committed/stack_reserved for
# threads with guards, mapped for a mapped file, image/static_data for a
# dlopen()ed library), by what the helper's own /proc/PID/smaps says to
# within a page; the committed kinds add up to smaps' Size over the
# mappings that are not PROT_NONE and to vmmap's committed bytes (one
# shared read).  Needs build/native/memwatchd and
# build/native/helpers/heaphog_linux.
set -u
cd "$(dirname "$0")/../.."
. tests/lib/tap.sh
helper_test heaphog_linux

# snap NAME: once --watch the helper; JSON to $out/NAME.json, its smaps to
# $out/NAME.smaps, both summed up in $out/NAME.sum as "key bytes" lines:
# kind.K (the bar), vm.committed, mode, and from smaps: sm.total (Size of
# the mappings not PROT_NONE, below the kernel's half), sm.heap ([heap]),
# sm.arena (64 MiB-aligned anonymous rw-p), sm.guards (anonymous ---p right
# below anonymous rw-p, at most 1 MiB), sm.file (heaphog.dat), sm.libz
# (libz's mappings not PROT_NONE and an anonymous rw-p right after them).
snap() {
	once_snap "$1" || return 1
	python3 - "$out/$1.json" "$hpid" "$out/$1.smaps" >"$out/$1.sum" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
pid = sys.argv[2]
col = {c["name"]: c for c in d["collectors"]}
heap, vm = col["heap"], col["vmmap"]
assert heap["supported"] is True and heap["error"] is None, heap
print("mode %s" % heap["mode"].replace(" ", "_"))
vmc = 0
for s in heap["samples"]:
    if s["labels"].get("pid") == pid and s["name"] == "memwatch_heap_breakdown_bytes":
        print("kind.%s %d" % (s["labels"]["kind"], s["value"]))
    if s["labels"].get("pid") == pid and s["name"] == "memwatch_heap_bytes":
        print("per_heap 1")
for s in vm["samples"]:
    if s["labels"].get("pid") == pid and s["name"] == "memwatch_vm_bytes" and s["labels"]["state"] == "committed":
        vmc += s["value"]
print("vm.committed %d" % vmc)
maps = []
for line in open(sys.argv[3]):
    m = re.match(r"^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$", line)
    if m:
        maps.append((int(m.group(1), 16), int(m.group(2), 16), m.group(3), m.group(4).strip()))
tot = heapb = arena = guards = f = libz = 0
for i, (lo, hi, perms, path) in enumerate(maps):
    if lo >= 0xffff800000000000:
        continue
    if not perms.startswith("---"):
        tot += hi - lo
    if path == "[heap]":
        heapb += hi - lo
    if path == "" and perms == "rw-p" and lo % (64 << 20) == 0:
        nxt = maps[i + 1] if i + 1 < len(maps) else None
        if hi - lo == 64 << 20 or (nxt and nxt[0] == hi and nxt[2] == "---p" and nxt[3] == "" and nxt[1] - lo == 64 << 20):
            arena += hi - lo
    if path == "" and perms == "---p" and hi - lo <= 1 << 20 and i + 1 < len(maps):
        n = maps[i + 1]
        if n[0] == hi and n[3] == "" and n[2] == "rw-p" and n[0] % (64 << 20):
            guards += hi - lo
    if path.endswith("/heaphog.dat"):
        f += hi - lo
    if "libz.so" in path and not perms.startswith("---"):
        libz += hi - lo
        n = maps[i + 1] if i + 1 < len(maps) else None
        if perms == "rw-p" and n and n[0] == hi and n[3] == "" and n[2] == "rw-p":
            libz += n[1] - n[0]
for k, v in (("total", tot), ("heap", heapb), ("arena", arena), ("guards", guards), ("file", f), ("libz", libz)):
    print("sm.%s %d" % (k, v))
PY
}
d() { echo $(( $(val "$2" "$3") - $(val "$1" "$3") )); }
# near A B: |A - B| <= one page
near() { local x=$(( $1 - $2 )); [ ${x#-} -le 4096 ]; }
# agrees NAME: the committed kinds = smaps' total = vmmap's committed
agrees() {
	local s=0 k
	for k in heap stack_committed image static_data private_other mapped; do
		s=$((s + $(val "$1" "kind.$k")))
	done
	echo "# $1: bar $s, smaps $(val "$1" sm.total), vmmap $(val "$1" vm.committed)"
	[ "$s" -eq "$(val "$1" sm.total)" ] && [ "$s" -eq "$(val "$1" vm.committed)" ]
}

snap s0
check "once --watch PID: a heap bar for the helper" "[ -n \"\$(val s0 kind.image)\" ] && [ \"\$(val s0 kind.image)\" -gt 0 ]"
check "mode: heap bar from /proc/PID/smaps; per-heap figures: Windows only" \
	"grep -q '^mode 1_of_1_read,_[0-9.]*_ms;_heap_bar_from_/proc/PID/smaps;_per-heap_figures:_Windows_only' '$out/s0.sum'"
check "kind heap, no heap_used/heap_free, no per-heap series" \
	"[ -n \"\$(val s0 kind.heap)\" ] && [ -z \"\$(val s0 kind.heap_used)\" ] && [ -z \"\$(val s0 kind.heap_free)\" ] && [ -z \"\$(val s0 per_heap)\" ]"
check "s0: the committed kinds add up to smaps' Size (not PROT_NONE) and vmmap's committed" "agrees s0"

for st in brk arena threads mmap dlopen; do
	helper_next_step "$st"
	snap "$cur"
	case $st in
	brk)
		echo "# heap +$(d $prev $cur kind.heap), [heap] +$(d $prev $cur sm.heap)"
		check "brk: heap grew by 16 MiB of blocks, as [heap] did (to a page)" \
			"[ $(d $prev $cur kind.heap) -ge $((4096 * 4000)) ] && near $(d $prev $cur kind.heap) $(( $(d $prev $cur sm.heap) + $(d $prev $cur sm.arena) ))" ;;
	arena)
		echo "# heap +$(d $prev $cur kind.heap), arenas +$(d $prev $cur sm.arena)"
		check "arena: heap grew by the thread's 16 MiB arena (to a page of smaps' arena)" \
			"[ $(d $prev $cur sm.arena) -ge $((4096 * 4000)) ] && near $(d $prev $cur kind.heap) $(( $(d $prev $cur sm.heap) + $(d $prev $cur sm.arena) ))" ;;
	threads)
		echo "# stack_committed +$(d $prev $cur kind.stack_committed), stack_reserved +$(d $prev $cur kind.stack_reserved), guards +$(d $prev $cur sm.guards)"
		check "threads: stack_committed grew by 4 x (1 MiB - guard)" \
			"[ $(d $prev $cur kind.stack_committed) -ge $((4 * ((1 << 20) - 4096))) ] && [ $(d $prev $cur kind.stack_committed) -le $((4 * (1 << 20) + 4096)) ]"
		check "threads: stack_reserved grew by the 4 guard pages, as smaps' guards did" \
			"[ $(d $prev $cur kind.stack_reserved) -eq $((4 * 4096)) ] && [ $(d $prev $cur sm.guards) -eq $((4 * 4096)) ]" ;;
	mmap)
		echo "# mapped +$(d $prev $cur kind.mapped), heaphog.dat $(val $cur sm.file)"
		check "mmap: mapped grew by the 8 MiB file (to a page of its smaps Size)" \
			"[ $(val $cur sm.file) -eq $((8 << 20)) ] && near $(d $prev $cur kind.mapped) $(val $cur sm.file)" ;;
	dlopen)
		img=$(( $(d $prev $cur kind.image) + $(d $prev $cur kind.static_data) ))
		echo "# image +$(d $prev $cur kind.image), static_data +$(d $prev $cur kind.static_data), libz $(val $cur sm.libz)"
		check "dlopen: image and static_data grew by libz.so.1's mappings (to a page)" \
			"[ $(val $cur sm.libz) -gt 0 ] && [ $(d $prev $cur kind.image) -gt 0 ] && [ $(d $prev $cur kind.static_data) -gt 0 ] && near $img $(val $cur sm.libz)" ;;
	esac
	check "$cur: the committed kinds add up to smaps' Size and vmmap's committed" "agrees $cur"
done

helper_quits_and_gone heap "gone pid: no error, no heap samples"
finish
