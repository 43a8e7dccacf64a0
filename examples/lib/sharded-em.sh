# Sourced by the recipes that spread the E-step of EM over machines
# (examples/multihost/ through GNU parallel and ssh, examples/slurm/ through
# sbatch --array): what they share, so that they check the same things the
# same way.
#   - the checks of numbers, counts and the names other machines see;
#   - the schedule: one stage a line, split into words as a shell would and
#     never expanded nor run, every line checked before the first iteration;
#   - the run directory: its identity (corpus, start, --per, --lambda), the
#     corpus cut into shards once, the loop over the schedule's iterations
#     that skips those already made (a run is resumed from its directory);
#   - in an iteration: the model (and skew model) copied into the
#     iteration's directory, the shards' counts checked against their
#     shards (bad ones moved aside), and the reduce, sumcounts in shard order
#     | mstep --expect-sentences N.
# The sourcing script sets prog (its name in messages) first. Nothing here
# passes a value through a shell: every file name and flag is one word.

die() {
	echo "$prog: $*" >&2
	exit 1
}
# bad FLAG VALUE WHAT: a command-line value that is not what it must be.
bad() {
	printf '%s: %s %q: %s\n' "$prog" "$1" "$2" "$3" >&2
	exit 2
}
# usage: the script's header comment, from its second line to "set -euo".
usage() {
	sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
}
number() { [[ $1 =~ ^[-+]?([0-9]+([.][0-9]*)?|[.][0-9]+)([eE][-+]?[0-9]+)?$ ]]; }
count() { [[ $1 =~ ^[0-9]+$ ]]; }
# safe: a name other machines see (an iteration's directory, a shard), which
# GNU parallel puts into its rsync and cd commands as it is.
safe() { [[ $1 =~ ^[A-Za-z0-9_][A-Za-z0-9._-]*$ ]]; }
abs() { case $1 in /*) printf '%s\n' "$1" ;; *) printf '%s/%s\n' "$PWD" "$1" ;; esac; }

# ---- The schedule (em-loop.sh) ----

# stage AT LINE sets iters and flags (estep's flags, one word each) from a
# schedule line, or dies naming it (AT: its line number): xargs splits the
# words as a shell would, quotes and all, without expanding or running
# anything.
stage() {
	local at=$1 line=$2 w
	local -a words=()
	if ! w=$(printf '%s\n' "$line" | LC_ALL=C xargs -r printf '%s\0' 2>&1 | tr '\0' '\1'); then
		die "schedule line $at: ${w##*xargs: }"
	fi
	[ -z "$w" ] || IFS=$'\1' read -r -a words <<< "${w%$'\1'}"
	iters=${words[0]:-} flags=()
	count "$iters" || die "schedule line $at: the first field must be a number of iterations, not $(printf %q "$iters")"
	local i=1
	while [ "$i" -lt ${#words[@]} ]; do
		w=${words[$i]}
		case $w in
		--beta | --delta | --seg-beta)
			number "${words[$((i + 1))]:-}" || die "schedule line $at: $w needs a number, not $(printf %q "${words[$((i + 1))]:-}")"
			flags+=("$w" "${words[$((i + 1))]}") i=$((i + 2)) ;;
		--skew)
			[ -r "${words[$((i + 1))]:-}" ] || die "schedule line $at: cannot read the --skew model $(printf %q "${words[$((i + 1))]:-}")"
			flags+=(--skew "${words[$((i + 1))]}") i=$((i + 2)) ;;
		--hard | --split-skew) flags+=("$w") i=$((i + 1)) ;;
		*) die "schedule line $at: $(printf %q "$w") is not a flag of a stage (--beta, --delta, --seg-beta, --skew, --split-skew, --hard)" ;;
		esac
	done
}

# read_schedule FILE ITERATIONS sets lines (the stages) and at (each one's
# line number, for messages), every line checked; with FILE empty the
# schedule is the one line ITERATIONS (plain EM).
read_schedule() {
	local schedule=$1 k=0 line
	lines=() at=()
	if [ -n "$schedule" ]; then
		[ -r "$schedule" ] || die "cannot read the schedule $schedule"
		while IFS= read -r line || [ -n "$line" ]; do
			k=$((k + 1))
			line=$(printf '%s\n' "$line" | sed 's/\(^\|[[:space:]]\)#.*//')
			[[ $line =~ [^[:space:]] ]] || continue
			stage "$k" "$line" # every line checked before the first iteration
			lines+=("$line") at+=("$k")
		done < "$schedule"
	else
		lines=("$2") at=(--iterations)
	fi
	[ ${#lines[@]} -gt 0 ] || die "the schedule is empty"
}

# ---- The run directory (em-loop.sh) ----

# prepare_run RUNDIR CORPUS START PER LAMBDA: the run directory's identity
# (a run directory belongs to one corpus, start, shard size and λ; resuming
# with anything else is refused — the schedule may grow), the shards of PER
# sentences (RUNDIR/shards/shard-NNNNNN.jsonl, made once) and model-0000.
prepare_run() {
	local rundir=$1 corpus=$2 start=$3 per=$4 lambda=$5 id
	mkdir -p -- "$rundir"
	id=$( { sha256sum < "$corpus"; sha256sum < "$start"; echo "per $per lambda $lambda"; } | sha256sum)
	if [ -e "$rundir/run-id" ]; then
		[ "$(cat -- "$rundir/run-id")" = "$id" ] || die "$rundir belongs to another run (corpus, start, --per or --lambda differ)"
	else
		echo "$id" > "$rundir/run-id"
	fi
	if [ ! -d "$rundir/shards" ]; then
		rm -rf -- "$rundir/shards.tmp"
		mkdir -- "$rundir/shards.tmp"
		# The folder by the environment and the corpus on stdin: awk would
		# read escapes in a -v value and take an operand "a=b" for a variable.
		per=$per dir=$rundir/shards.tmp awk '
			(NR - 1) % ENVIRON["per"] == 0 { if (out) close(out); out = sprintf("%s/shard-%06d.jsonl", ENVIRON["dir"], (NR - 1) / ENVIRON["per"] + 1) }
			{ print > out }' < "$corpus"
		mv -- "$rundir/shards.tmp" "$rundir/shards"
	fi
	[ -e "$rundir/model-0000.jsonl" ] || cp -- "$start" "$rundir/model-0000.jsonl"
}

# run_schedule RUNDIR LAMBDA ITERATION-COMMAND...: every iteration of the
# schedule (lines, at) not yet made, each as
#   ITERATION-COMMAND... --lambda λ --name iter-NNNN FLAGS -- RUNDIR PREV NEXT
# (PREV, NEXT: RUNDIR/model-NNNN.jsonl); then the last model on stdout.
run_schedule() {
	local rundir=$1 lambda=$2 j i k=0 prev next
	shift 2
	for j in "${!lines[@]}"; do
		stage "${at[$j]}" "${lines[$j]}"
		i=0
		while [ "$i" -lt "$iters" ]; do
			i=$((i + 1)) k=$((k + 1))
			prev=$(printf '%s/model-%04d.jsonl' "$rundir" $((k - 1)))
			next=$(printf '%s/model-%04d.jsonl' "$rundir" "$k")
			[ -e "$next" ] && continue # done before the run was killed
			echo "$prog: iteration $k (${flags[*]})" >&2
			"$@" --lambda "$lambda" --name "$(printf 'iter-%04d' "$k")" "${flags[@]}" -- "$rundir" "$prev" "$next" < /dev/null
		done
	done
	cat -- "$(printf '%s/model-%04d.jsonl' "$rundir" "$k")"
}

# ---- One iteration (em-iteration.sh) ----

# iteration_flag ARGS...: when $1 is one of the flags every em-iteration.sh
# takes, sets what it says and took to the number of words it used (0 when
# $1 is not one of them).
name="" lambda=0 expect="" skew="" sum_only=""
estep_flags=()
iteration_flag() {
	took=0
	case $1 in
	--name | --lambda | --expect-sentences | --beta | --delta | --seg-beta | --skew)
		[ $# -ge 2 ] || { echo "$prog: $1 needs a value" >&2; usage; } ;;
	esac
	case $1 in
	--name) name=$2 took=2 ;;
	--lambda) lambda=$2 took=2 ;;
	--expect-sentences) expect=$2 took=2 ;;
	--beta | --delta | --seg-beta)
		number "$2" || bad "$1" "$2" "not a number"
		estep_flags+=("$1" "$2") took=2 ;;
	--skew) skew=$2 took=2 ;;
	--hard | --split-skew) estep_flags+=("$1") took=1 ;;
	--sum-only) sum_only=1 took=1 ;;
	esac
}

