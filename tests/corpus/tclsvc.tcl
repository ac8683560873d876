# Tcl 8.6 services for the langs set (session 29): Debian's threaded Tcl,
# whose allocator keeps per-thread caches of small blocks over malloc.
# Every 100 ms a "request" builds a list of 2,000 strings that dies at
# once, and replaces 100 random entries of a 5,000-entry array of 200-800
# character strings.  lk_tcl (argv "leak") also keeps a session string in
# a dict forever at a design rate of 2 MiB/h: its bytes are the strings'
# lengths plus 100 per entry (Tcl_Obj, the dict's entry and the
# allocator's header, roughly), logged once a minute to
# $CORPUS_LOG/<name>.log as "elapsed_ms leaked_bytes".
set leak [expr {[lindex $argv 0] eq "leak"}]
set name [file tail [info nameofexecutable]]
set log ""
if {[info exists env(CORPUS_LOG)]} {
    set log [open [file join $env(CORPUS_LOG) $name.log] w]
}
expr {srand(7)}
proc text {lo span} {
    return [string repeat x [expr {$lo + int(rand() * $span)}]]
}
for {set i 0} {$i < 5000} {incr i} {
    set cache($i) [text 200 601]
}
set rate [expr {2.0 * 1048576 / 3600}]
set sessions [dict create]
set owed 0.0
set leaked 0
set n 0
set t0 [clock milliseconds]
set last $t0
set next_log 0

proc tick {} {
    global leak cache rate sessions owed leaked n t0 last next_log log
    set now [clock milliseconds]
    set req {}
    for {set k 0} {$k < 2000} {incr k} {
        lappend req "/item/$k/[expr {int(rand() * 1e9)}]"
    }
    for {set k 0} {$k < 100} {incr k} {
        set cache([expr {int(rand() * 5000)}]) [text 200 601]
    }
    if {$leak} {
        set owed [expr {$owed + $rate * ($now - $last) / 1000.0}]
        while {$owed >= 200} {
            set s "session-$n-[string repeat s [expr {40 + $n % 60}]]"
            dict set sessions $n $s
            set cost [expr {[string length $s] + 100}]
            incr leaked $cost
            set owed [expr {$owed - $cost}]
            incr n
        }
    }
    set last $now
    set e [expr {$now - $t0}]
    if {$log ne "" && $e >= $next_log} {
        puts $log "$e $leaked"
        flush $log
        incr next_log 60000
    }
    after 100 tick
}
after 0 tick
vwait forever
