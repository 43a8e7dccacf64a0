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
#   --beta B, --skew MODEL, --delta D, --seg-beta B, --hard, --split-skew
#                         passed to estep: DA, skewed DA, Model L, Model S,
#                         Viterbi EM, the CCM's random-split skew (the
#                         --skew model is shipped like MODEL)
set -euo pipefail
prog=em-iteration.sh
. "$(dirname "$0")/../lib/sharded-em.sh"

logins="" estep=estep remote_dir="" retries=3 passes=3
while [ $# -gt 0 ]; do
	case $1 in
	-S | --sshloginfile | --estep | --remote-dir | --retries | --passes)
		[ $# -ge 2 ] || { echo "em-iteration.sh: $1 needs a value" >&2; usage; } ;;
	esac
	iteration_flag "$@"
	if [ "$took" -gt 0 ]; then shift "$took"; continue; fi
	case $1 in
	-S | --sshloginfile) logins=$2; shift 2 ;;
	--estep) estep=$2; shift 2 ;;
	--remote-dir) remote_dir=$2; shift 2 ;;
	--retries) retries=$2; shift 2 ;;
	--passes) passes=$2; shift 2 ;;
	-h | --help) usage ;;
	--) shift; break ;;
	-*) printf 'em-iteration.sh: unknown option %q\n' "$1" >&2; usage ;;
	*) break ;;
	esac
done
[ $# -eq 3 ] && [ -n "$logins" ] || usage
count "$retries" && [ "$retries" -ge 1 ] || bad --retries "$retries" "not a number of attempts ≥ 1"
count "$passes" && [ "$passes" -ge 1 ] || bad --passes "$passes" "not a number of passes ≥ 1"
# GNU parallel would replace {}, {.}, {/}, {1}, … and run {= … =} as Perl.
[ -n "$estep" ] && ! [[ $estep =~ \{[0-9]*(\.|/|//|/\.|#|%)?\}|\{= ]] ||
	bad --estep "$estep" "a program's path without GNU parallel's replacement strings ({}, {.}, {1}, {= … =}, …)"
[ -z "$remote_dir" ] || [[ $remote_dir =~ ^[A-Za-z0-9._/+-]+$ ]] ||
	bad --remote-dir "$remote_dir" "only letters, digits and . _ / + - (GNU parallel's --workdir does not quote the others)"
logins=$(abs "$logins")
[ -r "$logins" ] || die "cannot read the sshloginfile $logins"

# Everything below runs in RUNDIR with relative paths, which parallel
# reproduces on the hosts: the shards, NAME/model.jsonl (and
# NAME/skew.jsonl), shipped once to each host.
iteration_setup "$@"
basefiles=(--basefile "$name/model.jsonl")
[ -z "$skew" ] || basefiles+=(--basefile "$name/skew.jsonl")

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

# find_missing (../lib/sharded-em.sh) sets lost to parallel's job numbers of
# the shards whose counts are missing or invalid (moved aside).
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

reduce
