# Runs a command on another node over the cluster's SSH identity, read-only as the command is:
# how a node reads the manifest of a source that only the source node holds (src_on: node).
# $1 private key, $2 known-hosts file (host keys checked, never accepted), $3 connect timeout in
# seconds, $4 USER@ADDRESS, $5... the command's words: each reaches the far shell single-quoted, a
# word there as here, whatever it holds.
set -eu
key=$1 known=$2 timeout=$3 target=$4
shift 4
line=
for word in "$@"; do
    line="$line '$(printf '%s' "$word" | sed "s/'/'\\\\''/g")'"
done
exec ssh -i "$key" -o BatchMode=yes -o StrictHostKeyChecking=yes -o UserKnownHostsFile="$known" -o ConnectTimeout="$timeout" \
    -o ServerAliveInterval=5 -o ServerAliveCountMax=3 -- "$target" "$line"
