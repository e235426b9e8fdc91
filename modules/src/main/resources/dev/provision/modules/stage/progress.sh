# How much a node's running fetch (pull.sh) received so far, read-only and cheap: prints
# BYTES FILES. $1 the destination. rsync names each file it completed in .provision-stage/rsync.out
# with its length, and writes the one in flight under .provision-stage/tmp; a chain unpacks every file
# under .provision-stage/tmp until it links them into place. Prints 0 0 when no fetch runs there.
export LC_ALL=C
stage=$1/.provision-stage
{
    [ ! -f "$stage/rsync.out" ] || awk '/^>f/ { print $2 }' "$stage/rsync.out"
    [ ! -d "$stage/tmp" ] || find "$stage/tmp" -type f -printf '%s\n'
} 2>/dev/null | awk '{ b += $1; n++ } END { printf "%.0f %d\n", b, n }'
