#!/usr/bin/env bash
# One EM iteration whose E-step runs on several hosts through GNU parallel.
#
# usage: em-iteration.sh -S SSHLOGINFILE [options] RUNDIR MODEL NEXT
#
# RUNDIR holds the corpus cut into shards, RUNDIR/shards/*.jsonl (em-loop.sh
# makes them; the names sort in corpus order and are made of letters, digits,
# ".", "_" and "-"). The iteration works in RUNDIR/NAME (NAME: NEXT's file
# name without .jsonl, each character but those turned into "_", or --name):
#   1. MODEL is copied to NAME/model.jsonl and shipped once to each host
#      (--basefile); every shard goes to the host that runs it (--transferfile)
#      and its counts come back as NAME/SHARD.counts (--return); the copies on
#      the hosts are removed afterwards (--cleanup).
#   2. A job that fails (estep's error, a host that died, a connection cut) is
#      run again on another host (--retries); NAME/joblog records every
#      job, and another pass (--resume-failed, also when this script is run
#      again after being killed) runs only the shards whose counts are still
#      missing: failed, never run, lost while coming back, or come back empty
#      or invalid (not counts of exactly that shard's sentences: such a file
#      is moved aside to NAME/SHARD.counts.bad and the shard run again).
#   3. sumcounts adds the shards' counts in shard order — never in the order
#      the hosts finished — and mstep --expect-sentences writes NEXT: a shard
#      cut short or lost is refused, so NEXT is written whole or not at all.
#      With --sum-only NEXT is the summed counts themselves (CE's E-steps,
#      which ce-loop.sh hands to ce-step).
#
# Paths on the hosts are the same relative paths (NAME/model.jsonl,
# shards/shard-0001.jsonl, …) under the login directory, or under
# --remote-dir. Each host needs grind's estep (on its PATH, or --estep
# /path/to/estep), rsync and perl; this machine needs GNU parallel, rsync,
# and grind's sumcounts and mstep.
#
# Nothing given here reaches a shell: the hosts run estep with each flag and
# file name as one quoted argument (parallel -q), numbers are checked to be
# numbers, and the names the hosts see (NAME, the shards, --remote-dir) are
# made of letters, digits and . _ - (and / in --remote-dir) only. RUNDIR,
# MODEL, NEXT, the sshloginfile and --skew may be any file names.
#
# options:
#   -S FILE               GNU parallel's sshloginfile: one host a line, e.g.
#                         "4/alice@node1" (4 jobs at a time); ":" is this machine
#   --estep PATH          estep on the hosts (default: estep; a program, not a
#                         command line)
#   --remote-dir DIR      the hosts' working directory (parallel --workdir);
#                         give a local disk when home directories are shared
#   --retries N           attempts per shard, each on another host if it can (default 3)
#   --passes N            runs of parallel over what is still missing (default 3)
#   --name NAME           the iteration's directory in RUNDIR
#   --lambda λ            add-λ in the M-step (mstep --lambda)
#   --expect-sentences N  sentences the counts must cover (default: the
#                         shards' non-empty lines)
#   --sum-only            write the shards' counts added to NEXT, no M-step
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
# bad FLAG VALUE WHAT: a command-line value that is not what it must be.
bad() {
	printf 'em-iteration.sh: %s %q: %s\n' "$1" "$2" "$3" >&2
	exit 2
}
number() { [[ $1 =~ ^[-+]?([0-9]+([.][0-9]*)?|[.][0-9]+)([eE][-+]?[0-9]+)?$ ]]; }
count() { [[ $1 =~ ^[0-9]+$ ]]; }
# safe: a name the hosts see, which GNU parallel puts into its rsync and
# cd commands as it is.
safe() { [[ $1 =~ ^[A-Za-z0-9_][A-Za-z0-9._-]*$ ]]; }

