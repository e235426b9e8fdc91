# How much a node's running fetch (pull.sh) received so far, read-only and cheap: prints
# BYTES FILES. $1 the destination. rsync names each file it completed in .provision-stage/rsync.out
# with its length, and writes the one in flight under .provision-stage/tmp; a chain unpacks under
# .provision-stage/tmp and counts what landed in .provision-stage/received (BYTES FILES, then the
# member in flight, whose size so far is added). Prints 0 0 when no fetch runs there.
export LC_ALL=C
stage=$1/.provision-stage
{
    [ ! -f "$stage/rsync.out" ] || awk '/^>f/ { print $2, 1 }' "$stage/rsync.out"
    if [ -f "$stage/received" ] && { read -r bytes files && IFS= read -r current; } < "$stage/received"; then
        echo "$bytes $files"
        [ -z "$current" ] || [ ! -f "$stage/tmp/$current" ] || echo "$(stat -c %s -- "$stage/tmp/$current") 0"
    elif [ -d "$stage/tmp" ]; then
        find "$stage/tmp" -type f -printf '%s 1\n'
    fi
} 2>/dev/null | awk '{ b += $1; n += $2 } END { printf "%.0f %d\n", b, n }'
