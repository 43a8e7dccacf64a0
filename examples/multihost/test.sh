#!/usr/bin/env bash
# Tests em-loop.sh / em-iteration.sh against real OpenSSH servers: two sshd
# started here on 127.0.0.1 (high ports, their own host keys, key-only login
# with a key made here), each "host" working in its own directory so that
# nothing is shared but what GNU parallel ships. Then:
#   1. EM iterations 1-3 on the hosts; in iteration 2, while host A runs a
#      job, its sshd and every session of it are killed: --retries finishes
#      the iteration on host B.
#   2. Iteration 4 with host A still dead and no retries: the run fails, and
#      is run again; --resume-failed runs only the shards that failed.
#   3. The final model equals train-em --max-iter 4 --tol 0 from the same
#      start to 1e-9 (relative) on every parameter.
#   4. Host A restarted; a skewed-DA and a Model L (SA) schedule equal
#      train-da and train-sa in the same way; contrastive estimation
#      (ce-loop.sh: each evaluation's two E-steps sharded over the hosts,
#      ce-step between them) equals train-ce — DMV CE and Model L CE
#      annealed, Model U with spelling (nbhd --spelling's lattices), their
#      weights — and train-hmm --estimator ce (HMM CE), its tags, over a
#      fixed number of iterations.
#   5. Hostile schedule lines and flags are refused before anything runs;
#      the SDA schedule with every file name hostile, and shards that come
#      back empty or garbled (moved aside, rerun when the command is run
#      again), equals train-da; no payload ever runs.
# Data: UD English ≤10 from ../shared/data (or $GRIND_SHARED_DATA) when
# present, else the treebank grind ships. Nothing contacts any address but 127.0.0.1; the servers stop
# whatever happens. Needs sshd, ssh, ssh-keygen, GNU parallel, rsync and jq:
# without them it skips, unless GRIND_REQUIRE_MULTIHOST=1 (CI) makes that
# an error.
set -euo pipefail
cd "$(dirname "$0")"
here=$PWD
repo=$(cd ../.. && pwd)
bin=$repo/bin
PATH=$bin:$PATH
started=$SECONDS

skip() {
	if [ "${GRIND_REQUIRE_MULTIHOST:-}" = 1 ]; then
		echo "multihost test: FAIL: $*" >&2
		exit 1
	fi
	echo "multihost test: SKIP: $*"
	exit 0
}
fail() {
	echo "multihost test: FAIL: $*" >&2
	exit 1
}

sshd=$(command -v sshd || echo /usr/sbin/sshd)
[ -x "$sshd" ] || skip "sshd not installed (Debian: openssh-server)"
for t in ssh ssh-keygen parallel rsync jq perl; do
	command -v "$t" >/dev/null || skip "$t not installed"
done
# sshd started by root refuses to run without its privilege separation
# directory (.ci/run makes it).
[ "$(id -u)" != 0 ] || [ -d /run/sshd ] || mkdir -p /run/sshd || skip "cannot make /run/sshd"
[ -x "$bin/estep" ] || make -s -C "$repo" build

