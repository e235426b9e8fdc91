# shellcheck shell=sh
# bench/floor/node.sh: the bare-SSH floor of the cluster bring-up (playbooks/cluster.yml with the
# test cluster's group_vars), as one idempotent POSIX sh script per node. bench/run prepends the
# cluster-wide values (PV_* variables, base64 where a value is a file) and pipes the result into
# `ssh NODE sh -s`; every node runs it at the same time. It prints one "changed: WHAT" line per
# change it makes and nothing else on success, so a second run prints nothing: the changed count.
# Only what a careful admin's script needs: compare, then write; no planning, no reporting.
set -eu
umask 022

changed() { echo "changed: $1"; }

# put_file PATH MODE <content on stdin>: writes PATH (atomically, with MODE) when its content or
# mode differs; returns 0 when it changed something, 1 when the file was already right.
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

# put_block PATH NAME <block on stdin>: PATH with the lines between "# BEGIN NAME" and "# END NAME"
# replaced by the block (appended when absent), the rest of the file kept.
put_block() {
    _block=$(cat)
    _rest=""
    [ -f "$1" ] && _rest=$(awk -v b="# BEGIN $2" -v e="# END $2" '$0==b{skip=1;next} $0==e{skip=0;next} !skip' "$1")
    { [ -n "$_rest" ] && printf '%s\n' "$_rest"; printf '# BEGIN %s\n%s\n# END %s\n' "$2" "$_block" "$2"; } |
        put_file "$1" "$(stat -c %a "$1" 2>/dev/null || echo 644)"
}

# ---------------------------------------------------------------- names
printf '%s\n' "$PV_HOSTS_BLOCK" | put_block /etc/hosts "provision cluster hosts" && changed "/etc/hosts"

# ---------------------------------------------------------------- cluster SSH identity
if [ ! -d /root/.ssh ] || [ "$(stat -c %a /root/.ssh)" != 700 ]; then mkdir -p /root/.ssh; chmod 700 /root/.ssh; changed "/root/.ssh"; fi
printf '%s' "$PV_CLUSTER_KEY" | base64 -d | put_file /root/.ssh/id_ed25519 600 && changed "cluster private key"
printf '%s\n' "$PV_CLUSTER_PUB" | put_file /root/.ssh/id_ed25519.pub 644 && changed "cluster public key"
if ! grep -qxF "$PV_CLUSTER_PUB" /root/.ssh/authorized_keys 2>/dev/null; then
    printf '%s\n' "$PV_CLUSTER_PUB" >>/root/.ssh/authorized_keys
    chmod 600 /root/.ssh/authorized_keys
    changed "authorized_keys"
fi
printf '%s\n' "$PV_KNOWN_HOSTS_BLOCK" | put_block /etc/ssh/ssh_known_hosts "provision cluster known hosts" && changed "ssh_known_hosts"

# ---------------------------------------------------------------- kernel and limits
printf '%s\n' "$PV_SYSCTL_FILE" | put_file /etc/sysctl.d/90-provision-cluster.conf 644 && changed "sysctl drop-in"
printf '%s\n' "$PV_SYSCTL_LIVE" | while IFS='=' read -r name value; do
    [ -n "$name" ] || continue
    now=$(sysctl -n "$name" | tr -s ' \t' '  ')
    if [ "$now" != "$value" ]; then sysctl -q -w "$name=$value"; changed "sysctl $name"; fi
done
printf '%s\n' "$PV_LIMITS_FILE" | put_file /etc/security/limits.d/90-provision-cluster.conf 644 && changed "limits"

# ---------------------------------------------------------------- packages
sources_changed=no
mkdir -p /etc/apt/provision-sources.list.d
printf '%s\n' "$PV_APT_LINE" | put_file /etc/apt/provision-sources.list.d/provision-cluster.list 644 && { changed "apt source"; sources_changed=yes; }
printf '%s\n' '// Written by provision (apt_sources_exclusive): only the cluster'"'"'s own repositories.' \
    'Dir::Etc::SourceList "/dev/null";' 'Dir::Etc::SourceParts "/etc/apt/provision-sources.list.d";' |
    put_file /etc/apt/apt.conf.d/90provision-cluster-sources 644 && { changed "apt sources exclusive"; sources_changed=yes; }
