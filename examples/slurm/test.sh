#!/usr/bin/env bash
# Tests em-loop.sh / em-iteration.sh against a real Slurm: munged,
# slurmctld and slurmd started here as this user, with their own key,
# socket, ports, state and spool in a temporary directory (no systemd, no
# cgroups: proctrack/linuxproc, task/none, no accounting; one node,
# 127.0.0.1, 4 CPUs). Then:
#   1. DMV EM, iterations 1-2: in iteration 1 array task 2 is made to fail
#      (estep exits 1) and in iteration 2 task 3 is lost (cancelled with
#      scancel while it runs): each is found by its missing counts and only
#      it is submitted again.
#   2. Iteration 3 with --passes 1 and task 1 made to fail: the run fails,
#      writing no model; run again, it submits task 1 alone.
#   3. Iteration 4: the driver (em-loop.sh and everything under it) is
#      killed while the array job runs; run again, it waits for that job
#      and submits nothing. The model equals train-em --max-iter 4 --tol 0
#      to 1e-9 (relative) on every parameter.
#   4. The schedules — DA, skewed DA, Viterbi EM, SA by Model L and by
#      Model S — against train-da, train-em --hard and train-sa; and the
#      other families, on the first 1,500 sentences — CCM by EM and by SDA
#      (the random-split skew), DMV+CCM, HMM — against train-ccm and
#      train-hmm, each to 1e-9.
#   5. Hostile schedule lines and flags (sbatch's too) are refused before
#      anything is submitted, and a run whose every file name holds spaces,
#      quotes, backslashes, %, ";", "`…`" and "$(…)", one task's counts
#      garbled and the cluster's MaxArraySize lowered to 3 (its three shards
#      then take two jobs), equals train-em; no payload ever runs.
# The daemons are stopped by their PIDs whatever happens. Data: UD English
# ≤10 from ../shared/data (or $GRIND_SHARED_DATA) when present, else the
# treebank grind ships. Needs slurmctld, slurmd, sbatch, squeue, scancel,
# sinfo, scontrol, munged, munge and jq (Debian: slurmctld slurmd
# slurm-client munge jq): without them, or when the daemons do not start or
# cannot run a trivial job, it says "skipped:" and why, and exits 0 —
# unless GRIND_REQUIRE_SLURM=1 makes that an error.
set -euo pipefail
cd "$(dirname "$0")"
here=$PWD
repo=$(cd ../.. && pwd)
bin=$repo/bin
PATH=$bin:$PATH:/usr/sbin:/sbin
started=$SECONDS

skip() {
	if [ "${GRIND_REQUIRE_SLURM:-}" = 1 ]; then
		echo "slurm test: FAIL: $*" >&2
		exit 1
	fi
	echo "slurm test: skipped: $*"
	exit 0
}
fail() {
	echo "slurm test: FAIL: $*" >&2
	exit 1
}
say() { echo "[$((SECONDS - started)) s] $*"; }

for t in slurmctld slurmd sbatch squeue scancel sinfo scontrol munged munge jq; do
	command -v "$t" > /dev/null || skip "$t not installed (Debian: apt-get install slurmctld slurmd slurm-client munge jq)"
done
[ -x "$bin/estep" ] || make -s -C "$repo" build
# Nothing of the caller's cluster: this test's slurm.conf, no sbatch defaults.
unset $(env | sed -n 's/^\(SBATCH_[A-Za-z_]*\|SLURM_[A-Za-z_]*\)=.*/\1/p') 2> /dev/null || true

