<?php
// lk_php (argument "leak") / ok_php (the allocators set): a PHP CLI
// service over the Zend memory manager (2 MiB chunks).  Ten times a
// second it builds 300 request arrays that die at once and replaces 50
// entries of a 20,000-entry cache of 200-800-byte strings; the leak also
// keeps a session array per request, about RATE bytes an hour (bytes per
// session from memory_get_usage() over the first 2,000 sessions, which
// the leak keeps: freed, they would leave Zend memory the leak reuses
// for its first hour).
// Usage: php phpsvc.php ok|leak NAME RATE.  Logs "elapsed_ms
// leaked_bytes" once a minute to $CORPUS_LOG/NAME.log.
$leak = ($argv[1] ?? '') === 'leak';
$name = $argv[2] ?? 'php';
$rate = (float)($argv[3] ?? 0);
$log = getenv('CORPUS_LOG') ? fopen(getenv('CORPUS_LOG') . "/$name.log", 'w') : null;
function session($i) { return ['id' => $i, 'user' => sprintf('user-%08d', $i), 'seen' => microtime(true), 'roles' => ['r' . ($i % 13)]]; }
$a = memory_get_usage();
$sessions = [];
for ($i = 0; $i < 2000; $i++) $sessions[] = session($i);
$per = max((memory_get_usage() - $a) / 2000, 100);
if (!$leak) $sessions = [];
$cache = [];
for ($i = 0; $i < 20000; $i++) $cache[] = str_repeat('v', 200 + $i % 600);
$owed = 0.0; $n = 0;
$t0 = microtime(true); $last = $t0; $next = 0;
while (true) {
    $now = microtime(true);
    for ($k = 0; $k < 300; $k++) { $req = ['path' => "/item/$k", 'method' => 'GET', 'hdr' => ['a', 'b', $now]]; }
    for ($k = 0; $k < 50; $k++) $cache[mt_rand(0, 19999)] = str_repeat('v', 200 + mt_rand(0, 599));
    if ($leak) {
        $owed += $rate * ($now - $last) / 3600;
        while ($owed >= $per) { $sessions[] = session($n++); $owed -= $per; }
    }
    $last = $now;
    $e = $now - $t0;
    if ($log && $e >= $next) { fprintf($log, "%d %d\n", $e * 1000, $n * $per); fflush($log); $next += 60; }
    usleep(100000);
}
