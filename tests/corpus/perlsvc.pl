# lk_perl (argument "leak") / ok_perl: a Perl service's heap (perl's own
# SVs over glibc malloc).  Ten times a second it parses 200 "requests" into
# hashes that die at once, and replaces 50 entries of a 20,000-entry cache
# of strings of 200-800 bytes; the leak also keeps a session hash per
# request forever, about 8 MiB/h of memory (the bytes per session measured
# from /proc/self/statm over 20,000 sessions at start), logged once a minute
# to $CORPUS_LOG/<name>.log as "elapsed_ms leaked_bytes".
use strict;
use warnings;
use Time::HiRes qw(time sleep);
use File::Basename qw(basename);

my $leak = @ARGV && $ARGV[0] eq 'leak';
my $name = basename($^X);
my $log;
if ($ENV{CORPUS_LOG}) {
    open($log, '>', "$ENV{CORPUS_LOG}/$name.log") or die "log: $!";
    $log->autoflush(1);
}
sub rss { open(my $f, '<', '/proc/self/statm') or return 0; my @s = split ' ', <$f>; return $s[1] * 4096 }
sub session { my $i = shift; return { id => $i, user => sprintf('user-%08d', $i), seen => time, roles => ['r' . ($i % 13)] } }
my $a = rss();
my @probe = map { session($_) } 1 .. 20000;
my $per = (rss() - $a) / 20000;
$per = 100 if $per < 100;
@probe = ();
my $rate = 8 * 1024 * 1024 / 3600;
my @cache = map { 'v' x (200 + $_ % 600) } 0 .. 19999;
my (@sessions, $owed, $n);
$owed = 0; $n = 0;
my $t0 = time; my $last = $t0; my $next = 0;
while (1) {
    my $now = time;
    for my $k (1 .. 200) {
        my %req = (path => "/item/$k", method => 'GET', hdr => [ 'a', 'b', $now ]);
    }
    $cache[ int(rand(20000)) ] = 'v' x (200 + int(rand(600))) for 1 .. 50;
    if ($leak) {
        $owed += $rate * ($now - $last);
        while ($owed >= $per) { push @sessions, session($n++); $owed -= $per }
    }
    $last = $now;
    my $e = $now - $t0;
    if ($log && $e >= $next) { printf $log "%d %d\n", $e * 1000, $n * $per; $next += 60 }
    sleep(0.1);
}
