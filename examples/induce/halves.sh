# Sourced by ceiling.sh, endings.sh, chains.sh and mbr.sh, which score
# models on the selection half of a newlang.mk run: the programs of
# ../../bin on PATH, a scratch directory $tmp removed on exit, pct (a
# score's directed accuracy, %), the models and scores they share, and the
# tags refined by the word's ending.
PATH=$(cd "$(dirname "$0")/../../bin" 2>/dev/null && pwd):$PATH
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pct() { printf '%.1f' "$(jq -r '.directed * 100')"; }
# accuracy MODEL DEV: MODEL's Viterbi parses of DEV, directed accuracy (%)
accuracy() { decode -m "$1" -q "$2" | score --json | pct; }
# right DEV: attach-right's directed accuracy on DEV (%)
right() { baseline --attach right -q "$1" | score --json | pct; }
# supervised_model TRAIN OUT: the MLE (add-1) of TRAIN's gold trees
supervised_model() { estep --gold -q "$1" | mstep --lambda 1 -q > "$2"; }
# right_model TRAIN OUT: the MLE (add-1) of attach-right's trees of TRAIN
right_model() {
	baseline --attach right -q "$1" | jq -c '.heads = .pred | del(.pred)' |
		estep --gold -q | mstep --lambda 1 -q > "$2"
}

# Tags refined by the word's last character (a final 。 dropped): TAG_c
# where the pair is seen at least 100 times in training, the bare TAG
# otherwise.
refined='def refined($i): .tags[$i] + "_" + (.words[$i] | rtrimstr("。") | .[-1:]);'
# keep_endings TRAIN: the refined tags frequent enough to keep, a line each
keep_endings() {
	jq -r "$refined"' range(0; .tags | length) as $i | refined($i)' "$1" |
		sort | uniq -c | awk '$1 >= 100 { print $2 }'
}
# refine FILE KEEP: FILE's tags refined where KEEP lists the refined tag
refine() {
	jq -c --rawfile keep "$2" "$refined"'
	  ($keep | split("\n") | map({(.): true}) | add) as $k
	  | .tags = [range(0; .tags | length) as $i
	      | refined($i) as $r | if $k[$r] then $r else .tags[$i] end]' "$1"
}
# refine_halves TRAIN DEV: both refined by TRAIN's frequent endings, to
# $tmp/train.jsonl and $tmp/dev.jsonl
refine_halves() {
	keep_endings "$1" > "$tmp/keep"
	refine "$1" "$tmp/keep" > "$tmp/train.jsonl"
	refine "$2" "$tmp/keep" > "$tmp/dev.jsonl"
}
