# shellcheck shell=sh
# bench/floor/scale-node.sh: the bare-SSH floor of bench/provision/scale.yml, one idempotent POSIX
# sh script per node (bench/floor/run with FLOOR_SCRIPT=this file). The cluster-wide values come
# first in the payload (PV_* variables), the node's own (PV_NAME, PV_ADDR, PV_INDEX, PV_COUNT) on
# the ssh command line. One "changed: WHAT" line per change; nothing on a second run.
set -eu
umask 022

changed() { echo "changed: $1"; }

put_file() {
    _tmp="$1.floor.$$"
    cat >"$_tmp"
    if [ -f "$1" ] && cmp -s "$_tmp" "$1"; then
        rm -f "$_tmp"
        if [ "$(stat -c %a "$1")" != "$2" ]; then chmod "$2" "$1"; return 0; fi
        return 1
    fi
    chmod "$2" "$_tmp"
    mv -f "$_tmp" "$1"
    return 0
}

put_block() {
    _block=$(cat)
    _rest=""
    [ -f "$1" ] && _rest=$(awk -v b="# BEGIN $2" -v e="# END $2" '$0==b{skip=1;next} $0==e{skip=0;next} !skip' "$1")
    { [ -n "$_rest" ] && printf '%s\n' "$_rest"; printf '# BEGIN %s\n%s\n# END %s\n' "$2" "$_block" "$2"; } |
        put_file "$1" "$(stat -c %a "$1" 2>/dev/null || echo 644)"
}

printf '%s\n' "$PV_HOSTS_BLOCK" | put_block /etc/hosts "provision cluster hosts" && changed "/etc/hosts"
printf '%s\n' "$PV_SYSCTL_FILE" | put_file /etc/sysctl.d/90-provision-scale.conf 644 && changed "sysctl drop-in"
printf '%s\n' "$PV_LIMITS_FILE" | put_file /etc/security/limits.d/90-provision-scale.conf 644 && changed "limits"
if [ ! -d /root/.ssh ] || [ "$(stat -c %a /root/.ssh)" != 700 ]; then mkdir -p /root/.ssh; chmod 700 /root/.ssh; changed "/root/.ssh"; fi
if ! grep -qxF "$PV_CLUSTER_PUB" /root/.ssh/authorized_keys 2>/dev/null; then
    printf '%s\n' "$PV_CLUSTER_PUB" >>/root/.ssh/authorized_keys
    chmod 600 /root/.ssh/authorized_keys
    changed "authorized_keys"
fi
printf '%s\n' "$PV_KNOWN_HOSTS_BLOCK" | put_block /etc/ssh/ssh_known_hosts "provision cluster known hosts" && changed "ssh_known_hosts"
if [ ! -d /etc/provision-scale ]; then mkdir -p /etc/provision-scale; changed "/etc/provision-scale"; fi
printf '# %s: written by the bench floor script\nname = %s\naddress = %s\nindex = %s\nnodes = %s\n' \
    "$PV_NAME" "$PV_NAME" "$PV_ADDR" "$PV_INDEX" "$PV_COUNT" | put_file /etc/provision-scale/node.conf 644 && changed "node.conf"
exit 0
