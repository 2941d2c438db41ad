#!/usr/bin/env bash
# A real local SLURM cluster (munged + slurmctld + slurmd) on this host, for launchx tests.
#
#   scripts/slurm-local.sh start           install if missing, configure, start, wait until idle
#   scripts/slurm-local.sh stop [--purge]  cancel jobs, stop the daemons by pid file;
#                                          --purge also removes config, state, logs, /etc/hosts lines
#   scripts/slurm-local.sh status          exit 0 when the cluster answers and every node is usable
#
# Why real daemons and not a mock: launchx's SLURM path depends on what srun/sbatch actually
# do (signal forwarding, environment, requeue, hostlists). Debian 12's packages reach "idle"
# in a few seconds, so CI can afford them. Facts and pitfalls: shared/reference/slurm-local.md.
#
# Knobs (environment):
#   LAUNCHX_SLURM_NODES=2          virtual nodes on this host (lxnode1..N); 1 gives a single node
#   LAUNCHX_SLURM_CPUS=4           CPUs each node advertises (more than the real cores is fine:
#                                  SlurmdParameters=config_overrides; avoids tests queueing)
#   LAUNCHX_SLURM_MIN_JOB_AGE=5    seconds a finished job stays visible to scontrol; small so
#                                  `sbatch --wait` polls every 2 s (pitfall 7). Pollers of
#                                  `scontrol show job` must look within this window.
#   LAUNCHX_SLURM_KILL_WAIT=5      SIGTERM -> SIGKILL delay on cancel/time limit (pitfall 9)
#   LAUNCHX_SLURM_READY_TIMEOUT=60 seconds to wait for the nodes to become usable
#
# Found here (beyond the reference's pitfalls): proctrack/linuxproc cannot read a process
# whose command name contains a space (an exec'd script like "fake python"); such a process
# is never signalled, so cancel/requeue leaves the job COMPLETING until it exits by itself.
#
# Idempotent: `start` with the daemons up and the same config does nothing; with a changed
# config it restarts them. Daemons are stopped only by the pids in their pid files, never by
# name. Must run as root (it installs packages and starts daemons under their own users).
set -euo pipefail

NODES="${LAUNCHX_SLURM_NODES:-2}"
CPUS="${LAUNCHX_SLURM_CPUS:-4}"
MIN_JOB_AGE="${LAUNCHX_SLURM_MIN_JOB_AGE:-5}"
KILL_WAIT="${LAUNCHX_SLURM_KILL_WAIT:-5}"
READY_TIMEOUT="${LAUNCHX_SLURM_READY_TIMEOUT:-60}"

CONF_DIR=/etc/slurm
CONF="$CONF_DIR/slurm.conf"
CGROUP_CONF="$CONF_DIR/cgroup.conf"
STATE_DIR=/var/spool/slurmctld
SLURMD_SPOOL=/var/spool/slurmd
LOG_DIR=/var/log/slurm
CTLD_PID=/run/slurmctld.pid
MUNGE_PID=/run/munge/munged.pid
OUR_DIR=/run/launchx-slurm            # what this script started (so stop touches only that)
HOSTS_MARK="# launchx slurm-local"
NODE_PREFIX=lxnode
PACKAGES=(munge slurmctld slurmd slurm-client)

die() { echo "slurm-local: error: $*" >&2; exit 1; }
say() { echo "slurm-local: $*" >&2; }

need_root() {
  [[ $(id -u) -eq 0 ]] || die "must run as root (installs packages, starts daemons); try: sudo $0 $*"
}

validate_knobs() {
  local k
  for k in NODES CPUS MIN_JOB_AGE KILL_WAIT READY_TIMEOUT; do
    [[ ${!k} =~ ^[0-9]+$ ]] || die "LAUNCHX_SLURM_$k must be a whole number, got '${!k}'"
  done
  ((NODES >= 1 && NODES <= 16)) || die "LAUNCHX_SLURM_NODES must be 1..16, got $NODES"
  ((CPUS >= 1)) || die "LAUNCHX_SLURM_CPUS must be >= 1"
}

node_names() { local i; for ((i = 1; i <= NODES; i++)); do echo "$NODE_PREFIX$i"; done; }

