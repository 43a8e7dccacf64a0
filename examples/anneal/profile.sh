#!/bin/sh
# Where the held-out recipe spends its CPU: heldout.mk run with every recipe
# line timed (GNU time, user + system seconds), then the seconds summed by
# what each line made — the estimator whose models it trained (the folder
# under heldout/ it writes to), or select-model, decode, score and the rest
# ("other": the corpora, the tables).
#
# usage: profile.sh DATA [MAKE-ARGUMENTS...]
#   sh examples/anneal/profile.sh ud-upos-tr INITS="km zero" LAMBDAS="0 1 10" BETA0S="0.1 0.01" \
#      GAMMAS="2.5 1.5" DELTA0S="-0.6 -0.4" DELTA_STEPS=0.1 SA_LAMBDAS="1 10" SIGMA2S="1 inf" \
#      SDA_LAMBDAS= CE_NBHDS="del1 trans1 length dynasearch"
# Runs with make -j2 in a fresh temporary OUT (removed afterwards). Needs
# GNU time (/usr/bin/time), the programs in ../../bin and jq.
set -eu
[ $# -ge 1 ] || { echo "usage: profile.sh DATA [MAKE-ARGUMENTS...]" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "profile.sh: needs GNU time (/usr/bin/time)" >&2; exit 1; }
data=$1
shift
cd "$(dirname "$0")"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
log=$dir/times
# The shell make runs each recipe line with: the line timed, its text kept
# on one line of the log after the seconds.
cat > "$dir/sh" <<'EOF'
#!/bin/sh
line=$(printf '%s' "$2" | tr '\n' ' ')
exec /usr/bin/time -a -o "$PROFILE_LOG" -f "%U %S $line" /bin/sh "$@"
EOF
chmod +x "$dir/sh"
start=$(date +%s)
PROFILE_LOG=$log make -s -j2 -f heldout.mk SHELL="$dir/sh" DATA="$data" OUT="$dir/out" "$@" >/dev/null
wall=$(($(date +%s) - start))
awk -v wall="$wall" '
NF >= 3 && $1 ~ /^[0-9.]+$/ {
	cpu = $1 + $2
	prog = $3
	sub(/.*\//, "", prog)
	what = "other"
	if (prog == "select-model" || prog == "decode" || prog == "score" || prog == "baseline" || prog == "induce") what = prog
	else if (match($0, /\/heldout\/[^\/ ]+\//)) what = substr($0, RSTART + 9, RLENGTH - 10)
	sum[what] += cpu; n[what]++; total += cpu
}
END {
	for (w in sum) printf "%-18s %8.1f s  %5.1f%%  %4d lines\n", w, sum[w], 100 * sum[w] / total, n[w] | "sort -k2 -n -r"
	close("sort -k2 -n -r")
	printf "%-18s %8.1f s of CPU, %d s of wall clock\n", "total", total, wall
}' "$log"