tmp=$(mktemp -d /tmp/grind-slurm.XXXXXX)
# munged wants its socket's directory (and those above it) searchable by all.
chmod 755 "$tmp"
pids=()
descendants() { # one pass over /proc: every live process under $1
	{ cat /proc/[0-9]*/stat 2> /dev/null || true; } | awk -v root="$1" '
		{
			rest = $0; sub(/^.*\) /, "", rest); split(rest, f, " ")
			if (f[1] != "Z") parent[$1] = f[2]
		}
		END {
			want[root] = 1
			do {
				more = 0
				for (p in parent) if (!(p in want) && (parent[p] in want)) { want[p] = 1; more = 1 }
			} while (more)
			for (p in want) if (p != root) print p
		}'
}
# stop PID: TERM, then KILL after 10 s; the PID's children too.
stop() {
	local p=$1 i kids
	kids=$(descendants "$p")
	kill -TERM "$p" 2> /dev/null || return 0
	for i in $(seq 100); do
		kill -0 "$p" 2> /dev/null || break
		sleep 0.1
	done
	kill -9 "$p" $kids 2> /dev/null || true
	wait "$p" 2> /dev/null || true
}
cleanup() {
	local i p
	# the jobs of this test's controller, then the daemons, newest first
	[ ! -e "$tmp/slurm.conf" ] || timeout 10 scancel --user "$(id -un)" 2> /dev/null || true
	for ((i = ${#pids[@]} - 1; i >= 0; i--)); do stop "${pids[$i]}"; done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# munge: its own key, socket, pid and log files.
mkdir -m 700 "$tmp/munge"
mkdir -m 755 "$tmp/sock"
head -c 1024 /dev/urandom > "$tmp/munge/key"
chmod 400 "$tmp/munge/key"
munged --foreground --socket="$tmp/sock/munge.socket" --key-file="$tmp/munge/key" \
	--pid-file="$tmp/munge/munged.pid" --log-file="$tmp/munge/log" --seed-file="$tmp/munge/seed" 2> "$tmp/munge/stderr" &
pids+=($!)
for i in $(seq 50); do
	[ -S "$tmp/sock/munge.socket" ] && break
	kill -0 "${pids[0]}" 2> /dev/null || break
	sleep 0.1
done
munge --socket="$tmp/sock/munge.socket" -n > /dev/null 2>&1 ||
	skip "munged did not start: $(tail -n 1 "$tmp/munge/stderr" "$tmp/munge/log" 2> /dev/null | grep . | tail -n 1)"

# Slurm: one controller and one node on 127.0.0.1, on free high ports, as
# this user; jobs scheduled as soon as they are submitted.
me=$(id -un)
mkdir -p "$tmp/state" "$tmp/spool" "$tmp/log"
free() { ! (exec 3<> "/dev/tcp/127.0.0.1/$1") 2> /dev/null; }
up=""
for try in 1 2 3; do
	port=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
	free "$port" && free $((port + 1)) || continue
	cat > "$tmp/slurm.conf" <<-EOF
		ClusterName=grindtest
		SlurmctldHost=$(hostname -s)(127.0.0.1)
		SlurmctldPort=$port
		SlurmdPort=$((port + 1))
		SlurmUser=$me
		SlurmdUser=$me
		AuthType=auth/munge
		CredType=cred/munge
		AuthInfo=socket=$tmp/sock/munge.socket
		StateSaveLocation=$tmp/state
		SlurmdSpoolDir=$tmp/spool
		SlurmctldPidFile=$tmp/slurmctld.pid
		SlurmdPidFile=$tmp/slurmd.pid
		SlurmctldLogFile=$tmp/log/slurmctld.log
		SlurmdLogFile=$tmp/log/slurmd.log
		MailProg=/bin/true
		ProctrackType=proctrack/linuxproc
		TaskPlugin=task/none
		JobAcctGatherType=jobacct_gather/none
		AccountingStorageType=accounting_storage/none
		JobCompType=jobcomp/none
		SwitchType=switch/none
		MpiDefault=none
		SchedulerType=sched/backfill
		SchedulerParameters=batch_sched_delay=0,sched_min_interval=0
		SelectType=select/cons_tres
		SelectTypeParameters=CR_CPU
		SlurmdParameters=config_overrides
		ReturnToService=2
		MinJobAge=600
		NodeName=grindnode NodeAddr=127.0.0.1 NodeHostname=localhost CPUs=4 RealMemory=1000 State=UNKNOWN
		PartitionName=grind Nodes=grindnode Default=YES MaxTime=60 State=UP
	EOF
	export SLURM_CONF=$tmp/slurm.conf
	slurmctld -D -f "$SLURM_CONF" > "$tmp/log/slurmctld.stderr" 2>&1 &
	ctld=$!
	pids+=("$ctld")
	slurmd -D -f "$SLURM_CONF" -N grindnode > "$tmp/log/slurmd.stderr" 2>&1 &
	pids+=($!)
	for i in $(seq 150); do
		[ "$(sinfo --noheader --nodes grindnode --format %t 2> /dev/null)" = idle ] && { up=1; break; }
		kill -0 "$ctld" 2> /dev/null && kill -0 "${pids[-1]}" 2> /dev/null || break
		sleep 0.2
	done
	[ -z "$up" ] || break
	stop "${pids[-1]}"; unset 'pids[-1]'
	stop "$ctld"; unset 'pids[-1]'
	# Another try, on other ports, only when these were taken meanwhile.
	grep -q -i 'address already in use' "$tmp"/log/* 2> /dev/null || break
	rm -rf "$tmp/state"/* "$tmp/spool"/* "$tmp"/log/*
done
[ -n "$up" ] || skip "slurmctld and slurmd did not start: $(grep -h -i -E 'error|fatal' "$tmp"/log/* 2> /dev/null | grep -v -i pmix | tail -n 1)"
version=$(sinfo --version)
# A trivial job first: a Slurm that starts but cannot run jobs here (as
# this user, in this container) is a reason to skip, not a failure.
trivial=$(sbatch --parsable --output=/dev/null --wrap=true 2> "$tmp/log/trivial") ||
	skip "Slurm started but refused a trivial job: $(tail -n 1 "$tmp/log/trivial")"
for i in $(seq 300); do
	state=$(squeue --noheader --states all --jobs "$trivial" --format %T 2> /dev/null) || true
	case $state in COMPLETED | FAILED | CANCELLED | NODE_FAIL | TIMEOUT | OUT_OF_MEMORY | BOOT_FAIL) break ;; esac
	sleep 0.2
done
[ "$state" = COMPLETED ] ||
	skip "Slurm started but a trivial job did not run (${state:-gone}): $(grep -h -i -E 'error|fatal' "$tmp"/log/slurmd.log 2> /dev/null | grep -v -i pmix | tail -n 1)"

# The corpus and the start.
ud=${GRIND_SHARED_DATA:-$repo/../shared/data}/ud-nopunct/en-ud-train-nopunct-len15.conllu
if [ -r "$ud" ]; then
	data="UD English ≤10"
	conll2deps --tag xpos "$ud" | filterlen 10 > "$tmp/corpus.jsonl"
else
	data="examples/treebank ≤10 (../shared/data is absent)"
	ptb2deps ../treebank/*.mrg | filterlen 10 > "$tmp/corpus.jsonl"
fi
sentences=$(wc -l < "$tmp/corpus.jsonl")
per=$(((sentences + 2) / 3)) # three shards
dmv-init --init km "$tmp/corpus.jsonl" > "$tmp/start.jsonl"
echo "slurm test: $data, $sentences sentences in 3 shards; $version, slurmctld and slurmd on 127.0.0.1:$port and :$((port + 1)), one node of 4 CPUs"

# An estep that misbehaves once where $tmp/faults says: lines of
# "ITERATION SHARD fail|garble|sleep SECONDS".
faults=$tmp/faults
: > "$faults"
cat > "$tmp/faulty-estep" <<-EOF
	#!/bin/bash
	# estep-task.sh runs: estep -m ITER/model.jsonl … -o ITER/SHARD.counts shards/SHARD.jsonl
	iter=\${2%%/*} shard=\$(basename "\${@: -1}" .jsonl)
	while read -r it sh what arg; do
		[ "\$it" = "\$iter" ] && [ "\$sh" = "\$shard" ] || continue
		[ ! -e "$faults.\$it.\$sh" ] || continue
		: > "$faults.\$it.\$sh"
		case \$what in
		fail) echo "faulty-estep: \$iter \$shard made to fail" >&2; exit 1 ;;
		garble) for a; do [ "\$prev" = -o ] && echo '{"ev":"header"' > "\$a"; prev=\$a; done; exit 0 ;;
		sleep) sleep "\$arg" ;;
		esac
	done < "$faults"
	exec "$bin/estep" "\$@"
EOF
chmod +x "$tmp/faulty-estep"

run=$tmp/run
loop() {
	"$here/em-loop.sh" --estep "$tmp/faulty-estep" --per "$per" --run-dir "$run" --poll 0.2 \
		--partition grind --time 10 "$@" "$tmp/corpus.jsonl" "$tmp/start.jsonl"
}
# tasks ITER: the submissions of an iteration, "job J, shards S" each, with
# the state Slurm gives each task ("2 FAILED").
tasks() {
	local j t
	while read -r j t; do
		printf 'job %s, shards %s: tasks %s\n' "$j" "$t" \
			"$(squeue --noheader --states all --jobs "$j" --format '%K %T' 2> /dev/null | sort -n | tr '\n' ' ' | sed 's/ $//')"
	done < "$run/$1/jobs" | paste -s -d';' | sed 's/;/; /g'
}
submissions() { awk '{ print $2 }' "$run/$1/jobs" | tr '\n' ' ' | sed 's/ $//'; }
compare() { "$here/../compare-models.sh" "$1" "$2"; }
within() { awk -v d="$1" 'BEGIN { exit !(d <= 1e-9) }'; }
worst=0
# check NAME ONE SHARDED: the largest relative difference, within 1e-9.
check() {
	local n d rest
	read -r n d rest < <(compare "$2" "$3") || fail "$1: the models differ in their records"
	say "$1: $n parameters, largest relative difference $d"
	within "$d" || fail "$1: the models differ by more than 1e-9"
	worst=$(printf '%s\n%s\n' "$worst" "$d" | sort -g | tail -n 1)
}

# 1. Iterations 1-2: task 2 of iteration 1 fails, task 3 of iteration 2 is
# cancelled while it runs.
printf 'iter-0001 shard-000002 fail\niter-0002 shard-000003 sleep 60\n' > "$faults"
loop --iterations 2 > /dev/null 2> "$tmp/loop1.log" &
looppid=$!
pids+=("$looppid")
cancelled=""
deadline=$((SECONDS + 90))
while [ $SECONDS -lt $deadline ] && kill -0 "$looppid" 2> /dev/null; do
	if [ -e "$faults.iter-0002.shard-000003" ] && [ -s "$run/iter-0002/jobs" ]; then
		job=$(awk 'NR == 1 { print $1 }' "$run/iter-0002/jobs")
		[ "$(squeue --noheader --jobs "${job}_3" --format %T 2> /dev/null)" = RUNNING ] || { sleep 0.1; continue; }
		scancel "${job}_3"
		cancelled="${job}_3"
		break
	fi
	sleep 0.1
done
status=0
wait "$looppid" || status=$?
unset 'pids[-1]'
[ "$status" = 0 ] || { cat "$tmp/loop1.log" >&2; fail "iterations 1-2 did not finish"; }
[ -n "$cancelled" ] || fail "never saw task 3 of iteration 2 run"
say "iteration 1: $(tasks iter-0001)"
say "iteration 2: $(tasks iter-0002) (task $cancelled cancelled by scancel while it ran)"
[ "$(submissions iter-0001)" = "1-3 2" ] || fail "iteration 1: submitted $(submissions iter-0001), not 1-3 then 2 alone"
[ "$(submissions iter-0002)" = "1-3 3" ] || fail "iteration 2: submitted $(submissions iter-0002), not 1-3 then 3 alone"
grep -q 'made to fail' "$run"/iter-0001/slurm-*_2.out || fail "task 2's output does not say it failed"

# 2. Iteration 3, one submission only, task 1 fails: no model; run again,
# task 1 alone is submitted.
printf 'iter-0003 shard-000001 fail\n' > "$faults"
if loop --iterations 3 --passes 1 > /dev/null 2> "$tmp/loop2.log"; then
	fail "iteration 3 with a failed task and --passes 1 succeeded"
fi
[ ! -e "$run/model-0003.jsonl" ] || fail "a failed iteration 3 wrote its model"
say "iteration 3 with --passes 1 failed as it should ($(tail -n 1 "$tmp/loop2.log" | sed 's/ (see .*//'))"
loop --iterations 3 > /dev/null 2> "$tmp/loop3.log" || { cat "$tmp/loop3.log" >&2; fail "iteration 3 run again failed"; }
[ "$(submissions iter-0003)" = "1-3 1" ] || fail "iteration 3: submitted $(submissions iter-0003), not 1-3 then 1 alone"
say "iteration 3 run again: $(tasks iter-0003)"

# 3. Iteration 4: the driver killed while the job runs; run again, it
# waits for that job and submits nothing.
printf 'iter-0004 shard-000002 sleep 3\n' > "$faults"
loop --iterations 4 > /dev/null 2> "$tmp/loop4.log" &
looppid=$!
disown "$looppid" # killed on purpose: no "Killed" notice
pids+=("$looppid")
deadline=$((SECONDS + 60))
while [ $SECONDS -lt $deadline ] && ! [ -e "$faults.iter-0004.shard-000002" ]; do sleep 0.1; done
[ -e "$faults.iter-0004.shard-000002" ] || { cat "$tmp/loop4.log" >&2; fail "iteration 4's task 2 never ran"; }
kill -9 "$looppid" $(descendants "$looppid") 2> /dev/null || true
unset 'pids[-1]'
job=$(awk 'NR == 1 { print $1 }' "$run/iter-0004/jobs")
state=$(squeue --noheader --states all --jobs "$job" --format '%K %T' | sort -n | tr '\n' ' ')
say "iteration 4: the driver killed while job $job ran (tasks: ${state% })"
loop --iterations 4 > "$tmp/em-slurm.jsonl" 2> "$tmp/loop5.log" || { cat "$tmp/loop5.log" >&2; fail "iteration 4 run again failed"; }
[ "$(submissions iter-0004)" = "1-3" ] || fail "iteration 4 run again submitted $(submissions iter-0004)"
say "iteration 4 run again: waited for job $job, submitted nothing: $(tasks iter-0004)"
train-em -m "$tmp/start.jsonl" --max-iter 4 --tol 0 --quiet "$tmp/corpus.jsonl" > "$tmp/em-one.jsonl"
check "EM, 4 iterations, vs train-em --max-iter 4 --tol 0" "$tmp/em-one.jsonl" "$tmp/em-slurm.jsonl"

# 4. The schedules and the families, each against its one-process trainer
# (a new run directory each; the tasks at most two at a time).
: > "$faults"
# The other families on the first 1,500 sentences (their models are larger
# and slower to compare), in three shards too.
head -n 1500 "$tmp/corpus.jsonl" > "$tmp/small.jsonl"
small_n=$(wc -l < "$tmp/small.jsonl")
small_per=$(((small_n + 2) / 3))
sched() { # sched NAME CORPUS PER START [em-loop.sh flags...] > model
	local name=$1 corpus=$2 per=$3 start=$4
	shift 4
	"$here/em-loop.sh" --estep "$bin/estep" --per "$per" --run-dir "$tmp/$name" --poll 0.2 --max-running 2 \
		--account grind --sbatch-arg --mem=100 "$@" "$corpus" "$start" 2> "$tmp/$name.log" ||
		{ cat "$tmp/$name.log" >&2; fail "the $name run failed"; }
}
printf '1 --beta 0.5\n1\n' > "$tmp/da.schedule"
sched da "$tmp/corpus.jsonl" "$per" "$tmp/start.jsonl" --schedule "$tmp/da.schedule" > "$tmp/da-slurm.jsonl"
train-da -m "$tmp/start.jsonl" --beta0 0.5 --gamma 2 --max-iter 1 --tol 0 --quiet "$tmp/corpus.jsonl" > "$tmp/da-one.jsonl"
check "DA, β 0.5 then 1, vs train-da --beta0 0.5 --gamma 2 --max-iter 1 --tol 0" "$tmp/da-one.jsonl" "$tmp/da-slurm.jsonl"

printf '1 --beta 0.5 --skew %q\n1\n' "$tmp/start.jsonl" > "$tmp/sda.schedule"
sched sda "$tmp/corpus.jsonl" "$per" "$tmp/start.jsonl" --schedule "$tmp/sda.schedule" > "$tmp/sda-slurm.jsonl"
train-da -m "$tmp/start.jsonl" --skew --beta0 0.5 --gamma 2 --max-iter 1 --tol 0 --quiet "$tmp/corpus.jsonl" > "$tmp/sda-one.jsonl"
check "SDA, β 0.5 then 1, vs train-da --skew --beta0 0.5 --gamma 2 --max-iter 1 --tol 0" "$tmp/sda-one.jsonl" "$tmp/sda-slurm.jsonl"

printf '2 --hard\n' > "$tmp/viterbi.schedule"
sched viterbi "$tmp/corpus.jsonl" "$per" "$tmp/start.jsonl" --schedule "$tmp/viterbi.schedule" --lambda 1 > "$tmp/viterbi-slurm.jsonl"
train-em -m "$tmp/start.jsonl" --hard --lambda 1 --max-iter 2 --tol 0 --quiet "$tmp/corpus.jsonl" > "$tmp/viterbi-one.jsonl"
check "Viterbi EM (λ 1), 2 iterations, vs train-em --hard --lambda 1 --max-iter 2 --tol 0" "$tmp/viterbi-one.jsonl" "$tmp/viterbi-slurm.jsonl"

printf '1 --delta -0.6\n1 --delta 0.1\n' > "$tmp/sa.schedule"
sched sa "$tmp/corpus.jsonl" "$per" "$tmp/start.jsonl" --schedule "$tmp/sa.schedule" --lambda 1 > "$tmp/sa-slurm.jsonl"
train-sa -m "$tmp/start.jsonl" --lambda 1 --delta0 -0.6 --delta-step 0.7 --delta-final 0.1 --max-iter 1 --tol 0 --quiet "$tmp/corpus.jsonl" > "$tmp/sa-one.jsonl"
check "SA (Model L, λ 1), δ -0.6 then 0.1, vs train-sa --delta0 -0.6 --delta-step 0.7 --delta-final 0.1 --max-iter 1 --tol 0" "$tmp/sa-one.jsonl" "$tmp/sa-slurm.jsonl"

printf '1 --seg-beta -1\n1 --seg-beta 0\n' > "$tmp/sas.schedule"
sched sas "$tmp/corpus.jsonl" "$per" "$tmp/start.jsonl" --schedule "$tmp/sas.schedule" --lambda 1 > "$tmp/sas-slurm.jsonl"
train-sa -m "$tmp/start.jsonl" --lambda 1 --seg-beta0 -1 --seg-beta-step 1 --seg-beta-final 0 --max-iter 1 --tol 0 --quiet "$tmp/corpus.jsonl" > "$tmp/sas-one.jsonl"
check "SA (Model S, λ 1), β -1 then 0, vs train-sa --seg-beta0 -1 --seg-beta-step 1 --seg-beta-final 0 --max-iter 1 --tol 0" "$tmp/sas-one.jsonl" "$tmp/sas-slurm.jsonl"

train-ccm --quiet --model ccm --max-iter 0 --save-model "$tmp/ccm-start.jsonl" "$tmp/small.jsonl" > /dev/null
sched ccm "$tmp/small.jsonl" "$small_per" "$tmp/ccm-start.jsonl" --iterations 2 > "$tmp/ccm-slurm.jsonl"
train-ccm --quiet --model ccm --max-iter 2 --tol 0 --save-model "$tmp/ccm-one.jsonl" "$tmp/small.jsonl" > /dev/null
check "CCM ($small_n sentences), 2 iterations, vs train-ccm --max-iter 2 --tol 0" "$tmp/ccm-one.jsonl" "$tmp/ccm-slurm.jsonl"

printf '1 --beta 0.5 --split-skew\n1\n' > "$tmp/ccm-sda.schedule"
sched ccm-sda "$tmp/small.jsonl" "$small_per" "$tmp/ccm-start.jsonl" --schedule "$tmp/ccm-sda.schedule" > "$tmp/ccm-sda-slurm.jsonl"
train-ccm --quiet --model ccm --estimator sda --skew split --beta0 0.5 --gamma 2 --max-iter 1 --tol 0 --save-model "$tmp/ccm-sda-one.jsonl" "$tmp/small.jsonl" > /dev/null
check "CCM ($small_n sentences) by SDA (random-split skew), β 0.5 then 1, vs train-ccm --estimator sda --beta0 0.5 --gamma 2 --max-iter 1 --tol 0" "$tmp/ccm-sda-one.jsonl" "$tmp/ccm-sda-slurm.jsonl"

train-ccm --quiet --model dmvccm --max-iter 0 --save-model "$tmp/dmvccm-start.jsonl" "$tmp/small.jsonl" > /dev/null
sched dmvccm "$tmp/small.jsonl" "$small_per" "$tmp/dmvccm-start.jsonl" --iterations 2 > "$tmp/dmvccm-slurm.jsonl"
train-ccm --quiet --model dmvccm --max-iter 2 --tol 0 --save-model "$tmp/dmvccm-one.jsonl" "$tmp/small.jsonl" > /dev/null
check "DMV+CCM ($small_n sentences), 2 iterations, vs train-ccm --model dmvccm --max-iter 2 --tol 0" "$tmp/dmvccm-one.jsonl" "$tmp/dmvccm-slurm.jsonl"

train-hmm --quiet --states 8 --max-iter 1 --save-model "$tmp/hmm-start.jsonl" "$tmp/small.jsonl" > /dev/null
sched hmm "$tmp/small.jsonl" "$small_per" "$tmp/hmm-start.jsonl" --iterations 2 > "$tmp/hmm-slurm.jsonl"
train-hmm --quiet --states 8 -m "$tmp/hmm-start.jsonl" --max-iter 2 --tol 0 --save-model "$tmp/hmm-one.jsonl" "$tmp/small.jsonl" > /dev/null
check "HMM (8 states, $small_n sentences), 2 iterations, vs train-hmm -m START --max-iter 2 --tol 0" "$tmp/hmm-one.jsonl" "$tmp/hmm-slurm.jsonl"

# 5. Nothing given to the scripts reaches a shell. Every payload would make
# a file named canary (where it ran: this folder, a run directory, or $tmp).
canary=$tmp/canary
ran() { [ -e "$canary" ] || [ -n "$(find "$tmp" "$here" -name canary -print -quit)" ]; }
weird=$tmp/$'w \'q" \\b %j %% $(touch${IFS}canary) `touch canary`;touch${IFS}canary;x'
mkdir -p "$weird"
cp "$tmp/corpus.jsonl" "$weird/corpus \$(touch canary).jsonl"
cp "$tmp/start.jsonl" "$weird/start ;touch canary;'\".jsonl"
hostile_lines=(
	"1 --beta 1;touch\${IFS}$canary;true"
	"1 --beta \$(touch\${IFS}$canary)"
	"1 --beta 0.5 --skew x;touch\${IFS}$canary"
	"1; touch $canary"
	"1 --hard\`touch $canary\`"
	"1 --beta '0.5"
)
for line in "${hostile_lines[@]}"; do
	printf '1\n%s\n' "$line" > "$weird/hostile.schedule"
	if "$here/em-loop.sh" --estep "$bin/estep" --per "$per" --run-dir "$weird/refused" --schedule "$weird/hostile.schedule" \
		"$weird/corpus \$(touch canary).jsonl" "$weird/start ;touch canary;'\".jsonl" > /dev/null 2> "$tmp/hostile.log"; then
		fail "schedule line $line was taken"
	fi
	grep -q '^em-loop.sh: schedule line 2: ' "$tmp/hostile.log" || { cat "$tmp/hostile.log" >&2; fail "schedule line $line: no message naming it"; }
	[ ! -e "$weird/refused" ] || fail "schedule line $line: the run started before the schedule was checked"
	! ran || fail "schedule line $line ran a command"
done
hostile_flags=(
	"--partition grind;touch\${IFS}$canary" "--account \$(touch\${IFS}$canary)" "--time 10\`touch\${IFS}$canary\`"
	"--sbatch-arg --wrap=touch\${IFS}$canary" "--sbatch-arg --mem=1;touch\${IFS}$canary" "--sbatch-arg x;touch\${IFS}$canary"
	"--poll 1;touch\${IFS}$canary" "--lambda 0;touch\${IFS}$canary" "--max-running 2%1"
)
for flags in "${hostile_flags[@]}"; do
	status=0
	"$here/em-loop.sh" --estep "$bin/estep" --per "$per" --run-dir "$weird/refused" \
		"${flags%% *}" "${flags#* }" "$tmp/corpus.jsonl" "$tmp/start.jsonl" > /dev/null 2> "$tmp/hostile.log" || status=$?
	[ "$status" = 2 ] || { cat "$tmp/hostile.log" >&2; fail "$flags: exit $status, not 2"; }
	[ ! -e "$weird/refused" ] || fail "$flags: the run started before its flags were checked"
	! ran || fail "$flags ran a command"
done
say "${#hostile_lines[@]} hostile schedule lines and ${#hostile_flags[@]} hostile flags refused before anything was submitted"

# An EM run, every name hostile, one task's counts garbled (moved aside,
# submitted again); the cluster's MaxArraySize now 3, so that the shards
# take two jobs (tasks 1-2, and task 1 for shard 3).
echo MaxArraySize=3 >> "$SLURM_CONF"
scontrol reconfigure || fail "scontrol reconfigure failed"
for i in $(seq 50); do
	[ "$(scontrol show config 2> /dev/null | awk '$1 == "MaxArraySize" { print $3 }')" = 3 ] && break
	sleep 0.2
done
printf 'iter-0001 shard-000001 garble\n' > "$faults"
"$here/em-loop.sh" --estep "$tmp/faulty-estep" --per "$per" --run-dir "$weird/run %A \$(touch canary)" --poll 0.2 --iterations 2 \
	"$weird/corpus \$(touch canary).jsonl" "$weird/start ;touch canary;'\".jsonl" > "$tmp/weird.jsonl" 2> "$tmp/weird.log" ||
	{ cat "$tmp/weird.log" >&2; fail "the run with hostile names failed"; }
grep -q 'shard-000001.counts.bad: moved aside' "$tmp/weird.log" || { cat "$tmp/weird.log" >&2; fail "the garbled counts were not moved aside"; }
! ran || fail "a file name ran a command"
run="$weird/run %A \$(touch canary)"
[ "$(submissions iter-0001)" = "1-2 3 1" ] || fail "with MaxArraySize 3, iteration 1 submitted shards $(submissions iter-0001), not 1-2, 3, then 1"
say "hostile names, MaxArraySize 3: iteration 1: $(tasks iter-0001)"
train-em -m "$tmp/start.jsonl" --max-iter 2 --tol 0 --quiet "$tmp/corpus.jsonl" > "$tmp/em2-one.jsonl"
check "EM with hostile file names, garbled counts moved aside and their task submitted again, vs train-em --max-iter 2" "$tmp/em2-one.jsonl" "$tmp/weird.jsonl"

# Nothing left in the queue.
[ -z "$(squeue --noheader --format %i)" ] || fail "jobs left in the queue: $(squeue --noheader --format '%i %T' | tr '\n' ' ')"
echo "slurm test: PASS in $((SECONDS - started)) s (largest relative difference $worst)"
