# One node's part of a staging round: fetch what it lacks of the manifest's files, then verify every file against
# the set's manifest and record what it verified. The task wrote the listing of the source to
# .provision-stage/manifest: per file -, size, mode, mtime, path; no file's data was read to plan.
# $1 destination, $2 how it fetches: 'source' (reads a directory this node sees: shared storage, or
# its own disk), 'feed' (the controller's tar on standard input, over the connection provision
# holds, ending with its mark that it read every file whole: feed.sh), 'chain-source' (like source,
# the first link of a pipelined chain, below), 'chain' (a later link), 'peer' (rsync from another
# node over the cluster's SSH identity); $3 the source directory or USER@ADDRESS of the peer ('-'
# for a feed), $4 private key, $5 known-hosts file, $6 how many hashers run at once, $7 SSH connect
# timeout in seconds, $8 (chain) 'next' when a node follows.
#
# The manifest. A node that reads the source (source, chain-source, feed) makes it: a file its record
# vouches for (same path, size, mode and mtime, held so) keeps the recorded hash and is not read; it
# reads every other file from the source, even one it holds (a held copy is replaced only when its
# bytes differ from what it read: not received), and hashes what landed. Its read counts only when it
# is whole and as planned: tar read every file unchanged (exit 0; the controller's mark for a feed),
# every file as read has the listing's size, mode and mtime, and a local source still has them after
# the read. Then it records the manifest and sends it down the chain, after the data, as a last tar
# member (.provision-stage/source-manifest). A chain node takes the manifest from that member, a peer
# from its donor's record; either must list the very files of the listing with their size, mode and
# mtime. Every file is then verified against it: SHA-256, size, mode, mtime.
#
# Nothing partial under a final name: files land under .provision-stage/tmp (the same filesystem), are
# synced, then linked into place (a file cut short is dropped first); rsync writes each to a temp name,
# fsyncs and renames it. Prints got<TAB>PATH per file received; then verified<TAB>FILES<TAB>BYTES<TAB>ROOT
# (exit 0); or rsync<TAB>EXIT, ssh<TAB>EXIT, read<TAB>WHY, changed<TAB>PATH (exit 4: nothing verified);
# or missing<TAB>PATH, bad<TAB>PATH, manifest<TAB>WHY (exit 5; a bad file is removed, the next round
# fetches it).
#
# A chain: every node of it starts at once; the first reads the set as one tar stream, each passes
# the stream on to the next as it arrives (tee into a FIFO that the next node's ssh reads) and unpacks
# the files it lacks. The source is read once and each node's link carries the set once, whatever the
# number of nodes. A node that lost its predecessor ends short (exit 5) and fetches the rest in the
# next round, from a node that holds the set; a node whose successor is lost goes on (tee -p).
set -eu
export LC_ALL=C
dest=$1 mode=$2 from=$3 key=$4 known=$5 jobs=$6 timeout=$7 next=${8:-none}
stage=$dest/.provision-stage
listing=$stage/manifest
[ -f "$listing" ] || { echo "no manifest at $listing" >&2; exit 3; }
case $mode in source|chain-source|feed) reader=yes ;; *) reader=no ;; esac
cut -f5 "$listing" > "$stage/files"
rm -rf "$stage/tmp" "$stage/received" "$stage/batches" "$stage/rsync.out" "$stage/source-manifest" "$stage/send" "$stage/expect" "$stage/bad" "$stage/missing" \
    "$stage/changed" "$stage/chunks" "$stage/spool" "$stage/streamed" "$stage/streamed.ok" "$stage/landed" "$stage/tar.rc"
mkdir "$stage/tmp"
touch "$stage/verified"
# A peer that stops answering is given up within 3 × 5 s (a hung node must not stall the nodes after it).
ssh_options="-o BatchMode=yes -o StrictHostKeyChecking=yes -o UserKnownHostsFile=$known -o ConnectTimeout=$timeout -o ServerAliveInterval=5 -o ServerAliveCountMax=3"
# OpenSSH's own ciphers, AES-GCM first where this CPU has AES instructions: it costs the two ends about
# a third less CPU than chacha20-poly1305 per byte (the same order as the controller's large uploads).
if grep -qw aes /proc/cpuinfo 2>/dev/null; then
    ssh_options="$ssh_options -o Ciphers=aes128-gcm@openssh.com,aes256-gcm@openssh.com,chacha20-poly1305@openssh.com,aes128-ctr,aes192-ctr,aes256-ctr"