# iteration_setup RUNDIR MODEL NEXT: checks the flags, then works in RUNDIR
# (the cwd from then on): sets shards (shards/*.jsonl, in order), expect,
# name (NEXT's file name made safe, unless --name), next (absolute), copies
# MODEL to NAME/model.jsonl and --skew's to NAME/skew.jsonl (adding --skew
# NAME/skew.jsonl to estep_flags). A rerun after a crash must start from
# the same model, or the counts already made are stale: a different copy
# already there is refused.
iteration_setup() {
	rundir=$1
	local model=$2 s
	next=$3
	number "$lambda" || bad --lambda "$lambda" "not a number"
	[ -z "$expect" ] || count "$expect" || bad --expect-sentences "$expect" "not a number of sentences"
	if [ -z "$name" ]; then
		# NEXT's file name, made safe for the hosts.
		name=$(basename -- "$next" .jsonl | LC_ALL=C tr -c 'A-Za-z0-9._\n-' '_')
		case $name in .* | -*) name=_${name#?} ;; esac
	fi
	[ "$name" != shards ] && safe "$name" ||
		bad --name "$name" "the iteration's directory: a plain name of letters, digits and . _ - (not beginning with . or -), and not 'shards'"
	model=$(abs "$model") next=$(abs "$next")
	[ -z "$skew" ] || skew=$(abs "$skew")
	[ -r "$model" ] || die "cannot read the model $model"
	[ -z "$skew" ] || [ -r "$skew" ] || die "cannot read the skew model $skew"
	cd -- "$rundir" || die "no run directory $rundir"

	shopt -s nullglob
	shards=(shards/*.jsonl)
	shopt -u nullglob
	[ ${#shards[@]} -gt 0 ] || die "no shards in $rundir/shards/ (em-loop.sh makes them)"
	for s in "${shards[@]}"; do
		safe "${s#shards/}" || die "$rundir/$s: a shard's name must be letters, digits and . _ - (the hosts see it)"
	done
	if [ -z "$expect" ]; then
		expect=$(cat -- "${shards[@]}" | grep -c .) || die "the shards in $rundir/shards/ are empty"
	fi

	mkdir -p -- "$name"
	ship "$model" "$name/model.jsonl"
	if [ -n "$skew" ]; then
		ship "$skew" "$name/skew.jsonl"
		estep_flags+=(--skew "$name/skew.jsonl")
	fi
}
ship() { # ship SOURCE DEST
	if [ -e "$2" ]; then
		cmp -s -- "$1" "$2" || die "$rundir/$2 exists and differs from $1: remove $rundir/$name to start this iteration afresh"
	else
		cp -- "$1" "$2.tmp" && mv -- "$2.tmp" "$2"
	fi
}

# find_missing sets lost to the indexes (1-based) of the shards whose counts
# (NAME/SHARD.counts) are not here. Counts not yet checked are checked
# first: a file that is not counts of exactly its shard's sentences (empty,
# cut, another shard's, garbled on the way) is moved aside to
# NAME/SHARD.counts.bad, and its shard is missing.
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
				echo "$prog: $rundir/$c.bad: moved aside and its shard run again: $(head -n 1 "$name/check.err")" >&2
			fi
		fi
		[ -e "$c" ] || lost="$lost $i"
	done
	rm -f -- "$name/check.err"
	lost=${lost# }
}

# reduce: the shards' counts added in shard order — never in the order the
# machines finished, so the sums, and the model, are the same on every run
# — and NEXT written by mstep, which refuses counts of other than
# --expect-sentences sentences: NEXT is whole or not written at all. With
# --sum-only NEXT is the summed counts themselves (CE's E-steps, which
# ce-loop.sh hands to ce-step).
reduce() {
	local s counts=()
	for s in "${shards[@]}"; do counts+=("$name/$(basename "$s" .jsonl).counts"); done
	if [ -n "$sum_only" ]; then
		sumcounts --quiet "${counts[@]}" -o "$next"
	else
		sumcounts "${counts[@]}" | mstep --lambda "$lambda" --expect-sentences "$expect" -o "$next"
	fi
}
