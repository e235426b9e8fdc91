#!/bin/sh
# provision, as installed from its package or archive: a Java runtime of its own (jlink) and the
# class-data archive in ../lib/provision, the jar and the bundled playbooks and templates in
# ../share/provision, all found relative to this script, so the tree runs wherever it is unpacked.
# No JDK is needed on the machine.
# PROVISION_JAVA_OPTS adds JVM options (-Xmx for thousands of hosts, -XX:TieredStopAtLevel=4 for C2).
set -eu
# Exit codes of this script, before Java starts: 5 (as a usage error) for a current directory this user
# cannot use, 1 for a broken installation. The JVM itself fails on the first ("Error occurred during
# initialization of VM", exit 1), and relative paths could not be read in it anyway. Entering the
# directory is what is needed (-x), not listing it.
cwd=$(pwd -P 2>/dev/null) || cwd=
if [ -z "$cwd" ]; then
  echo "provision: the current directory no longer exists: cd to another one and run provision again" >&2
  exit 5
elif [ ! -x . ]; then
  echo "provision: cannot read the current directory $cwd (permission denied): cd to a directory you can read and run provision again" >&2
  exit 5
fi
self=$(readlink -f "$0")
prefix=$(cd "$(dirname "$self")/.." && pwd)
lib="$prefix/lib/provision"
java="$lib/runtime/bin/java"
if [ ! -x "$java" ]; then
  echo "provision: its Java runtime $java is missing; reinstall the package or unpack the archive again" >&2
  exit 1
fi
# The class-data archive of the classes a run loads, made for this runtime and jar when the package
# was built: start-up is a large part of a short run. C1 only: a controller mostly waits on its hosts.
# UserThreadWaitAttemptsAtExit=0: no 300 ms wait at exit for threads blocked in native code (the
# virtual threads' I/O poller always is).
cds=
if [ -r "$lib/provision.jsa" ]; then
  cds="-XX:SharedArchiveFile=$lib/provision.jsa -Xlog:cds=off -Xlog:cds+dynamic=off"
fi
# shellcheck disable=SC2086
exec "$java" -XX:+UseSerialGC -Xss512k -XX:TieredStopAtLevel=1 -XX:ReservedCodeCacheSize=128m -XX:UserThreadWaitAttemptsAtExit=0 -Djava.awt.headless=true $cds ${PROVISION_JAVA_OPTS:-} \
  -Dprovision.home="$prefix/share/provision" -Dprovision.command="$(basename "$0")" -jar "$prefix/share/provision/provision.jar" "$@"