missing=""
for pkg in $PV_PACKAGES; do
    dpkg-query -W -f='${Status}\n' "$pkg" 2>/dev/null | grep -q '^install ok installed$' || missing="$missing $pkg"
done
if [ -n "$missing" ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get -q update >/dev/null
    # shellcheck disable=SC2086 # word splitting of the package list is intended
    apt-get -q install -y --no-install-recommends $missing >/dev/null
    changed "packages$missing"
elif [ "$sources_changed" = yes ]; then
    :  # packages present; like the package module, no list refresh is needed
fi

# ---------------------------------------------------------------- time
restart=no
line="DAEMON_OPTS=\"$PV_CHRONY_OPTS\""
if ! grep -qxF "$line" /etc/default/chrony 2>/dev/null; then
    if grep -q '^DAEMON_OPTS=' /etc/default/chrony 2>/dev/null; then
        sed -i "s|^DAEMON_OPTS=.*|$line|" /etc/default/chrony
    else
        printf '%s\n' "$line" >>/etc/default/chrony
    fi
    changed "/etc/default/chrony"; restart=yes
fi
printf '%s\n' "$PV_CHRONY_CONF" | put_file /etc/chrony/chrony.conf 644 && { changed "chrony.conf"; restart=yes; }
if [ "$restart" = yes ]; then
    /etc/init.d/chrony restart >/dev/null 2>&1; changed "chrony restarted"
elif ! /etc/init.d/chrony status >/dev/null 2>&1; then
    /etc/init.d/chrony start >/dev/null 2>&1; changed "chrony started"
fi

# ---------------------------------------------------------------- shared storage
printf '%s' "$PV_STORAGE_KEY" | base64 -d | put_file /root/.ssh/provision-storage 600 && changed "storage key"
printf '%s\n' "$PV_STORAGE_KNOWN_HOSTS" | put_file /etc/ssh/provision-storage_known_hosts 644 && changed "storage host key"
fstab_line="$PV_STORAGE_SRC /data fuse.sshfs $PV_STORAGE_OPTS 0 0"
if ! grep -qxF "$fstab_line" /etc/fstab 2>/dev/null; then
    grep -v '[[:space:]]/data[[:space:]]' /etc/fstab 2>/dev/null >/etc/fstab.floor || true
    printf '%s\n' "$fstab_line" >>/etc/fstab.floor
    mv -f /etc/fstab.floor /etc/fstab
    changed "fstab"
fi
[ -d /data ] || mkdir -p /data
if ! findmnt -n --mountpoint /data >/dev/null 2>&1; then mount /data; changed "mounted /data"; fi

# ---------------------------------------------------------------- container image
mkdir -p /etc/containers/registries.conf.d
printf '%s\n' "$PV_PODMAN_STORAGE" | put_file /etc/containers/storage.conf 644 && changed "podman storage.conf"
printf '%s\n' "$PV_PODMAN_REGISTRIES" | put_file /etc/containers/registries.conf.d/50-provision-cluster.conf 644 && changed "registries.conf"
if ! podman image exists "$PV_IMAGE" 2>/dev/null; then podman pull -q --tls-verify=false "$PV_IMAGE" >/dev/null; changed "pulled $PV_IMAGE"; fi
digest=$(podman image inspect --format '{{.Digest}}' "$PV_IMAGE")
case $digest in sha256:*) ;; *) echo "no digest for $PV_IMAGE" >&2; exit 1 ;; esac

# ---------------------------------------------------------------- node-to-node SSH check
# The next node may still be converging (all nodes run at once): retry until its
# authorized_keys has the cluster key, for up to 120 s.
tries=0
until ssh -n -o BatchMode=yes -o StrictHostKeyChecking=yes -o UserKnownHostsFile=/dev/null \
    -o ConnectTimeout=5 "$PV_NEXT" true 2>/dev/null; do
    tries=$((tries + 1))
    [ "$tries" -lt 600 ] || { echo "ssh $PV_NEXT failed" >&2; exit 1; }
    sleep 0.2
done
echo "digest: $digest"