fi
# What this node's ssh runs on its donor: the donor's FIFO, streamed here. Should this node be cut off
# (its link down: no reset), the donor's write would stall for as long as TCP retries (~15 min), and
# with it the donor's tee -p and the chain above it; so a write that has not moved for 30 s while cat
# holds bytes it read (/proc/PID/io: rchar ahead of wchar) ends it there, and the donor goes on.
serve="touch $stage/next.open && { cat $stage/next & c=\$!; ( n=0 w=; while sleep 5 && kill -0 \$c 2>/dev/null; do"
serve="$serve set -- \$(awk '/^rchar/ {r = \$2} /^wchar/ {w = \$2} END {print r + 0, w + 0}' /proc/\$c/io 2>/dev/null);"
serve="$serve if [ \"\${1:-0}\" -gt \"\${2:-0}\" ] && [ \"\${2:-0}\" = \"\$w\" ]; then n=\$((n + 1)); else n=0; fi; w=\${2:-0};"
serve="$serve [ \$n -lt 6 ] || kill \$c; done ) </dev/null >/dev/null 2>&1 & wait \$c; }"
ssh_to() {
    ssh -i "$key" $ssh_options "$@"
}
held() {
    find "$dest" -path "$stage" -prune -o -type f -printf '%P\t%s\t%m\t%T@\n' > "$stage/have"
}
# wanted: what this node takes from the stream (held otherwise than the listing says; for a reader
# also what its record does not vouch for, then named in 'recheck' when it holds it as listed);
# vouched: the record's lines for files held as listed.
held
awk -F'\t' -v reader="$reader" -v vouched="$stage/vouched" -v recheck="$stage/recheck" '
    FILENAME == ARGV[1] { m = $4; sub(/\..*/, "", m); have[$1] = $2 "\t" $3 "\t" m; next }
    FILENAME == ARGV[2] { rec[$5 "\t" $2 "\t" $3 "\t" $4] = $0; next }
    { k = $5 "\t" $2 "\t" $3 "\t" $4
      if (have[$5] != $2 "\t" $3 "\t" $4) print $5
      else if (k in rec) print rec[k] > vouched
      else if (reader == "yes") { print $5; print $5 > recheck } }' "$stage/have" "$stage/verified" "$listing" > "$stage/wanted"