logins="" estep=estep remote_dir="" retries=3 passes=3 name="" lambda=0 expect="" skew="" sum_only=""
estep_flags=()
while [ $# -gt 0 ]; do
	case $1 in
	-S | --sshloginfile | --estep | --remote-dir | --retries | --passes | --name | --lambda | --expect-sentences | \
		--beta | --delta | --seg-beta | --skew)
		[ $# -ge 2 ] || { echo "em-iteration.sh: $1 needs a value" >&2; usage; } ;;
	esac
	case $1 in
	-S | --sshloginfile) logins=$2; shift 2 ;;
	--estep) estep=$2; shift 2 ;;
	--remote-dir) remote_dir=$2; shift 2 ;;
	--retries) retries=$2; shift 2 ;;
	--passes) passes=$2; shift 2 ;;
	--name) name=$2; shift 2 ;;
	--lambda) lambda=$2; shift 2 ;;
	--expect-sentences) expect=$2; shift 2 ;;
	--beta | --delta | --seg-beta)
		number "$2" || bad "$1" "$2" "not a number"
		estep_flags+=("$1" "$2"); shift 2 ;;
	--skew) skew=$2; shift 2 ;;
	--hard) estep_flags+=(--hard); shift ;;
	--sum-only) sum_only=1; shift ;;
	-h | --help) usage ;;
	--) shift; break ;;
	-*) printf 'em-iteration.sh: unknown option %q\n' "$1" >&2; usage ;;
	*) break ;;
	esac
