# The controller's part of staging from the controller (src_on: controller), run by the engine on the
# controller as a Round.Feed, its standard output streamed into the first node of the chain: one tar
# stream of the names read on standard input (one a line, taken as they are) out of the directory $1;
# then, only when tar read every file whole and unchanged (GNU tar exits 1 for a file that changed
# while it read it, 2 for one it could not read), a second archive of one empty member,
# .provision-stage/read-whole. The node that unpacks the stream makes the set's hashes from what it
# received, and trusts them only when that member arrived (pull.sh). Hard links are stored as files (a
# node may lack the first name of a pair); members are owned by root on the nodes, whoever owns them
# here. GNU tar.
set -u
src=$1
tar -c -f - -C "$src" --no-recursion --hard-dereference --owner=0 --group=0 --numeric-owner --verbatim-files-from -T - || exit
mark=$(mktemp -d) || exit
trap 'rm -rf "$mark"' EXIT
mkdir "$mark/.provision-stage" && : > "$mark/.provision-stage/read-whole" &&
    tar -c -f - -C "$mark" --owner=0 --group=0 --numeric-owner .provision-stage/read-whole
