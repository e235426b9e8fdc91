# One node's part of a staging round: fetch what it lacks of the manifest's files, then verify
# every file against the manifest and record what it verified. The manifest is already on the node
# (.provision-stage/manifest, written by the task). $1 destination, $2 how it fetches: 'source'
# (rsync from a directory this node reads: shared storage, or its own disk), 'peer' (rsync from
# another node over the cluster's SSH identity), 'chain-source' or 'chain' (a link of a pipelined
# chain, below), 'feed' (the first link of a chain whose stream comes on standard input: the
# controller's tar, over the connection provision holds), $3 the source directory or USER@ADDRESS of
# the peer ('-' for a feed), $4 private key, $5 known-hosts file, $6 how many
# hashers run at once, $7 SSH connect timeout in seconds, $8 (chain) 'next' when a node follows.
# rsync writes each file under .provision-stage/tmp (the same filesystem), fsyncs it and renames it
# into place: a reader never sees a partial file under its final name, and what a killed run left
# there is cleared by the next. Prints got<TAB>PATH per file received; then either
# verified<TAB>FILES<TAB>BYTES<TAB>ROOT (exit 0), or rsync<TAB>EXIT (exit 4, nothing verified),
# or missing<TAB>PATH / bad<TAB>PATH lines (exit 5; a bad file is removed, the next round fetches it).
#
# A chain: every node of it starts at once; the first reads the set from the source as one tar
# stream, each passes the stream on to the next as it arrives (tee into a FIFO that the next node's
# ssh reads) and unpacks the files it lacks under .provision-stage/tmp; then syncs them, links them
# into place and verifies them like any fetch. The source is read once and each node's link carries
# the set once, whatever the number of nodes. A node that lost its predecessor ends short (missing
# files, exit 5) and fetches the rest in the next round, from a node that holds the set; a node whose
# successor is lost goes on (tee -p).
set -eu
export LC_ALL=C
dest=$1 mode=$2 from=$3 key=$4 known=$5 jobs=$6 timeout=$7 next=${8:-none}
stage=$dest/.provision-stage
[ -f "$stage/manifest" ] || { echo "no manifest at $stage/manifest" >&2; exit 3; }
cut -f5 "$stage/manifest" > "$stage/files"
rm -rf "$stage/tmp" "$stage/rsync.out"
mkdir "$stage/tmp"
# A peer that stops answering is given up within 3 × 5 s (a hung node must not stall the nodes after it).
ssh_options="-o BatchMode=yes -o StrictHostKeyChecking=yes -o UserKnownHostsFile=$known -o ConnectTimeout=$timeout -o ServerAliveInterval=5 -o ServerAliveCountMax=3"
ssh_to() {
    ssh -i "$key" $ssh_options "$@"
}
# The stream on standard input, passed on to the next node once its ssh opened the FIFO (it starts
# at the same time; a node that never comes is left out after a while).
forward() {
    if [ "$next" = next ]; then
        i=0
        while [ ! -e "$stage/next.open" ] && [ "$i" -lt $((timeout * 10 + 100)) ]; do sleep 0.1; i=$((i + 1)); done
        if [ -e "$stage/next.open" ]; then exec tee -p -- "$stage/next"; fi
    fi
    exec cat
}
# What this node lacks (not as the manifest says: path, size, mode, mtime): the members it unpacks.
wanted() {
    find "$dest" -path "$stage" -prune -o -type f -printf '%P\t%s\t%m\t%T@\n' > "$stage/have.chain"
    awk -F'\t' 'FILENAME == ARGV[1] { m = $4; sub(/\..*/, "", m); have[$1] = $2 "\t" $3 "\t" m; next }
        have[$5] != $2 "\t" $3 "\t" $4 { print $5 }' "$stage/have.chain" "$stage/manifest" > "$stage/wanted"
    rm -f "$stage/have.chain"
}
unpack() {
    if [ -s "$stage/wanted" ]; then
        tar -x -f - -C "$stage/tmp" --no-recursion --verbatim-files-from -T "$stage/wanted" 2>"$stage/tar.err"
        r=$?
        cat >/dev/null   # the rest of the stream, which the next node still needs
        return $r
    fi
    cat >/dev/null
}
set +e
if [ "$mode" = chain-source ] || [ "$mode" = chain ] || [ "$mode" = feed ]; then
    rm -f "$stage/next" "$stage/next.open"
    [ "$next" = next ] && mkfifo "$stage/next"
    wanted
    if [ "$mode" = chain-source ]; then
        (cd -- "$from" && tar -c -f - --no-recursion --verbatim-files-from -T "$stage/files") | forward | unpack
    elif [ "$mode" = feed ]; then
        forward | unpack
    else
        ssh_to "${from}" "i=0; while [ ! -p $stage/next ] && [ \$i -lt $((timeout * 10 + 100)) ]; do sleep 0.1; i=\$((i + 1)); done;" \
            "touch $stage/next.open && exec cat $stage/next" | forward | unpack
    fi
    rm -f "$stage/next" "$stage/next.open"
    # a stream cut short leaves its last file short: never under its final name
    (cd -- "$stage/tmp" && find . -type f -printf '%P\t%s\n') > "$stage/unpacked"
    awk -F'\t' 'FILENAME == ARGV[1] { size[$5] = $2; next } size[$1] != $2 { print $1 }' \
        "$stage/manifest" "$stage/unpacked" | while IFS= read -r p; do rm -f -- "$stage/tmp/$p"; done
    # the files in full on disk before any takes its final name; then each linked into place
    sync -f "$stage/tmp"
    (cd -- "$stage/tmp" && find . -type f -printf '%P\n') | awk '{ print "got\t" $0 }'
    cp -r -l -f --preserve=all -- "$stage/tmp/." "$dest/"
    rm -f "$stage/unpacked"
    [ -s "$stage/tar.err" ] && head -3 "$stage/tar.err" >&2
    rm -f "$stage/wanted" "$stage/tar.err"
    rc=0   # what did not arrive is named by the verification below
    : > "$stage/rsync.out"