conf_nodes() { # node count of the config on disk (status must not trust the knob)
  if [[ -f $CONF ]]; then grep -c '^NodeName=' "$CONF" || true; else echo 0; fi
}

# --- install ------------------------------------------------------------------------------
installed() {
  local p
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || return 1
  done
}

install_packages() {
  installed && return 0
  command -v apt-get >/dev/null || die "slurm packages are missing and there is no apt-get; \
install ${PACKAGES[*]} by hand"
  say "installing ${PACKAGES[*]}"
  # Package postinsts try to start the daemons through invoke-rc.d; without systemd that
  # half-works (pitfall 1). A policy-rc.d exiting 101 forbids it; add one only if absent.
  local added_policy=""
  if [[ ! -e /usr/sbin/policy-rc.d ]]; then
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
    chmod 0755 /usr/sbin/policy-rc.d
    added_policy=1
  fi
  local rc=0
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q --no-install-recommends "${PACKAGES[@]}" >/tmp/slurm-local-apt.log 2>&1 \
    || { apt-get update -q >>/tmp/slurm-local-apt.log 2>&1 \
         && apt-get install -y -q --no-install-recommends "${PACKAGES[@]}" \
            >>/tmp/slurm-local-apt.log 2>&1; } || rc=$?
  [[ -n $added_policy ]] && rm -f /usr/sbin/policy-rc.d
  ((rc == 0)) || die "apt-get install failed (rc $rc); see /tmp/slurm-local-apt.log"
  id slurm >/dev/null 2>&1 || die "package install did not create the 'slurm' user"
  [[ -s /etc/munge/munge.key ]] || die "package install did not create /etc/munge/munge.key"
}

# --- config -------------------------------------------------------------------------------
mem_mb_per_node() {
  local kb
  kb=$(awk '/^MemTotal:/ {print $2}' /proc/meminfo)
  echo $((kb / 1024 * 9 / 10 / NODES))
}

cgroup_v2_without_systemd() {
  [[ -e /sys/fs/cgroup/cgroup.controllers ]] && [[ $(ps -p 1 -o comm= 2>/dev/null) != systemd ]]
}

render_conf() {
  local host mem i
  host=$(hostname -s)
  mem=$(mem_mb_per_node)
  cat <<EOF
# Written by launchx scripts/slurm-local.sh; rewritten on every start.
ClusterName=launchx
SlurmctldHost=$host(127.0.0.1)
SlurmUser=slurm
SlurmdUser=root
SlurmctldPort=6817
AuthType=auth/munge
# Requeued jobs wait cred_expire before restarting: 10 s instead of 120 s (pitfall 8).
AuthInfo=cred_expire=10
StateSaveLocation=$STATE_DIR
SlurmdSpoolDir=$SLURMD_SPOOL/%n
SlurmctldPidFile=$CTLD_PID
SlurmdPidFile=/run/slurmd-%n.pid
SlurmctldLogFile=$LOG_DIR/slurmctld.log
SlurmdLogFile=$LOG_DIR/slurmd-%n.log
# No cgroups needed on a v1/hybrid host: track processes by /proc, no task binding.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
# Nodes may advertise more CPUs than the host has, so tests do not queue (pitfall 10).
SlurmdParameters=config_overrides
ReturnToService=2
MpiDefault=none
# There is no /bin/mail here (pitfall 3).
MailProg=/usr/bin/true
SchedulerParameters=sched_interval=2,bf_interval=2
KillWait=$KILL_WAIT
MinJobAge=$MIN_JOB_AGE
SlurmdTimeout=30
InactiveLimit=0
EOF
  for ((i = 1; i <= NODES; i++)); do
    echo "NodeName=$NODE_PREFIX$i NodeHostname=$host NodeAddr=127.0.0.1 Port=$((6817 + i))" \
      "CPUs=$CPUS RealMemory=$mem State=UNKNOWN"
  done
  echo "PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP"
}