done
[ $# -eq 3 ] && [ -n "$logins" ] || usage
rundir=$1 model=$2 next=$3
number "$lambda" || bad --lambda "$lambda" "not a number"
count "$retries" && [ "$retries" -ge 1 ] || bad --retries "$retries" "not a number of attempts ≥ 1"
count "$passes" && [ "$passes" -ge 1 ] || bad --passes "$passes" "not a number of passes ≥ 1"
[ -z "$expect" ] || count "$expect" || bad --expect-sentences "$expect" "not a number of sentences"
# GNU parallel would replace {}, {.}, {/}, {1}, … and run {= … =} as Perl.
[ -n "$estep" ] && ! [[ $estep =~ \{[0-9]*(\.|/|//|/\.|#|%)?\}|\{= ]] ||
	bad --estep "$estep" "a program's path without GNU parallel's replacement strings ({}, {.}, {1}, {= … =}, …)"
[ -z "$remote_dir" ] || [[ $remote_dir =~ ^[A-Za-z0-9._/+-]+$ ]] ||
	bad --remote-dir "$remote_dir" "only letters, digits and . _ / + - (GNU parallel's --workdir does not quote the others)"
if [ -z "$name" ]; then
	# NEXT's file name, made safe for the hosts.
	name=$(basename -- "$next" .jsonl | LC_ALL=C tr -c 'A-Za-z0-9._\n-' '_')
	case $name in .* | -*) name=_${name#?} ;; esac
fi
[ "$name" != shards ] && safe "$name" ||
	bad --name "$name" "the iteration's directory: a plain name of letters, digits and . _ - (not beginning with . or -), and not 'shards'"

# Everything below runs in RUNDIR with relative paths, which parallel
# reproduces on the hosts.
abs() { case $1 in /*) printf '%s\n' "$1" ;; *) printf '%s/%s\n' "$PWD" "$1" ;; esac; }
logins=$(abs "$logins") model=$(abs "$model") next=$(abs "$next")
[ -z "$skew" ] || skew=$(abs "$skew")
[ -r "$logins" ] || die "cannot read the sshloginfile $logins"
[ -r "$model" ] || die "cannot read the model $model"
[ -z "$skew" ] || [ -r "$skew" ] || die "cannot read the skew model $skew"
cd -- "$rundir" || die "no run directory $rundir"

shopt -s nullglob
shards=(shards/*.jsonl)
[ ${#shards[@]} -gt 0 ] || die "no shards in $rundir/shards/ (em-loop.sh makes them)"
for s in "${shards[@]}"; do
	safe "${s#shards/}" || die "$rundir/$s: a shard's name must be letters, digits and . _ - (the hosts see it)"
done
if [ -z "$expect" ]; then
	expect=$(cat -- "${shards[@]}" | grep -c .) || die "the shards in $rundir/shards/ are empty"
fi

# The model (and skew model) this iteration ships. A rerun after a crash
# must start from the same model, or the counts already returned are stale.
mkdir -p -- "$name"
ship() { # ship SOURCE DEST
	if [ -e "$2" ]; then
		cmp -s -- "$1" "$2" || die "$rundir/$2 exists and differs from $1: remove $rundir/$name to start this iteration afresh"
	else
		cp -- "$1" "$2.tmp" && mv -- "$2.tmp" "$2"
	fi
}
ship "$model" "$name/model.jsonl"
basefiles=(--basefile "$name/model.jsonl")
if [ -n "$skew" ]; then
	ship "$skew" "$name/skew.jsonl"
	basefiles+=(--basefile "$name/skew.jsonl")
	estep_flags+=(--skew "$name/skew.jsonl")
fi

# -q: parallel quotes every word of the job for the hosts' shells, so each
# reaches estep as one argument, whatever it holds.
par=(parallel -q --sshloginfile "$logins" "${basefiles[@]}"
	--transferfile {} --return "$name/{/.}.counts" --cleanup
	--joblog "$name/joblog" --resume-failed --retries "$retries")
[ -z "$remote_dir" ] || par+=(--workdir "$remote_dir")
# estep writes its output file whole or not at all (-o), so a job killed
# half-way returns nothing rather than a truncated shard.
job=(sh -c 'mkdir -p -- "$1" && shift && exec "$@"' sh "$name"
	"$estep" -m "$name/model.jsonl" "${estep_flags[@]}" --quiet -o "$name/{/.}.counts" {})

# find_missing sets lost to the indexes (1-based, parallel's job numbers) of
# the shards whose counts are not here. Counts not yet checked are checked
# first: a file that is not counts of exactly its shard's sentences (empty,
# cut, another shard's, garbled on the way) is moved aside, and its shard
# is missing.
declare -A checked=()
find_missing() {
	local i=0 s c
	lost=""
	for s in "${shards[@]}"; do
		i=$((i + 1))
		c=$name/$(basename "$s" .jsonl).counts
		if [ -e "$c" ] && [ -z "${checked[$c]:-}" ]; then
			if sumcounts --quiet --expect-corpus "$s" "$c" > /dev/null 2> "$name/check.err"; then
				checked[$c]=1
			else
				mv -- "$c" "$c.bad"
				echo "em-iteration.sh: $rundir/$c.bad: moved aside and its shard run again: $(head -n 1 "$name/check.err")" >&2
			fi
		fi
		[ -e "$c" ] || lost="$lost $i"
	done
	rm -f -- "$name/check.err"
	lost=${lost# }
}
pass=0
while :; do
	pass=$((pass + 1))
	ok=1
	"${par[@]}" "${job[@]}" ::: "${shards[@]}" >&2 || ok=0
	find_missing
	[ "$ok" = 0 ] || [ -n "$lost" ] || break
	# A job whose counts were lost on the way back (the host died during
	# --return) or came back invalid is marked done in the joblog: forget
	# it, so that --resume-failed runs it again.
	if [ -n "$lost" ]; then
		awk -F'\t' -v lost=" $lost " 'NR == 1 || $7 != 0 || index(lost, " " $1 " ") == 0' "$name/joblog" > "$name/joblog.tmp"
		mv -- "$name/joblog.tmp" "$name/joblog"
	fi
	[ "$pass" -lt "$passes" ] || die "shards $lost still missing after $passes pass(es); see $rundir/$name/joblog, then run this again to retry only those"
	echo "em-iteration.sh: shard(s) $lost missing; pass $((pass + 1)) of $passes runs them again (--resume-failed)" >&2
done

counts=()
for s in "${shards[@]}"; do counts+=("$name/$(basename "$s" .jsonl).counts"); done
# In shard order, whichever host finished first: the sums, and so the model,
# are the same on every run.
if [ -n "$sum_only" ]; then
	sumcounts --quiet "${counts[@]}" -o "$next"
else
	sumcounts "${counts[@]}" | mstep --lambda "$lambda" --expect-sentences "$expect" -o "$next"
fi