touch "$stage/vouched" "$stage/recheck"
# The stream on standard input, passed on to the next node once its ssh opened the FIFO (it starts
# at the same time; a node that never comes is left out after a while).
wait_next() {
    i=0
    while [ ! -e "$stage/next.open" ] && [ "$i" -lt $((timeout * 10 + 100)) ]; do sleep 0.1; i=$((i + 1)); done
    [ -e "$stage/next.open" ]
}
forward() {
    if [ "$next" = next ] && wait_next; then exec tee -p -- "$stage/next"; fi
    exec cat
}
# OpenSSL's digest where the node has it: it uses the CPU's SHA instructions (~3x sha256sum's speed,
# which every node spends on the whole set). Both print HASH, two characters, then the name; every
# name starts ./ (never an option).
if command -v openssl >/dev/null 2>&1; then hasher='openssl dgst -sha256 -r'; else hasher='sha256sum'; fi
unpack() {
    r=0
    if [ "$take" = yes ]; then
        # what lands is written out while the stream goes on (every 5 s), not all after it: the sync
        # before the files take their names would otherwise write everything the kernel still holds
        # (up to a tenth of the node's memory) after the stream's last byte; it ends with this script
        # when that is killed
        ( while sleep 5 && kill -0 $$; do sync -f "$stage/tmp"; done ) </dev/null >/dev/null 2>&1 &
        flusher=$!
        mkdir -p "$stage/batches"
        # what it skips named rather than what it takes: tar matches a list of names to take one by
        # one against every member (100 000 files: minutes of CPU), names to leave out in a hash.
        # -v names each member as tar starts it, so the one before it is whole: it is hashed then,
        # while the stream goes on (the verification below reads these sums instead of hashing the
        # set after it arrived, which held every node of a chain ~2 s past the stream's end)
        { tar -x -v --quoting-style=literal -i -f - -C "$stage/tmp" --no-recursion --no-wildcards --anchored \
              -X "$stage/skip" 2>"$stage/tar.err"; echo $? > "$stage/tar.rc"; } \
            | awk -v listing="$listing" -v out="$stage/received" -v batches="$stage/batches" '
                # what has landed so far, for progress.sh (BYTES FILES, then the member in flight),
                # at most once a second: counting the files under tmp took a quarter of the CPU of
                # a 100 000-file set on 8 nodes
                function report(name) { print b, done > (out ".tmp"); print name > (out ".tmp"); close(out ".tmp")
                    system("mv -f -- \"" out ".tmp\" \"" out "\"") }
                # the landed files go to the hasher in batches of up to 1 024 files or 64 MiB: one
                # program started per 64 small files took a sixth of that CPU, and a large file is
                # hashed as soon as it landed, not once 63 more have
                function landed(name) { b += size[name]; done++; print "./" name > (batches "/" nb); bn++; bb += size[name]
                    if (bn >= 1024 || bb >= 67108864) flush() }
                function flush() { if (bn) { close(batches "/" nb); print batches "/" nb; fflush(); nb++; bn = 0; bb = 0 } }
                BEGIN { nb = 0; while ((getline l < listing) > 0) { split(l, f, "\t"); size[f[5]] = f[2] } srand(); last = srand() }
                index($0, ".provision-stage/") != 1 {
                    if (n++) landed(prev)
                    prev = $0
                    if (n % 64 == 1) { srand(); now = srand(); if (now != last) { last = now; report(prev) } } }
                END { if (n) landed(prev); flush(); report("") }' \
            | while IFS= read -r batch; do
                  (cd -- "$stage/tmp" && exec xargs -d '\n' -r $hasher) < "$batch"
                  rm -f -- "$batch"
              done > "$stage/streamed" 2>/dev/null
        r=$(cat "$stage/tar.rc" 2>/dev/null || echo 1)
        kill "$flusher" 2>/dev/null || :
    fi
    cat >/dev/null   # the rest of the stream, which the next node still needs
    return $r
}
# The files listed in $1 read from the source as one tar stream, in the list's order, in chunks read
# side by side: a chunk is up to 256 files or 8 MiB; up to $readers chunks are read at once into
# spool files under $stage/spool (at most $window chunks ahead of the stream: 128 MiB of this node's
# disk at the most, beside the set), and each is sent when
# its turn comes (GNU tar reads the archives one after another: -i), so a store's per-file latency
# (an open, a read and a close, each a round trip over sshfs or NFS) is paid $readers files at a
# time, not one after another: 100 000 small files took 6 minutes through one tar. A chunk whose
# turn comes before a reader took it (the first one always, and a file of more than 8 MiB, a chunk
# of its own) is read straight into the stream: the stream never waits for a whole chunk to be
# spooled (waiting for the first, which shares the store with the other readers, held every node of
# a chain ~10 s before its first byte). A chunk is taken once (mkdir of its claim, by a reader or by
# the stream). Exits with the status of the first chunk whose tar failed, else 0.
# A list of at most $one_tar files is read by one tar, file after file: with fewer files the round
# trips cost less than what the readers take from the stream (2 000 files and a 32 MiB one, 16 nodes:
# a chain of 24 s took 33 s in chunks).
readers=8 window=16 chunk_bytes=8388608 one_tar=10000
tar_chunk() {
    (cd -- "$from" && tar -c -b 1 -f - --no-recursion --verbatim-files-from -T "$1")
}
read_set() {
    if [ "$(wc -l < "$1")" -le "$one_tar" ]; then
        tar_chunk "$1"
        return
    fi
    rm -rf "$stage/chunks" "$stage/spool"
    mkdir "$stage/chunks" "$stage/spool"
    awk -F'\t' -v dir="$stage/chunks" -v max="$chunk_bytes" '
        FILENAME == ARGV[1] { size[$5] = $2; next }
        { s = size[$0] + 0
          if (s > max) { if (n) close(f); k++; f = sprintf("%s/%07d.big", dir, k); print > f; close(f); n = 0; b = 0; next }
          if (n == 0 || n >= 256 || b + s > max) { if (n) close(f); k++; f = sprintf("%s/%07d", dir, k); n = 0; b = 0 }
          print > f; n++; b += s }' "$listing" "$1"
    ls "$stage/chunks" > "$stage/spool/order"
    echo 0 > "$stage/spool/sent"
    (   # the readers: a chunk starts once fewer than $readers read and it is at most $window ahead of the stream
        k=0
        while IFS= read -r c; do
            k=$((k + 1))
            case $c in *.big) continue ;; esac
            [ "$k" -gt 1 ] || continue   # the stream's own
            # while it waits, only the shell's builtins and sleep: its cat, find, wc and subshells,
            # 17 times a second on a chain's first node through the whole stream, were a tenth of the
            # CPU of a 16-node rig (perf, 1 GiB)
            while :; do
                { read -r sent < "$stage/spool/sent"; } 2>/dev/null || sent=0
                set -- "$stage"/spool/*.run
                running=$#
                [ -e "$1" ] || running=0
                [ $((k - sent)) -gt "$window" ] || [ "$running" -ge "$readers" ] || break
                # the stream's end gone (its next node lost: SIGPIPE), then this script: stop reading
                kill -0 $$ 2>/dev/null && [ -d "$stage/spool" ] || exit 0
                sleep 0.1
            done
            mkdir "$stage/spool/$c.claim" 2>/dev/null || continue   # the stream took it
            : > "$stage/spool/$c.run"
            { tar_chunk "$stage/chunks/$c" > "$stage/spool/$c"; echo $? > "$stage/spool/$c.rc"; rm -f "$stage/spool/$c.run"; } &
        done < "$stage/spool/order"
        wait
    ) >/dev/null &
    first=0 k=0
    while IFS= read -r c; do
        k=$((k + 1))
        case $c in
            *.big) tar_chunk "$stage/chunks/$c"; r=$? ;;
            *) if mkdir "$stage/spool/$c.claim" 2>/dev/null; then
                   tar_chunk "$stage/chunks/$c"; r=$?
               else
                   while [ ! -s "$stage/spool/$c.rc" ]; do sleep 0.05; done   # its status written
                   read -r r < "$stage/spool/$c.rc"
                   cat -- "$stage/spool/$c" || r=1
                   rm -f -- "$stage/spool/$c" "$stage/spool/$c.rc"
               fi ;;
        esac
        [ "$first" != 0 ] || first=$r
        echo "$k" > "$stage/spool/sent.tmp"; mv -f -- "$stage/spool/sent.tmp" "$stage/spool/sent"
    done < "$stage/spool/order"
    wait
    rm -rf "$stage/chunks" "$stage/spool"
    return "$first"
}
set +e
rc=0
if [ "$mode" = peer ]; then
    # the donor's record first: the manifest this node verifies against (written before it served anyone)
    ssh_to "$from" "cat -- $stage/verified" > "$stage/source-manifest"
    r=$?
    if [ "$r" -ne 0 ]; then printf 'ssh\t%s\n' "$r"; exit 4; fi
    rsync -a -W --fsync --temp-dir="$stage/tmp" --files-from="$stage/files" --out-format='%i %l %n' \
        -e "ssh -i $key $ssh_options" \
        -- "$from:$dest/" "$dest/" > "$stage/rsync.out"
    rc=$?
else
    rm -f "$stage/next" "$stage/next.open"
    # the set's files this node does not take from the stream (the stream may carry the whole set);
    # it takes something when it wants a file or its mode's mark follows the data (feed: read-whole,
    # chain: source-manifest)
    awk 'FILENAME == ARGV[1] { w[$0] = 1; next } !($0 in w)' "$stage/wanted" "$stage/files" > "$stage/skip"
    take=no
    if [ -s "$stage/wanted" ] || [ "$mode" = feed ] || [ "$mode" = chain ]; then take=yes; fi
    [ "$next" = next ] && mkfifo "$stage/next"
    if [ "$reader" = yes ] && [ "$next" = next ]; then
        if wait_next; then
            # held open past the data: the manifest follows it down the chain
            exec 3>"$stage/next"
            next=open
        else
            next=none
        fi
    fi
    if [ "$mode" = source ] || [ "$mode" = chain-source ]; then
        # the whole set when a chain follows (a later node may lack any file), else what this node takes
        if [ "$next" = none ]; then list=$stage/wanted; else list=$stage/files; fi
        { read_set "$list" 2>"$stage/read.err" 3>&-; echo $? > "$stage/read.rc"; } \
            | { if [ "$next" = open ]; then exec tee -p -- "$stage/next"; else forward; fi; } 3>&- | unpack 3>&-
    elif [ "$mode" = feed ]; then
        { if [ "$next" = open ]; then exec tee -p -- "$stage/next"; else forward; fi; } 3>&- | unpack 3>&-
    else
        ssh_to "${from}" "i=0; while [ ! -p $stage/next ] && [ \$i -lt $((timeout * 10 + 100)) ]; do sleep 0.1; i=\$((i + 1)); done;" \
            "$serve" | forward | unpack
    fi
    rm -f "$stage/next" "$stage/next.open"
    [ ! -f "$stage/tmp/.provision-stage/source-manifest" ] || mv -- "$stage/tmp/.provision-stage/source-manifest" "$stage/source-manifest"
    read_whole=no
    [ ! -f "$stage/tmp/.provision-stage/read-whole" ] || read_whole=yes
    rm -rf "$stage/tmp/.provision-stage"
    # a file cut short, or not as the listing says (the source changed since planning): never under its final name
    (cd -- "$stage/tmp" && find . -type f -printf '%P\t%s\t%m\t%T@\n') > "$stage/unpacked"
    awk -F'\t' 'FILENAME == ARGV[1] { meta[$5] = $2 "\t" $3 "\t" $4; next }
        { m = $4; sub(/\..*/, "", m); if (meta[$1] != $2 "\t" $3 "\t" m) print $1 }' \
        "$listing" "$stage/unpacked" | while IFS= read -r p; do rm -f -- "$stage/tmp/$p"; done
    # a held copy the reader read again: kept when its bytes are the source's, replaced otherwise
    while IFS= read -r p; do
        [ ! -f "$stage/tmp/$p" ] || ! cmp -s -- "$stage/tmp/$p" "$dest/$p" || rm -f -- "$stage/tmp/$p"
    done < "$stage/recheck"
    # the files in full on disk before any takes its final name; then each linked into place
    sync -f "$stage/tmp"
    (cd -- "$stage/tmp" && find . -type f -printf '%P\n') > "$stage/landed"
    awk '{ print "got\t" $0 }' "$stage/landed"
    # the sums taken while the stream arrived, of the files that landed (and are linked into place) only
    awk 'FILENAME == ARGV[1] { ok["./" $0] = 1; next } (substr($0, 67) in ok)' "$stage/landed" "$stage/streamed" \
        > "$stage/streamed.ok" 2>/dev/null
    rm -f "$stage/landed" "$stage/streamed" "$stage/tar.rc"
    cp -r -l -f --preserve=all -- "$stage/tmp/." "$dest/"
    [ -s "$stage/tar.err" ] && [ "$reader" = yes ] && head -3 "$stage/tar.err" >&2
    rm -f "$stage/unpacked" "$stage/skip" "$stage/tar.err"
    : > "$stage/rsync.out"
    if [ "$reader" = yes ]; then
        if [ "$mode" = feed ]; then
            [ "$read_whole" = yes ] || { printf 'read\tthe controller did not read the source whole (its message follows)\n'; exit 4; }
        else
            r=$(cat "$stage/read.rc" 2>/dev/null || echo 1)
            if [ "$r" != 0 ]; then
                printf 'read\ttar exited %s\n' "$r"
                head -3 "$stage/read.err" >&2
                exit 4
            fi
            # still as planned after the read (a file written meanwhile is caught here, or by tar)
            (cd -- "$from" && find . -type f -printf '%P\t%s\t%m\t%T@\n') > "$stage/restat"
            awk -F'\t' 'FILENAME == ARGV[1] { m = $4; sub(/\..*/, "", m); now[$1] = $2 "\t" $3 "\t" m; next }
                FILENAME == ARGV[2] { want[$0] = 1; next }
                ($5 in want) && now[$5] != $2 "\t" $3 "\t" $4 { print "changed\t" $5 }' \
                "$stage/restat" "$stage/wanted" "$listing" > "$stage/changed"
            rm -f "$stage/restat"
            if [ -s "$stage/changed" ]; then head -3 "$stage/changed"; exit 4; fi
        fi
    fi
