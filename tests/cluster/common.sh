# shellcheck shell=bash disable=SC2034  # sourced; the variables are used by the scripts
# Sourced by the scripts in tests/cluster/: names and places shared by up, down, onnode, nsrsh,
# mpirun-cluster and launch.  Every setting can be overridden from the environment.
#
#   KISHMEM_CLUSTER_DIR          state, logs, slurm.conf, namespace files   (/tmp/kishmem-cluster)
#   KISHMEM_CLUSTER_NET          first three octets of the private /24      (10.79.0)
#   KISHMEM_CLUSTER_BRIDGE       bridge in the root namespace               (kcbr0)
#   KISHMEM_CLUSTER_CTLD_PORT    slurmctld port                             (6827)
#   KISHMEM_CLUSTER_SLURMD_PORT  slurmd port (each host has its own stack)  (6828)
#
# Host i is named node<i> (hostname and Slurm NodeName), lives in the network namespace
# kc-node<i> with the interface kv0 at NET.(10+i); the root namespace is NET.1 on the bridge.
KC_DIR=${KISHMEM_CLUSTER_DIR:-/tmp/kishmem-cluster}
KC_NET=${KISHMEM_CLUSTER_NET:-10.79.0}
KC_BRIDGE=${KISHMEM_CLUSTER_BRIDGE:-kcbr0}
KC_CTLD_PORT=${KISHMEM_CLUSTER_CTLD_PORT:-6827}
KC_SLURMD_PORT=${KISHMEM_CLUSTER_SLURMD_PORT:-6828}
KC_IFACE=kv0
KC_NS_PREFIX=kc-
KC_CONF=$KC_DIR/slurm.conf
KC_MUNGE_SOCKET=$KC_DIR/munge/munge.socket
KC_HOSTS_BEGIN="# kishmem-cluster-begin"
KC_HOSTS_END="# kishmem-cluster-end"

# Number of hosts of the cluster that is (or was) up; 0 if none.
kc_nodes() { [[ -s $KC_DIR/nodes ]] && cat "$KC_DIR/nodes" || echo 0; }