elif [ "$mode" = source ]; then
    rsync -a -W --fsync --temp-dir="$stage/tmp" --files-from="$stage/files" --out-format='%i %l %n' -- "$from/" "$dest/" > "$stage/rsync.out"
    rc=$?
else
    rsync -a -W --fsync --temp-dir="$stage/tmp" --files-from="$stage/files" --out-format='%i %l %n' \
        -e "ssh -i $key $ssh_options" \
        -- "$from:$dest/" "$dest/" > "$stage/rsync.out"
    rc=$?
fi
set -e
# rsync's lines: ITEMS LENGTH PATH (the length counted by progress.sh while the fetch runs)
awk '/^>f/ { sub(/^[^ ]+ [0-9]+ /, ""); print "got\t" $0 }' "$stage/rsync.out"
if [ "$rc" -ne 0 ]; then
    printf 'rsync\t%s\n' "$rc"
    exit 4
fi
# What the record already vouches for (same line, and the file with that size, mode and mtime) is
# not hashed again; everything else is.
find "$dest" -path "$stage" -prune -o -type f -printf '%P\t%s\t%m\t%T@\n' > "$stage/have"
touch "$stage/verified"
rm -f "$stage/tohash"
awk -F'\t' -v stage="$stage" '
    FILENAME == ARGV[1] { m = $4; sub(/\..*/, "", m); have[$1] = $2 "\t" $3 "\t" m; next }
    FILENAME == ARGV[2] { recorded[$0] = 1; next }
    { if (have[$5] != $2 "\t" $3 "\t" $4) print "missing\t" $5
      else if (!($0 in recorded)) print $5 > (stage "/tohash") }' "$stage/have" "$stage/verified" "$stage/manifest" > "$stage/missing"
rm -rf "$stage/sums"
mkdir "$stage/sums"
if [ -f "$stage/tohash" ]; then
    (cd -- "$dest" && tr '\n' '\0' < "$stage/tohash" | xargs -0 -r -P "$jobs" -n 256 sh -c 'sha256sum -- "$@" >> "$0/$$"' "$stage/sums")
fi
cat "$stage"/sums/* </dev/null > "$stage/hashed" 2>/dev/null || true
awk -F'\t' 'NR == FNR { sums[substr($0, 67)] = substr($0, 1, 64); next }
    ($5 in sums) && sums[$5] != $1 { print "bad\t" $5 }' "$stage/hashed" "$stage/manifest" > "$stage/bad"
cut -f2 "$stage/bad" | while IFS= read -r p; do rm -f -- "$dest/$p"; done
if [ -s "$stage/missing" ] || [ -s "$stage/bad" ]; then
    cat "$stage/missing" "$stage/bad"
    rm -rf "$stage/sums" "$stage/tohash" "$stage/hashed" "$stage/have" "$stage/files"
    exit 5
fi
cp -- "$stage/manifest" "$stage/verified.tmp"
sync -- "$stage/verified.tmp"
mv -- "$stage/verified.tmp" "$stage/verified"
rm -rf "$stage/sums" "$stage/tohash" "$stage/hashed" "$stage/have" "$stage/files" "$stage/rsync.out" "$stage/missing" "$stage/bad" "$stage/tmp"
awk -F'\t' '{ n++; b += $2 } END { printf "verified\t%d\t%.0f\t", n, b }' "$stage/manifest"
sha256sum < "$stage/manifest" | cut -c1-64
