# What a node holds of a staged data set, read-only. $1 the destination directory. Prints
# space<TAB>FREE_BYTES<TAB>FREE_INODES<TAB>TOTAL_INODES of the filesystem that holds (or will hold)
# it; notdir when it exists and is not a directory; file<TAB>SIZE<TAB>MODE<TAB>MTIME<TAB>PATH per
# regular file under it (MTIME as find prints %T@); verified<TAB>LINE per line of the manifest this
# node verified last (its record, .provision-stage/verified).
set -eu
export LC_ALL=C
dest=$1
probe=$dest
while [ ! -e "$probe" ]; do probe=$(dirname -- "$probe"); done
df -B1 --output=avail,iavail,itotal -- "$probe" | tail -n 1 | awk '{ print "space\t" $1 "\t" $2 "\t" $3 }'
if [ -e "$dest" ] && [ ! -d "$dest" ]; then
    echo notdir
    exit 0
fi
[ -d "$dest" ] || exit 0
find "$dest" -path "$dest/.provision-stage" -prune -o -type f -printf 'file\t%s\t%m\t%T@\t%P\n'
[ ! -f "$dest/.provision-stage/verified" ] || sed 's/^/verified\t/' "$dest/.provision-stage/verified"
