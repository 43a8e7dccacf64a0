#!/usr/bin/env bash
# One EM iteration whose E-step runs on several hosts through GNU parallel.
#
# usage: em-iteration.sh -S SSHLOGINFILE [options] RUNDIR MODEL NEXT
#
# RUNDIR holds the corpus cut into shards, RUNDIR/shards/*.jsonl (em-loop.sh
# makes them; the names sort in corpus order). The iteration works in
# RUNDIR/NAME (NAME: NEXT's file name without .jsonl, or --name):
#   1. MODEL is copied to NAME/model.jsonl and shipped once to each host
#      (--basefile); every shard goes to the host that runs it (--transferfile)
#      and its counts come back as NAME/SHARD.counts (--return); the copies on
#      the hosts are removed afterwards (--cleanup).
#   2. A job that fails (estep's error, a host that died, a connection cut) is
#      run again on another host (--retries); NAME/joblog records every
#      job, and another pass (--resume-failed, also when this script is run
#      again after being killed) runs only the shards whose counts are still
#      missing: failed, never run, or lost while coming back.
#   3. sumcounts adds the shards' counts in shard order — never in the order
#      the hosts finished — and mstep --expect-sentences writes NEXT: a shard
#      cut short or lost is refused, so NEXT is written whole or not at all.
#
# Paths on the hosts are the same relative paths (NAME/model.jsonl,
# shards/shard-0001.jsonl, …) under the login directory, or under
# --remote-dir. Each host needs grind's estep (on its PATH, or --estep
# /path/to/estep), rsync and perl; this machine needs GNU parallel, rsync,
# and grind's sumcounts and mstep.
#
# options:
#   -S FILE               GNU parallel's sshloginfile: one host a line, e.g.
#                         "4/alice@node1" (4 jobs at a time); ":" is this machine
#   --estep CMD           estep on the hosts (default: estep)
#   --remote-dir DIR      the hosts' working directory (parallel --workdir);
#                         give a local disk when home directories are shared
#   --retries N           attempts per shard, each on another host if it can (default 3)
#   --passes N            runs of parallel over what is still missing (default 3)
#   --name NAME           the iteration's directory in RUNDIR
#   --lambda λ            add-λ in the M-step (mstep --lambda)
#   --expect-sentences N  sentences the counts must cover (default: the
#                         shards' non-empty lines)
#   --beta B, --skew MODEL, --delta D, --seg-beta B, --hard
#                         passed to estep: DA, skewed DA, Model L, Model S,
#                         Viterbi EM (the --skew model is shipped like MODEL)
set -euo pipefail

usage() {
	sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
}
die() {
	echo "em-iteration.sh: $*" >&2
	exit 1
}

logins="" estep=estep remote_dir="" retries=3 passes=3 name="" lambda=0 expect="" skew=""
estep_flags=()
while [ $# -gt 0 ]; do
	case $1 in
	-S | --sshloginfile) logins=$2; shift 2 ;;
	--estep) estep=$2; shift 2 ;;
	--remote-dir) remote_dir=$2; shift 2 ;;
	--retries) retries=$2; shift 2 ;;
	--passes) passes=$2; shift 2 ;;
	--name) name=$2; shift 2 ;;
	--lambda) lambda=$2; shift 2 ;;
	--expect-sentences) expect=$2; shift 2 ;;
	--beta | --delta | --seg-beta) estep_flags+=("$1" "$2"); shift 2 ;;
	--skew) skew=$2; shift 2 ;;
	--hard) estep_flags+=(--hard); shift ;;
	-h | --help) usage ;;
	--) shift; break ;;
	-*) echo "em-iteration.sh: unknown option $1" >&2; usage ;;
	*) break ;;
	esac
