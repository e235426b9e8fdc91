# Counts how often each regular file under DIR is opened, by anyone (every directory of it watched
# with inotify's IN_OPEN: a node's processes open the same inodes as this machine's). Prints "ready"
# once it watches; when its standard input closes, one line per file opened: COUNT<TAB>PATH (relative
# to DIR). A reader that opens a file (tar, rsync, sha256sum) reads all of it: the opens say how many
# times the data set's bytes were read.
use strict;
use warnings;
use File::Find;
require 'sys/syscall.ph';
my $IN_OPEN = 0x20;
# closes are watched too: inotify merges an event with the one just before when they are the same,
# so two opens in a row would count once; open, close, open is three events.
my $IN_CLOSE = 0x08 | 0x10;
my $IN_ISDIR = 0x40000000;
my ($dir) = @ARGV;
my $fd = syscall(&SYS_inotify_init1, 0);
die "inotify_init1: $!\n" if $fd < 0;
open(my $events, '<&=', $fd) or die "inotify fd: $!\n";
my %dirs;
find({ no_chdir => 1, wanted => sub {
    return unless -d $_;
    my $path = $_;
    my $wd = syscall(&SYS_inotify_add_watch, $fd, $path, $IN_OPEN | $IN_CLOSE);
    die "inotify_add_watch $path: $!\n" if $wd < 0;
    $dirs{$wd} = $path eq $dir ? '' : substr($path, length($dir) + 1) . '/';
} }, $dir);
$| = 1;
print "ready\n";
my %opens;
sub drain {
    my $buf = '';
    my $n = sysread($events, $buf, 65536);
    return unless $n;
    my $at = 0;
    while ($at + 16 <= length $buf) {
        my ($wd, $mask, $cookie, $len) = unpack('iIII', substr($buf, $at, 16));
        my $name = unpack('Z*', substr($buf, $at + 16, $len));
        $at += 16 + $len;
        next if $mask & $IN_ISDIR or !($mask & $IN_OPEN) or $name eq '';
        $opens{$dirs{$wd} . $name}++;
    }
}
my $stdin_open = 1;
while (1) {
    my $rin = '';
    vec($rin, $fd, 1) = 1;
    vec($rin, fileno(STDIN), 1) = 1 if $stdin_open;
    my $ready = select(my $rout = $rin, undef, undef, $stdin_open ? undef : 0.5);
    last if !$stdin_open && $ready == 0;
    drain() if vec($rout, $fd, 1);
    if ($stdin_open && vec($rout, fileno(STDIN), 1)) {
        my $got = sysread(STDIN, my $ignored, 4096);
        $stdin_open = 0 if !$got;
    }
}
print "$opens{$_}\t$_\n" for sort keys %opens;