fi
set -e
# rsync's lines: ITEMS LENGTH PATH (the length counted by progress.sh while the fetch runs)
awk '/^>f/ { sub(/^[^ ]+ [0-9]+ /, ""); print "got\t" $0 }' "$stage/rsync.out"
if [ "$rc" -ne 0 ]; then
    printf 'rsync\t%s\n' "$rc"
    exit 4
fi
# What it verifies against: the reader's own (record where it vouches, '-' to hash), else the one it was sent.
if [ "$reader" = yes ]; then
    awk -F'\t' 'FILENAME == ARGV[1] { v[$5] = $1; next } { print (($5 in v) ? v[$5] : "-") "\t" $2 "\t" $3 "\t" $4 "\t" $5 }' \
        "$stage/vouched" "$listing" > "$stage/expect"
elif [ ! -s "$stage/source-manifest" ] && [ -s "$listing" ]; then
    echo "manifest	none came from the node before (the chain was cut before its first node sent it)"
    exit 5
elif ! awk -F'\t' 'FILENAME == ARGV[1] { meta[FNR] = $2 "\t" $3 "\t" $4 "\t" $5; n = FNR; next }
        { if (meta[FNR] != $2 "\t" $3 "\t" $4 "\t" $5 || length($1) != 64 || $1 !~ /^[0-9a-f]+$/) bad = 1; m = FNR }
        END { exit (bad || m != n) }' "$listing" "$stage/source-manifest"; then
    echo "manifest	the one sent lists other files, sizes, modes or mtimes than this node planned for"
    exit 5
