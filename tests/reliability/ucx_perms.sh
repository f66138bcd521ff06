#!/usr/bin/env bash
# tests/reliability/ucx_perms.sh TLS EXE PROBE: what a KISHMEM_REMOTE=ucx job (2 PEs, mpirun,
# UCX_TLS=TLS; "default" leaves UCX_TLS unset) makes is its own: every shared-memory object of
# the PEs (an open descriptor or a shared mapping: memfd, /dev/shm, System V) has mode 0600 and
# no name left in /dev/shm, and another user who is a member of the PEs' group reads nothing of
# them: not the /dev/shm entries, not the System V segments the PEs made (shmat by id), not
# /proc/PID/fd/N, not /proc/PID/mem at the heap.  Root only (it adds that user and group, and
# runs the job with the group as its group); skipped (77) otherwise.  EXE is rel_gone (case
# hold), PROBE rel_probe, which the other user runs.
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
(( $# == 3 )) || { echo "usage: $0 TLS EXE PROBE" >&2; exit 2; }
tls=$1 exe=$2 probe=$3
(( EUID == 0 )) || { echo "SKIP: needs root (adds a user and a group)"; exit 77; }
command -v useradd >/dev/null && command -v setpriv >/dev/null || { echo "SKIP: no useradd or setpriv"; exit 77; }

name=kishmem-perm$$
dir=$(mktemp -d /tmp/kishmem-perms.XXXXXX)
job=
cleanup() {
  [[ -n $job ]] && kill "$job" 2>/dev/null
  userdel "$name" 2>/dev/null
  groupdel "$name" 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
groupadd "$name" && useradd -M -N -g "$name" -s /usr/sbin/nologin "$name" || { echo "FAIL: cannot add user $name"; exit 1; }
gid=$(getent group "$name" | cut -d: -f3) uid=$(id -u "$name")
chmod 0755 "$dir"
cp "$probe" "$dir/probe" && chmod 0755 "$dir/probe" && probe=$dir/probe  # wherever the build is, the user runs it
as_other() { setpriv --reuid="$uid" --regid="$gid" --clear-groups -- "$@"; }

# The probe can read what the group may read: a file of mode 0640 in the PEs' group.
echo secret > "$dir/group-readable" && chgrp "$name" "$dir/group-readable" && chmod 0640 "$dir/group-readable"
control=$(as_other "$probe" "file:$dir/group-readable")
[[ $control == READ* ]] || { echo "$control"; echo "FAIL: the probe cannot read a group-readable file"; exit 1; }
rm -f "$dir/group-readable"

envs=(KISHMEM_REMOTE=ucx SHMEM_SYMMETRIC_SIZE=64M)
[[ $tls == default ]] && unset UCX_TLS || envs+=(UCX_TLS="$tls")
mkdir "$dir/run" && chmod 0777 "$dir/run"
setpriv --regid="$gid" --clear-groups -- env "${envs[@]}" "$HERE/../launch.sh" mpirun 2 60 -- "$exe" hold "$dir/run" \
  > "$dir/job.out" 2>&1 &
job=$!
for _ in $(seq 1 300); do
  [[ -f $dir/run/pe0.ready && -f $dir/run/pe1.ready ]] && break
  kill -0 "$job" 2>/dev/null || break
  sleep 0.1
done
[[ -f $dir/run/pe0.ready && -f $dir/run/pe1.ready ]] || { cat "$dir/job.out"; echo "FAIL: the PEs never got ready"; exit 1; }

bad=0
attempts=()
pids=()
for pe in 0 1; do
  read -r pid heap < "$dir/run/pe$pe.ready"
  pids+=("$pid")
  attempts+=("mem:$pid:${heap#0x}")
  # Every open descriptor and shared mapping backed by shared memory.
  for fd in /proc/"$pid"/fd/*; do
    target=$(readlink "$fd") || continue
    case $target in
      /memfd:*|/dev/shm/*|/SYSV*)
        mode=$(stat -L -c %a "$fd")
        echo "PE $pe: fd ${fd##*/} -> $target, mode $mode"
        [[ $mode == 600 ]] || { echo "FAIL: PE $pe: $target has mode $mode, not 600"; bad=1; }
        [[ $target == *"(deleted)" ]] || { echo "FAIL: PE $pe: $target still has a name"; bad=1; }
        attempts+=("file:$fd") ;;
    esac
  done
  while read -r range perms _ _ _ path; do
    [[ $perms == *s ]] || continue
    case $path in
      /memfd:*|/dev/shm/*|/SYSV*) echo "PE $pe: shared mapping $range $path" ;;
      *) continue ;;
    esac
    [[ $path == /dev/shm/* && $path != *"(deleted)"* ]] && { echo "FAIL: PE $pe maps $path, which has a name"; bad=1; }
  done < /proc/"$pid"/maps
done
# System V segments the PEs made (ipcs -mp: shmid, owner, cpid, lpid) and their modes.
while read -r id _ cpid _; do
  [[ $id =~ ^[0-9]+$ ]] || continue
  [[ " ${pids[*]} " == *" $cpid "* ]] || continue
  perms=$(ipcs -m -i "$id" | sed -n 's/.*mode=\([0-7]*\).*/\1/p' | tail -c 4)
  echo "System V segment $id made by PE process $cpid, mode $perms"
  [[ $perms == 600 ]] || { echo "FAIL: System V segment $id has mode $perms, not 600"; bad=1; }
  attempts+=("shm:$id")
done < <(ipcs -mp)
# New names in /dev/shm while the job runs (the job's: in its group; other jobs of this machine
# may come and go meanwhile).
shm_of_job() { find /dev/shm -mindepth 1 -maxdepth 1 -group "$gid" -printf '%f\n' | sort; }
for entry in $(shm_of_job); do
  mode=$(stat -c %a "/dev/shm/$entry" 2>/dev/null) || continue
  echo "/dev/shm/$entry, mode $mode, while the job runs"
  [[ $mode == 600 ]] || { echo "FAIL: /dev/shm/$entry has mode $mode"; bad=1; }
  attempts+=("file:/dev/shm/$entry")
done

echo "as user $name (group $name, the PEs' group):"
as_other "$probe" "${attempts[@]}" || { echo "FAIL: user $name read part of the job"; bad=1; }

touch "$dir/run/done"
wait "$job"
rc=$?
job=
cat "$dir/job.out"
(( rc == 0 )) || { echo "FAIL: the job ended with status $rc"; bad=1; }
left=$(shm_of_job)
[[ -z $left ]] || { echo "FAIL: left in /dev/shm: $left"; bad=1; }
(( bad == 0 )) || exit 1
echo "PASS ucx_perms $tls"