done
[ $# -eq 3 ] && [ -n "$logins" ] || usage
rundir=$1 model=$2 next=$3
[ -n "$name" ] || name=$(basename "$next" .jsonl)
case $name in */* | "" | . | .. | shards) die "--name must be a plain directory name, not '$name'" ;; esac

# Everything below runs in RUNDIR with relative paths, which parallel
# reproduces on the hosts.
abs() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
logins=$(abs "$logins") model=$(abs "$model") next=$(abs "$next")
[ -z "$skew" ] || skew=$(abs "$skew")
[ -r "$logins" ] || die "cannot read the sshloginfile $logins"
[ -r "$model" ] || die "cannot read the model $model"
cd "$rundir" || die "no run directory $rundir"

shopt -s nullglob
shards=(shards/*.jsonl)
[ ${#shards[@]} -gt 0 ] || die "no shards in $rundir/shards/ (em-loop.sh makes them)"
if [ -z "$expect" ]; then
	expect=$(cat "${shards[@]}" | grep -c .) || die "the shards in $rundir/shards/ are empty"
fi

# The model (and skew model) this iteration ships. A rerun after a crash
# must start from the same model, or the counts already returned are stale.
mkdir -p "$name"
ship() { # ship SOURCE DEST
	if [ -e "$2" ]; then
		cmp -s "$1" "$2" || die "$rundir/$2 exists and differs from $1: remove $rundir/$name to start this iteration afresh"
	else
		cp "$1" "$2.tmp" && mv "$2.tmp" "$2"
	fi
}
ship "$model" "$name/model.jsonl"
basefiles=(--basefile "$name/model.jsonl")
if [ -n "$skew" ]; then
	ship "$skew" "$name/skew.jsonl"
	basefiles+=(--basefile "$name/skew.jsonl")
	estep_flags+=(--skew "$name/skew.jsonl")
fi

par=(parallel --sshloginfile "$logins" "${basefiles[@]}"
	--transferfile {} --return "$name/{/.}.counts" --cleanup
	--joblog "$name/joblog" --resume-failed --retries "$retries")
[ -z "$remote_dir" ] || par+=(--workdir "$remote_dir")
# estep writes its output file whole or not at all (-o), so a job killed
# half-way returns nothing rather than a truncated shard.
job="mkdir -p $name && $estep -m $name/model.jsonl ${estep_flags[*]} --quiet -o $name/{/.}.counts {}"

# missing: the indexes (1-based, parallel's job numbers) of the shards whose
# counts are not here.
missing() {
	local i=0 s
	for s in "${shards[@]}"; do
		i=$((i + 1))
		[ -e "$name/$(basename "$s" .jsonl).counts" ] || echo "$i"
	done
}
pass=0
while :; do
	pass=$((pass + 1))
	ok=1
	"${par[@]}" "$job" ::: "${shards[@]}" >&2 || ok=0
	lost=$(missing)
	[ "$ok" = 0 ] || [ -n "$lost" ] || break
	# A job whose counts were lost on the way back (the host died during
	# --return) is marked done in the joblog: forget it, so that
	# --resume-failed runs it again.
	if [ -n "$lost" ]; then
		awk -F'\t' -v lost=" $(echo $lost) " 'NR == 1 || $7 != 0 || index(lost, " " $1 " ") == 0' "$name/joblog" > "$name/joblog.tmp"
		mv "$name/joblog.tmp" "$name/joblog"
	fi
	[ "$pass" -lt "$passes" ] || die "shards $(echo $lost) still missing after $passes pass(es); see $rundir/$name/joblog, then run this again to retry only those"
	echo "em-iteration.sh: shard(s) $(echo $lost) missing; pass $((pass + 1)) of $passes runs them again (--resume-failed)" >&2
done

counts=()
for s in "${shards[@]}"; do counts+=("$name/$(basename "$s" .jsonl).counts"); done
# In shard order, whichever host finished first: the sums, and so the model,
# are the same on every run.
sumcounts "${counts[@]}" | mstep --lambda "$lambda" --expect-sentences "$expect" -o "$next"