else
    cp -- "$stage/source-manifest" "$stage/expect"
fi
# What the record already vouches for (same line, and the file with that size, mode and mtime) is
# not hashed again; everything else is.
held
rm -f "$stage/tohash"
touch "$stage/streamed.ok"
awk -F'\t' -v stage="$stage" '
    FILENAME == ARGV[1] { m = $4; sub(/\..*/, "", m); have[$1] = $2 "\t" $3 "\t" m; next }
    FILENAME == ARGV[2] { recorded[$0] = 1; next }
    FILENAME == ARGV[3] { streamed[substr($0, 69)] = 1; next }
    { if (have[$5] != $2 "\t" $3 "\t" $4) print "missing\t" $5
      else if (!($0 in recorded) && !($5 in streamed)) print $5 > (stage "/tohash") }' \
    "$stage/have" "$stage/verified" "$stage/streamed.ok" "$stage/expect" > "$stage/missing"
rm -rf "$stage/sums"
mkdir "$stage/sums"
if [ -f "$stage/tohash" ]; then
    (cd -- "$dest" && sed 's|^|./|' "$stage/tohash" | tr '\n' '\0' | \
        xargs -0 -r -P "$jobs" -n 256 sh -c "$hasher"' "$@" >> "$0/$$"' "$stage/sums")
