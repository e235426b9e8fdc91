# The manifest of a source directory, read once at the source: one line per regular file,
# SHA256<TAB>SIZE<TAB>MODE<TAB>MTIME<TAB>PATH, sorted by path in the C locale, MODE the octal
# permission bits, MTIME whole seconds since the epoch, PATH relative to the directory.
# $1 the directory, $2 how many hashers run at once, $3 (may be empty) a node's record of a manifest
# it verified: a file with the same path, size, mode and mtime there keeps its recorded hash and is
# not read again (rsync's own quick check), so a re-run does not read the source. Exit 3 with the reason on stderr for what the
# manifest cannot carry: entries that are neither files nor directories (symlinks, devices), names
# holding a tab, a newline or a backslash, and a top-level .provision-stage (the nodes' own records).
set -eu
export LC_ALL=C
src=$1 jobs=$2 record=${3:-}
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
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
find . -type f -printf '%P\t%s\t%m\t%T@\n' | sort > "$tmp/list"
mkdir "$tmp/sums"
if [ -n "$record" ] && [ -r "$record" ]; then
    awk -F'\t' -v reused="$tmp/sums/reused" 'NR == FNR { known[$5 "\t" $2 "\t" $3 "\t" $4] = $1; next }
        { m = $4; sub(/\..*/, "", m); k = $1 "\t" $2 "\t" $3 "\t" m
          if (k in known) print known[k] "  " $1 > reused; else print $1 }' "$record" "$tmp/list" > "$tmp/tohash"
else
    cut -f1 "$tmp/list" > "$tmp/tohash"
fi
# Each hasher appends to a file of its own: lines of parallel writers to one pipe could interleave.
tr '\n' '\0' < "$tmp/tohash" | xargs -0 -r -P "$jobs" -n 256 sh -c 'sha256sum -- "$@" >> "$0/$$"' "$tmp/sums"
cat "$tmp"/sums/* </dev/null > "$tmp/all" 2>/dev/null || true
awk -F'\t' 'NR == FNR { sums[substr($0, 67)] = substr($0, 1, 64); next }
    { m = $4; sub(/\..*/, "", m); h = sums[$1]
      if (h == "") { print "no hash for " $1 > "/dev/stderr"; bad = 1; exit 3 }
      print h "\t" $2 "\t" $3 "\t" m "\t" $1 }
    END { if (bad) exit 3 }' "$tmp/all" "$tmp/list"