tmp=$(mktemp -d /tmp/grind-multihost.XXXXXX)
pids=()
descendants() { # one pass over /proc: pid and name of every live process under $1
	{ cat /proc/[0-9]*/stat 2>/dev/null || true; } | awk -v root="$1" '
		{
			name = $0; sub(/^[^(]*\(/, "", name); sub(/\)[^)]*$/, "", name)
			rest = $0; sub(/^.*\) /, "", rest); split(rest, f, " ")
			if (f[1] != "Z") { parent[$1] = f[2]; comm[$1] = name } # zombies are gone already
		}
		END {
			want[root] = 1
			do {
				more = 0
				for (p in parent) if (!(p in want) && (parent[p] in want)) { want[p] = 1; more = 1 }
			} while (more)
			for (p in want) if (p != root) print p, comm[p]
		}'
}
# forget PID: a process that is over (its number may be reused).
forget() {
	local p keep=()
	for p in "${pids[@]}"; do [ "$p" = "$1" ] || keep+=("$p"); done
	pids=("${keep[@]}")
}
cleanup() {
	local p
	# the servers and the background run, with everything under them
	for p in "${pids[@]}"; do kill -9 $(descendants "$p" | cut -d' ' -f1) "$p" 2>/dev/null || true; done
	# ssh connection masters (ControlPersist) of the sshloginfile
	for p in "$tmp"/cm-*; do [ -S "$p" ] && ssh -o ControlPath="$p" -O exit x 2>/dev/null || true; done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
trap 'echo "multihost test: FAIL: line $LINENO: $BASH_COMMAND" >&2' ERR

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

# Two hosts: sshd on free high ports of 127.0.0.1. ForceCommand starts every
# session (commands and rsync alike) in the host's own directory, as on a
# separate machine.
ssh-keygen -q -t ed25519 -N '' -C grind-multihost-test -f "$tmp/key"
ports=()
start_host() { # start_host NAME [PORT]: sets port_NAME and pid_NAME
	local h=$1 port try
	mkdir -p "$tmp/$h/home"
	[ -e "$tmp/$h/hostkey" ] || ssh-keygen -q -t ed25519 -N '' -f "$tmp/$h/hostkey"
	for try in 1 2 3 4 5 6 7 8 9 10; do
		port=${2:-$((20000 + (RANDOM * 32768 + RANDOM) % 40000))}
		cat > "$tmp/$h/sshd_config" <<-EOF
			ListenAddress 127.0.0.1:$port
			HostKey $tmp/$h/hostkey
			PidFile $tmp/$h/sshd.pid
			AuthorizedKeysFile $tmp/key.pub
			PubkeyAuthentication yes
			PasswordAuthentication no
			KbdInteractiveAuthentication no
			UsePAM no
			StrictModes no
			PermitRootLogin prohibit-password
			AllowTcpForwarding no
			X11Forwarding no
			MaxStartups 100
			MaxSessions 100
			ForceCommand cd $tmp/$h/home && eval "\$SSH_ORIGINAL_COMMAND"
		EOF
		: > "$tmp/$h/log"
		"$sshd" -D -f "$tmp/$h/sshd_config" -E "$tmp/$h/log" &
		local pid=$!
		disown "$pid" # killed on purpose: no "Killed" notice
		pids+=("$pid")
		local i
		for i in $(seq 50); do
			grep -q 'Server listening' "$tmp/$h/log" && break
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		if grep -q 'Server listening' "$tmp/$h/log"; then
			eval "port_$h=$port pid_$h=$pid"
			[ -n "${2:-}" ] || ports+=("$port")
			return
		fi
		kill -9 "$pid" 2>/dev/null || true
		forget "$pid"
		[ -z "${2:-}" ] || sleep 1
	done
	cat "$tmp/$h/log" >&2
	fail "sshd for host $h did not start"
}
start_host a
start_host b

# GNU parallel's sshloginfile: one job at a time per host; the ssh options
# keep everything on this machine's throwaway keys, and a connection master
# per host saves the handshakes of the many transfers.
sshcmd="ssh -i $tmp/key -o IdentitiesOnly=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -o BatchMode=yes -o ConnectTimeout=10 -o ServerAliveInterval=5 -o ServerAliveCountMax=2 -o ControlMaster=auto -o ControlPath=$tmp/cm-%C -o ControlPersist=120"
for p in "${ports[@]}"; do echo "1/$sshcmd -p $p 127.0.0.1"; done > "$tmp/hosts"
for p in "${ports[@]}"; do
	$sshcmd -p "$p" 127.0.0.1 true || fail "cannot log in to 127.0.0.1:$p"
done

# kill_host NAME: the host's sshd and every process under it (its sessions
# and the jobs they run), as when a machine goes down.
kill_host() {
	local pid d i
	eval "pid=\$pid_$1"
	kill -STOP "$pid" # no new connections while we look
	for i in 1 2 3 4 5; do
		d=$(descendants "$pid" | cut -d' ' -f1)
		[ -n "$d" ] || break
		kill -9 $d 2>/dev/null || true
	done
	kill -9 "$pid"
	[ -z "$(descendants "$pid")" ] || fail "host $1's sessions outlived its sshd"
	forget "$pid"
}
# busy NAME: the shards host NAME runs estep on, from the command lines of
# the processes under its sshd.
busy() {
	local pid p
	eval "pid=\$pid_$1"
	for p in $(descendants "$pid" | cut -d' ' -f1); do
		tr '\0' ' ' 2>/dev/null < "/proc/$p/cmdline" || true
		echo
	done | grep estep | grep -o 'shards/shard-[0-9]*' | sort -u | sed 's|^shards/||' | tr '\n' ' ' || true
}
# A slow host: every estep of the first run takes a second longer, so that
# host A is surely caught in the middle of one.
printf '#!/bin/sh\nsleep 1\nexec %s "$@"\n' "$bin/estep" > "$tmp/slow-estep"
chmod +x "$tmp/slow-estep"

run=$tmp/run
# A joblog in short: sequence number, host's port, runtime, exit value.
joblog() { awk -F'\t' 'NR > 1 { match($2, /-p [0-9]+/); print "  shard " $1 ", port " substr($2, RSTART + 3, RLENGTH - 3) ", " $4 + 0 " s, exit " $7 }' "$1"; }
loop() { "$here/em-loop.sh" -S "$tmp/hosts" --estep "$bin/estep" --per "$per" --run-dir "$run" "$@" "$tmp/corpus.jsonl" "$tmp/start.jsonl"; }

echo "multihost test: $data, $sentences sentences in 3 shards, 2 sshd on 127.0.0.1:${ports[0]} (A) and :${ports[1]} (B)"

# 1. Iterations 1-3; host A killed in iteration 2 while it runs a job.
loop --iterations 3 --retries 3 --estep "$tmp/slow-estep" > "$tmp/three.jsonl" 2> "$tmp/loop1.log" &
looppid=$!
pids+=("$looppid")
killed=""
deadline=$((SECONDS + 90))
while [ $SECONDS -lt $deadline ] && kill -0 "$looppid" 2>/dev/null; do
	busy=""
	[ ! -d "$run/iter-0002" ] || busy=$(busy a)
	if [ -n "$busy" ]; then
		kill_host a
		killed="host A (127.0.0.1:${ports[0]}) at $((SECONDS - started)) s, in iteration 2, $(awk 'NR > 1' "$run/iter-0002/joblog" 2>/dev/null | wc -l) of 3 shards done, while it worked on $busy"
		break
	fi
	sleep 0.05
done
status=0
wait "$looppid" || status=$?
forget "$looppid"
[ "$status" = 0 ] || { cat "$tmp/loop1.log" >&2; fail "the run with host A killed did not finish"; }
[ -n "$killed" ] || fail "never saw host A run a job in iteration 2"
echo "killed: $killed"
echo "iteration 2's joblog (one line per shard, the attempt that counted):"
joblog "$run/iter-0002/joblog"
# Every shard done, and those A was running done by B.
[ "$(awk -F'\t' 'NR > 1 && $7 == 0' "$run/iter-0002/joblog" | wc -l)" -eq 3 ] || fail "iteration 2 did not finish every shard"
for s in $busy; do
	n=$((10#${s#shard-}))
	joblog "$run/iter-0002/joblog" | grep -q "shard $n, port ${ports[1]}, .*exit 0" || fail "$s, cut on host A, was not redone by host B"
done
echo "[$((SECONDS - started)) s] iteration 2: ${busy}redone on host B (--retries); iterations 1-3 done"

# 2. Iteration 4, host A still dead and no retries: shards given to A fail.
if loop --iterations 4 --retries 1 --passes 1 > /dev/null 2> "$tmp/loop2.log"; then
	grep -q . "$run/iter-0004/joblog" && awk -F'\t' 'NR > 1 && $7 != 0' "$run/iter-0004/joblog" | grep -q . &&
		fail "iteration 4 had failed jobs and yet finished"
	echo "[$((SECONDS - started)) s] iteration 4: host A got no shard (no failure to resume from)"
else
	[ ! -e "$run/model-0004.jsonl" ] || fail "a failed iteration 4 wrote its model"
	before=$(awk -F'\t' 'NR > 1 && $7 == 0' "$run/iter-0004/joblog" | wc -l)
	echo "[$((SECONDS - started)) s] iteration 4 without retries failed as it should ($(tail -n 1 "$tmp/loop2.log")); $before shard(s) done"
	# Run again: --resume-failed runs only the failed shards.
	loop --iterations 4 > "$tmp/four.jsonl" 2> "$tmp/loop3.log" || { cat "$tmp/loop3.log" >&2; fail "the resumed run failed"; }
	rerun=$(awk -F'\t' 'NR > 1 {n[$1]++} END {for (s in n) if (n[s] > 1) c++; print c + 0}' "$run/iter-0004/joblog")
	ok=$(awk -F'\t' 'NR > 1 && $7 == 0 {print $1}' "$run/iter-0004/joblog" | sort | uniq -d | wc -l)
	[ "$ok" -eq 0 ] || fail "--resume-failed ran a shard that had already succeeded"
	echo "[$((SECONDS - started)) s] iteration 4 resumed: $rerun shard(s) run again, none that had succeeded"
fi
[ -e "$run/model-0004.jsonl" ] || fail "no model after iteration 4"

# 3. The one-process model from the same start.
# compare A B: the number of parameters and the largest relative difference.
compare() { "$here/../compare-models.sh" "$1" "$2"; }
within() { awk -v d="$1" 'BEGIN { exit !(d <= 1e-9) }'; }
train-em -m "$tmp/start.jsonl" --max-iter 4 --tol 0 --quiet "$tmp/corpus.jsonl" > "$tmp/one.jsonl"
set -- $(compare "$tmp/one.jsonl" "$run/model-0004.jsonl")
echo "[$((SECONDS - started)) s] EM, 4 iterations, vs train-em --max-iter 4 --tol 0: $1 parameters, largest relative difference $2"
within "$2" || fail "the models differ by more than 1e-9"
worst=$2

# 4. Host A back (same port, same host key), and the annealers' schedules:
# skewed DA and Model L, each against its one-process trainer.
(cd "$tmp/a/home" && find . -type f | sort) > "$tmp/a-dead"
start_host a "${ports[0]}"
printf '1 --beta 0.5 --skew %s\n1\n' "$tmp/start.jsonl" > "$tmp/sda.schedule"
"$here/em-loop.sh" -S "$tmp/hosts" --estep "$bin/estep" --per "$per" --schedule "$tmp/sda.schedule" \
	"$tmp/corpus.jsonl" "$tmp/start.jsonl" > "$tmp/sda-multi.jsonl" 2> "$tmp/sda.log" || { cat "$tmp/sda.log" >&2; fail "the SDA schedule failed"; }
train-da -m "$tmp/start.jsonl" --skew --beta0 0.5 --gamma 2 --max-iter 1 --tol 0 --quiet "$tmp/corpus.jsonl" > "$tmp/sda-one.jsonl"
set -- $(compare "$tmp/sda-one.jsonl" "$tmp/sda-multi.jsonl")
echo "[$((SECONDS - started)) s] SDA, β 0.5 then 1, vs train-da --skew --beta0 0.5 --gamma 2 --max-iter 1 --tol 0: largest relative difference $2"
within "$2" || fail "the SDA models differ by more than 1e-9"
worst=$(printf '%s\n%s\n' "$worst" "$2" | sort -g | tail -n 1)
printf '1 --delta -0.6\n1 --delta 0.1\n' > "$tmp/sa.schedule"
"$here/em-loop.sh" -S "$tmp/hosts" --estep "$bin/estep" --per "$per" --schedule "$tmp/sa.schedule" --lambda 1 \
	"$tmp/corpus.jsonl" "$tmp/start.jsonl" > "$tmp/sa-multi.jsonl" 2> "$tmp/sa.log" || { cat "$tmp/sa.log" >&2; fail "the SA schedule failed"; }
train-sa -m "$tmp/start.jsonl" --lambda 1 --delta0 -0.6 --delta-step 0.7 --delta-final 0.1 --max-iter 1 --tol 0 --quiet "$tmp/corpus.jsonl" > "$tmp/sa-one.jsonl"
set -- $(compare "$tmp/sa-one.jsonl" "$tmp/sa-multi.jsonl")
echo "[$((SECONDS - started)) s] SA (Model L, λ 1), δ -0.6 then 0.1, vs train-sa --delta0 -0.6 --delta-step 0.7 --delta-final 0.1 --max-iter 1 --tol 0: largest relative difference $2"
within "$2" || fail "the SA models differ by more than 1e-9"
worst=$(printf '%s\n%s\n' "$worst" "$2" | sort -g | tail -n 1)

# Contrastive estimation: the E-steps over the sentences and over their
# neighbourhoods (nbhd, made here once per shard) on the hosts, ce-step on
# this machine. Weights within 1e-9, relative beyond ±1 (compare's fourth
# number): CE's weights grow far from 1; for the HMM, every token's tag.
ce_vs_one() { # NAME NBHD ONE-PROCESS-COMMAND... -- CE-STEP-START-OPTIONS...
	local name=$1 kind=$2 one=()
	shift 2
	while [ "$1" != -- ]; do one+=("$1"); shift; done
	shift
	"$here/ce-loop.sh" -S "$tmp/hosts" --estep "$bin/estep" --per "$per" "$tmp/corpus.jsonl" "$kind" -- "$@" \
		> "$tmp/ce-multi.jsonl" 2> "$tmp/ce.log" || { cat "$tmp/ce.log" >&2; fail "$name: ce-loop.sh failed"; }
	"${one[@]}" --nbhd "$kind" "$@" --quiet "$tmp/corpus.jsonl" > "$tmp/ce-one.jsonl"
	if [ "${one[0]}" = train-hmm ]; then
		# train-hmm saves a CE tagger, the loop its weights: compare their
		# tags (commands/cecmd's Go test compares the weights themselves).
		tag -m "$tmp/ce-multi.jsonl" "$tmp/corpus.jsonl" > "$tmp/ce-multi-tags.jsonl"
		differ=$(jq -n --slurpfile a "$tmp/ce-one.jsonl" --slurpfile b "$tmp/ce-multi-tags.jsonl" \
			'[range($a | length) as $i | range($a[$i].tags | length) as $j | select($a[$i].tags[$j] != $b[$i].tags[$j])] | length')
		echo "[$((SECONDS - started)) s] $name on the hosts ($(grep -c 'evaluation' "$tmp/ce.log") evaluations, each two sharded E-steps) vs train-hmm: $differ tokens tagged differently"
		[ "$differ" = 0 ] || fail "$name: the tags differ"
		return
	fi
	set -- $(compare "$tmp/ce-one.jsonl" "$tmp/ce-multi.jsonl")
	echo "[$((SECONDS - started)) s] $name on the hosts ($(grep -c 'evaluation' "$tmp/ce.log") evaluations, each two sharded E-steps) vs ${one[0]##*/}: $1 weights, largest difference $4 (relative beyond ±1; $3 absolute)"
	within "$4" || fail "$name: the weights differ by more than 1e-9"
	ce_worst=$(printf '%s\n%s\n' "${ce_worst:-0}" "$4" | sort -g | tail -n 1)
}
ce_vs_one "DMV CE (del1ortrans1, km, 2 iterations)" del1ortrans1 train-ce -- --init km --max-iter 2 --tol 0
ce_vs_one "Model L CE (trans1, δ -0.2 then 0, σ² 1, an iteration each)" trans1 train-ce -- --init zero --sigma2 1 --delta0 -0.2 --delta-step 0.2 --delta-final 0 --max-iter 1 --tol 0
ce_vs_one "HMM CE (trans1, 4 states, 2 iterations)" trans1 train-hmm --estimator ce -- --states 4 --max-iter 2
ce_vs_one "Model U CE (trans1, spelling, 2 iterations)" trans1 train-ce -- --family modelu --spelling --max-iter 2 --tol 0

# 5. Nothing given to the scripts reaches a shell. Every payload would
# make a file named canary (where it ran: this folder, a run directory, a
# host's home, or $tmp itself); hostile schedule lines and flags are
# refused before anything runs, and a run whose every file name (corpus,
# start, run directory, sshloginfile, schedule, --skew model, --estep)
# holds spaces, quotes, backslashes, ";", "`…`" and "$(…)" gives the
# one-process model.
canary=$tmp/canary
ran() { [ -e "$canary" ] || [ -n "$(find "$tmp" "$here" -name canary -print -quit)" ]; }
weird=$tmp/$'w \'q" \\b $(touch${IFS}canary) `touch canary`;touch${IFS}canary;x'
mkdir -p "$weird"
cp "$tmp/corpus.jsonl" "$weird/corpus \$(touch canary).jsonl"
cp "$tmp/start.jsonl" "$weird/start ;touch canary;'\".jsonl"
cp "$tmp/hosts" "$weird/hosts \`touch canary\`"
hostile_lines=(
	"1 --beta 1;touch\${IFS}$canary;true"
	"1 --beta \$(touch\${IFS}$canary)"
	"1 --beta 0.5 \$(touch $canary)"
	"1 --beta 0.5 --skew x;touch\${IFS}$canary"
	"1 --beta 0.5 ; touch $canary"
	"1; touch $canary"
	"\$(touch $canary) --beta 0.5"
	"1 --hard\`touch $canary\`"
	"1 --beta '0.5"
)
for line in "${hostile_lines[@]}"; do
	printf '1\n%s\n' "$line" > "$weird/hostile.schedule"
	if "$here/em-loop.sh" -S "$weird/hosts \`touch canary\`" --estep "$bin/estep" --per "$per" --run-dir "$weird/refused" \
		--schedule "$weird/hostile.schedule" "$weird/corpus \$(touch canary).jsonl" "$weird/start ;touch canary;'\".jsonl" \
		> /dev/null 2> "$tmp/hostile.log"; then
		fail "schedule line $line was taken"
	fi
	grep -q '^em-loop.sh: schedule line 2: ' "$tmp/hostile.log" || { cat "$tmp/hostile.log" >&2; fail "schedule line $line: no message naming it"; }
	[ ! -e "$weird/refused" ] || fail "schedule line $line: the run started before the schedule was checked"
	! ran || fail "schedule line $line ran a command"
done
for flags in "--lambda 0;touch\${IFS}$canary" "--retries 1;touch\${IFS}$canary" "--passes \$(touch\${IFS}$canary)" \
	"--remote-dir /tmp;touch\${IFS}$canary" "--iterations 1\`touch\${IFS}$canary\`" "--estep $bin/estep{=qx(touch $canary)=}"; do
	status=0
	"$here/em-loop.sh" -S "$tmp/hosts" --estep "$bin/estep" --per "$per" --run-dir "$weird/refused" \
		"${flags%% *}" "${flags#* }" "$tmp/corpus.jsonl" "$tmp/start.jsonl" > /dev/null 2> "$tmp/hostile.log" || status=$?
	[ "$status" = 2 ] || { cat "$tmp/hostile.log" >&2; fail "$flags: exit $status, not 2"; }
	! ran || fail "$flags ran a command"
done
# An estep that is not a program: each job fails on the hosts, nothing runs.
if "$here/em-loop.sh" -S "$tmp/hosts" --estep "$bin/estep;touch $canary" --retries 1 --passes 1 --per "$per" \
	--iterations 1 "$tmp/corpus.jsonl" "$tmp/start.jsonl" > /dev/null 2> "$tmp/hostile.log"; then
	fail "--estep 'estep;touch …' was run"
fi
! ran || fail "--estep ran a command"
echo "[$((SECONDS - started)) s] ${#hostile_lines[@]} hostile schedule lines and 7 hostile flags refused, nothing run"

# The SDA schedule of step 4 with every name hostile, and an estep (named
# as badly) that on its first call for shard 2 returns an empty file and
# for shard 3 garbage, both with exit 0: with one pass the iteration fails,
# the bad counts moved aside; the same command run again recovers.
printf '#!/bin/sh\nfor last; do :; done\ncase $last in\n' > "$weird/estep once"
printf '*shard-000002.jsonl) [ -e %q ] || { : > %q; for a; do [ "$prev" = -o ] && : > "$a"; prev=$a; done; exit 0; } ;;\n' "$tmp/once2" "$tmp/once2" >> "$weird/estep once"
printf '*shard-000003.jsonl) [ -e %q ] || { : > %q; for a; do [ "$prev" = -o ] && echo "{\\"ev\\":\\"header\\"" > "$a"; prev=$a; done; exit 0; } ;;\n' "$tmp/once3" "$tmp/once3" >> "$weird/estep once"
printf 'esac\nexec %q "$@"\n' "$bin/estep" >> "$weird/estep once"
chmod +x "$weird/estep once"
skew=$weird/start\ \;touch\ canary\;\'\".jsonl
printf '# the SDA schedule, its --skew named as badly as can be\n1 --beta 0.5 --skew %s # comment\n1\n' "$(printf '%s' "$skew" | sed 's/./\\&/g')" > "$weird/sda \$(touch canary).schedule"
weird_loop() {
	"$here/em-loop.sh" -S "$weird/hosts \`touch canary\`" --estep "$weird/estep once" --per "$per" --run-dir "$weird/run \$(touch canary)" \
		--schedule "$weird/sda \$(touch canary).schedule" "$@" "$weird/corpus \$(touch canary).jsonl" "$skew"
}
if weird_loop --passes 1 > /dev/null 2> "$tmp/weird1.log"; then
	fail "a run with one pass took the bad counts"
fi
grep -q 'shard-000002.counts.bad: moved aside' "$tmp/weird1.log" && grep -q 'shard-000003.counts.bad: moved aside' "$tmp/weird1.log" ||
	{ cat "$tmp/weird1.log" >&2; fail "the empty and garbled counts were not moved aside"; }
weird_loop > "$tmp/weird.jsonl" 2> "$tmp/weird2.log" || { cat "$tmp/weird1.log" "$tmp/weird2.log" >&2; fail "the hostile-named run did not recover when run again"; }
! ran || fail "a file name ran a command"
set -- $(compare "$tmp/sda-one.jsonl" "$tmp/weird.jsonl")
echo "[$((SECONDS - started)) s] SDA with hostile file names, an empty and a garbled shard moved aside and rerun: largest relative difference $2 from train-da"
within "$2" || fail "the hostile-named SDA model differs by more than 1e-9"
worst=$(printf '%s\n%s\n' "$worst" "$2" | sort -g | tail -n 1)

# The hosts' directories hold nothing once the run is over (--cleanup).
# (Host A keeps at most what it held when it was killed.)
left=$(find "$tmp/b/home" -type f | wc -l)
[ "$left" -eq 0 ] || fail "host B kept $left file(s) after the runs"
(cd "$tmp/a/home" && find . -type f | sort) > "$tmp/a-after"
[ -z "$(comm -13 "$tmp/a-dead" "$tmp/a-after")" ] || fail "host A kept files of the runs after its restart: $(comm -13 "$tmp/a-dead" "$tmp/a-after" | tr '\n' ' ')"
echo "multihost test: PASS in $((SECONDS - started)) s (largest relative difference $worst; CE's weights $ce_worst)"