fi
cat "$stage/streamed.ok" "$stage"/sums/* </dev/null > "$stage/hashed" 2>/dev/null || true
# the manifest filled in ('-': what the reader hashed) and the files whose hash is not the manifest's
: > "$stage/bad"
awk -F'\t' -v bad="$stage/bad" 'FILENAME == ARGV[1] { sums[substr($0, 69)] = substr($0, 1, 64); next }
    { h = $1
      if (h == "-" && ($5 in sums)) h = sums[$5]
      else if (($5 in sums) && sums[$5] != h) print "bad\t" $5 > bad
      print h "\t" $2 "\t" $3 "\t" $4 "\t" $5 }' "$stage/hashed" "$stage/expect" > "$stage/expect.full"
mv -- "$stage/expect.full" "$stage/expect"
# a file the reader could not hash (gone meanwhile) is missing: the record never holds a '-'
awk -F'\t' '$1 == "-" { print "missing\t" $5 }' "$stage/expect" >> "$stage/missing"
cut -f2 "$stage/bad" | while IFS= read -r p; do rm -f -- "$dest/$p"; done
if [ -s "$stage/missing" ] || [ -s "$stage/bad" ]; then
    cat "$stage/missing" "$stage/bad"
    rm -rf "$stage/sums" "$stage/tohash" "$stage/hashed" "$stage/have" "$stage/files" "$stage/expect" "$stage/streamed.ok"
    exit 5
fi
cp -- "$stage/expect" "$stage/verified.tmp"
sync -- "$stage/verified.tmp"
mv -- "$stage/verified.tmp" "$stage/verified"
if [ "$next" = open ]; then
    # the manifest down the chain, after the data: a last tar member (a successor gone is no error here)
    mkdir -p "$stage/send/.provision-stage"
    cp -- "$stage/expect" "$stage/send/.provision-stage/source-manifest"
    (tar -c -f - -C "$stage/send" .provision-stage/source-manifest >&3) 2>/dev/null || true
    exec 3>&-
fi
rm -rf "$stage/sums" "$stage/tohash" "$stage/hashed" "$stage/have" "$stage/files" "$stage/rsync.out" "$stage/missing" "$stage/bad" \
    "$stage/streamed.ok" "$stage/tmp" "$stage/expect" "$stage/send" "$stage/source-manifest" "$stage/wanted" "$stage/vouched" "$stage/recheck" \
    "$stage/read.rc" "$stage/read.err" "$stage/changed" "$stage/chunks" "$stage/spool" "$stage/received" "$stage/batches"
awk -F'\t' '{ n++; b += $2 } END { printf "verified\t%d\t%.0f\t", n, b }' "$stage/verified"
sha256sum < "$stage/verified" | cut -c1-64