write_conf() {
  # Prints "changed" when the config on disk was different (daemons must restart).
  install -d -m 0755 "$CONF_DIR"
  local new
  new=$(render_conf)
  if [[ -f $CONF ]] && [[ $(cat "$CONF") == "$new" ]]; then
    echo same
  else
    printf '%s\n' "$new" > "$CONF"
    chmod 0644 "$CONF"
    echo changed
  fi
  if cgroup_v2_without_systemd; then
    # slurmd 22.05 always loads a cgroup plugin; on a v2-only host without systemd it must
    # be told not to ask systemd for a scope (pitfall 12; untested on such a host).
    say "warning: cgroup v2 without systemd: writing $CGROUP_CONF (untested configuration)"
    printf 'CgroupPlugin=cgroup/v2\nIgnoreSystemd=yes\n' > "$CGROUP_CONF"
  elif [[ -f $CGROUP_CONF ]] && grep -q IgnoreSystemd "$CGROUP_CONF"; then
    rm -f "$CGROUP_CONF"
  fi
}

ensure_hosts() {
  # Node names end up in SLURM_JOB_NODELIST and MASTER_ADDR, so they must resolve (pitfall
  # 11). Rewrite in place: `sed -i` replaces the inode, which fails on a bind-mounted file.
  local name missing=()
  for name in $(hostname -s) $(node_names); do
    getent hosts "$name" >/dev/null || missing+=("$name")
  done
  ((${#missing[@]} == 0)) && return 0
  local content
  content=$(cat /etc/hosts)
  for name in "${missing[@]}"; do content+=$'\n'"127.0.0.1 $name $HOSTS_MARK"; done
  printf '%s\n' "$content" > /etc/hosts
}

remove_hosts_lines() {
  [[ -f /etc/hosts ]] && grep -q "$HOSTS_MARK" /etc/hosts || return 0
  local content
  content=$(grep -v "$HOSTS_MARK" /etc/hosts)
  printf '%s\n' "$content" > /etc/hosts
}

# --- processes ----------------------------------------------------------------------------
pid_alive() { # pidfile -> 0 if the pid in it runs
  local pid
  [[ -f $1 ]] || return 1
  pid=$(cat "$1" 2>/dev/null) || return 1
  [[ $pid =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null
}

munge_works() { munge -n 2>/dev/null | unmunge >/dev/null 2>&1; }

start_munge() {
  munge_works && return 0
  # No systemd, so nobody creates RuntimeDirectory=/run/munge (pitfall 2); the key belongs
  # to munge, so the daemon must run as munge.
  install -d -o munge -g munge -m 0755 /run/munge
  runuser -u munge -- /usr/sbin/munged
  install -d -m 0755 "$OUR_DIR"
  touch "$OUR_DIR/munged"
  wait_for 10 munge_works || die "munged did not answer within 10 s"
}

slurmd_pidfile() { echo "/run/slurmd-$1.pid"; }

all_daemons_alive() {
  local n
  pid_alive "$CTLD_PID" || return 1
  for n in $(node_names); do pid_alive "$(slurmd_pidfile "$n")" || return 1; done
}

wait_for() { # seconds command... : poll to a deadline
  local deadline=$((SECONDS + $1))
  shift
  until "$@"; do
    ((SECONDS < deadline)) || return 1
    sleep 0.2
  done
}

stop_pidfiles() { # pidfile... : SIGTERM together, then SIGKILL after 10 s (pitfall 15)
  local f pid pids=()
  for f in "$@"; do
    if pid_alive "$f"; then pids+=("$(cat "$f")"); fi
  done
  ((${#pids[@]} == 0)) && return 0
  kill -TERM "${pids[@]}" 2>/dev/null || true
  local deadline=$((SECONDS + 10)) alive
  while :; do
    alive=()
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive+=("$pid"); done
    ((${#alive[@]} == 0)) && break
    if ((SECONDS >= deadline)); then
      say "SIGKILL ${alive[*]} (did not exit 10 s after SIGTERM)"
      kill -KILL "${alive[@]}" 2>/dev/null || true
      break
    fi
    sleep 0.2
  done
  rm -f "$@"
}

slurm_pidfiles() {
  # Every slurmd pid file, including nodes of an earlier, larger config.
  local f
  echo "$CTLD_PID"
  for f in /run/slurmd-*.pid; do [[ -e $f ]] && echo "$f"; done
}

stop_slurm_daemons() {
  local files
  mapfile -t files < <(slurm_pidfiles)
  stop_pidfiles "${files[@]}"
}

start_slurm_daemons() {
  install -d -o slurm -g slurm -m 0755 "$STATE_DIR" "$LOG_DIR"
  # State saved by a slurmctld running as another user is unreadable (pitfall 5).
  chown -R slurm:slurm "$STATE_DIR" "$LOG_DIR"
  pid_alive "$CTLD_PID" || /usr/sbin/slurmctld
  local n
  for n in $(node_names); do
    install -d -m 0755 "$SLURMD_SPOOL/$n"
    pid_alive "$(slurmd_pidfile "$n")" || /usr/sbin/slurmd -N "$n"
  done
}

# --- readiness ----------------------------------------------------------------------------
nodes_registered_since() { # epoch : every node idle and its slurmd (re)started at/after epoch
  local n line state start
  for n in $(node_names); do
    line=$(scontrol -o show node "$n" 2>/dev/null) || return 1
    state=$(sed -n 's/.*\bState=\([^ ]*\).*/\1/p' <<<"$line")
    [[ $state == IDLE ]] || return 1
    # "idle" alone can be stale for SlurmdTimeout after slurmd died (pitfall 6).
    start=$(sed -n 's/.*\bSlurmdStartTime=\([^ ]*\).*/\1/p' <<<"$line")
    [[ -n $start && $start != None ]] || return 1
    (($(date -d "$start" +%s) >= $1)) || return 1
  done
}

probe() {
  timeout 20 srun --immediate=10 -N "$NODES" --ntasks-per-node=1 true >/dev/null 2>&1
}

wait_ready() { # epoch
  if ! wait_for "$READY_TIMEOUT" nodes_registered_since "$1"; then
    sinfo -N >&2 || true
    die "nodes not idle within ${READY_TIMEOUT}s; logs in $LOG_DIR"
  fi
  probe || die "probe job 'srun -N$NODES true' failed; logs in $LOG_DIR"
}

# --- commands -----------------------------------------------------------------------------
cmd_start() {
  need_root start
  validate_knobs
  local t0=$SECONDS
  install_packages
  ensure_hosts
  start_munge
  local changed
  changed=$(write_conf)
  if [[ $changed == same ]] && all_daemons_alive && probe; then
    say "already running ($NODES node(s)); nothing to do"
    return 0
  fi
  stop_slurm_daemons
  # SlurmdStartTime has one-second resolution; compare against the second we start in.
  local since
  since=$(date +%s)
  start_slurm_daemons
  wait_ready "$since"
  say "ready: $NODES node(s) ($(node_names | paste -sd, -)) in $((SECONDS - t0)) s"
}

cmd_stop() {
  need_root stop
  local purge=""
  [[ ${1:-} == --purge ]] && purge=1
  if command -v scancel >/dev/null && pid_alive "$CTLD_PID"; then
    local jobs
    jobs=$(squeue -h -o %i 2>/dev/null || true)
    # shellcheck disable=SC2086  # one job id per word
    [[ -n $jobs ]] && scancel $jobs 2>/dev/null || true
  fi
  stop_slurm_daemons
  if [[ -e $OUR_DIR/munged ]]; then
    stop_pidfiles "$MUNGE_PID"
    rm -f "$OUR_DIR/munged"
  fi
  if [[ -n $purge ]]; then
    rm -rf "$CONF" "$STATE_DIR" "$SLURMD_SPOOL" "$LOG_DIR" "$OUR_DIR"
    [[ -f $CGROUP_CONF ]] && grep -q IgnoreSystemd "$CGROUP_CONF" && rm -f "$CGROUP_CONF"
    remove_hosts_lines
  fi
  say "stopped${purge:+ and purged}"
}

cmd_status() {
  NODES=$(conf_nodes)
  ((NODES > 0)) || { say "not configured"; return 1; }
  command -v scontrol >/dev/null || { say "not installed"; return 1; }
  if ! pid_alive "$CTLD_PID" || ! scontrol ping >/dev/null 2>&1; then
    say "slurmctld not running"
    return 1
  fi
  sinfo -N -o '%N %T %c' >&2
  all_daemons_alive || { say "a slurmd is not running"; return 1; }
  say "up"
}

case "${1:-}" in
  start) shift; cmd_start "$@" ;;
  stop) shift; cmd_stop "$@" ;;
  status) shift; cmd_status "$@" ;;
  *) echo "usage: $0 start|stop [--purge]|status" >&2; exit 2 ;;
esac
