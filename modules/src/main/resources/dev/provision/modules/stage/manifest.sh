# The manifest of a source directory, its listing part, made without reading any file's data (one find over the
# directory's metadata): one line per regular file, -<TAB>SIZE<TAB>MODE<TAB>MTIME<TAB>PATH, sorted by
# path in the C locale, MODE the octal permission bits, MTIME whole seconds since the epoch, PATH
# relative to the directory; '-' where the manifest has a file's SHA-256, which the node that reads
# the source fills in from the bytes it reads (pull.sh). $1 the directory. Exit 3 with the reason on
# stderr for what the manifest cannot carry: entries that are neither files nor directories
# (symlinks, devices), names holding a tab, a newline or a backslash, and a top-level
# .provision-stage (the nodes' own records).
set -eu
export LC_ALL=C
src=$1
[ -d "$src" ] || { echo "$src is not a directory" >&2; exit 3; }
cd -- "$src"
nl='
'
tab=$(printf '\t')
odd=$(find . ! -type f ! -type d -print | head -n 3 | tr '\n' ' ')
[ -z "$odd" ] || { echo "neither a regular file nor a directory (not staged): $odd" >&2; exit 3; }
odd=$(find . \( -name "*$nl*" -o -name "*$tab*" -o -name '*\\*' \) -print | head -n 3 | tr '\n' ' ')
[ -z "$odd" ] || { echo "names with a tab, newline or backslash (not staged): $odd" >&2; exit 3; }
[ ! -e .provision-stage ] || { echo "$src/.provision-stage is the name the nodes keep their records under" >&2; exit 3; }
# sorted as PATH<TAB>...: the order of the path's bytes, as the controller's listing sorts
find . -type f -printf '%P\t%s\t%m\t%T@\n' | sort | awk -F'\t' '{ m = $4; sub(/\..*/, "", m); print "-\t" $2 "\t" $3 "\t" m "\t" $1 }'
