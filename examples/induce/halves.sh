# Sourced by ceiling.sh, endings.sh, chains.sh, mbr.sh, valence.sh and chainshare.sh, which score
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
# right_trees FILE: FILE's sentences with attach-right's trees as their heads
right_trees() { baseline --attach right -q "$1" | jq -c '.heads = .pred | del(.pred)'; }
# right_model TRAIN OUT: the MLE (add-1) of attach-right's trees of TRAIN
right_model() { right_trees "$1" | estep --gold -q | mstep --lambda 1 -q > "$2"; }

# Tags refined by the word's last character (a final 。 dropped): TAG_c
# where the pair is seen at least 100 times in training, the bare TAG
# otherwise. (induce's own refinement, stages/dmv's Ending, drops any
# trailing punctuation, not only 。: on Japanese's selection half the 3/2
# EM runs over either pick the same model, 62.8 — docs/results.md, "A chain
# that meets the rules"; the scripts keep this one, which their tables used.)
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
# refined_rules: ud1's rules over refine_halves' tags, every refined tag
# (TAG_c) standing where its bare tag does
refined_rules() {
	jq -r '.tags[]' "$tmp/train.jsonl" "$tmp/dev.jsonl" | sort -u > "$tmp/tags"
	train-em --rules ud1 --print-rules | awk 'NR == FNR { t = $1; sub(/_.*/, "", t); as[t] = as[t] " " $1; next }
		/^#/ { next }
		{ n = split($1 == "ROOT" ? "ROOT" : as[$1], hs, " "); m = split(as[$2], ds, " ")
		  for (i = 1; i <= n; i++) for (j = 1; j <= m; j++) print hs[i], ds[j] }' "$tmp/tags" -
}
# rule_share DEV RULES MODEL: the share (%) of MODEL's Viterbi parses of
# DEV that instantiate a rule of RULES (select-model --by rules)
rule_share() { select-model --dev "$1" --by rules --rules "$2" --json -q "$3" | jq -r '.rule_share * 100' | xargs printf '%.1f'; }
# chain_share left|right FILE: the share of the chain's attachments in
# FILE (attach-left's or attach-right's parses) that instantiate a ud1
# rule (HEAD DEPENDENT, ROOT for the root), %: how much of the rules a
# chain already meets (induce's --chain-limit)
chain_share() {
	[ -f "$tmp/ud1" ] || train-em --rules ud1 --print-rules > "$tmp/ud1"
	baseline --attach "$1" -q "$2" |
		jq -r '. as $s | range(0; .tags | length) as $i | "\(if $s.pred[$i] == 0 then "ROOT" else $s.tags[$s.pred[$i] - 1] end) \(.tags[$i])"' |
		awk 'NR == FNR { if (!/^#/) rule[$1 " " $2] = 1; next } { n++; r += ($0 in rule) } END { printf "%.1f", 100 * r / n }' \
			"$tmp/ud1" -
}
# refine_halves TRAIN DEV: both refined by TRAIN's frequent endings, to
# $tmp/train.jsonl and $tmp/dev.jsonl
refine_halves() {
	keep_endings "$1" > "$tmp/keep"
	refine "$1" "$tmp/keep" > "$tmp/train.jsonl"
	refine "$2" "$tmp/keep" > "$tmp/dev.jsonl"
}

# headfinal_trees FILE K: K random projective head-final trees of each
# sentence of FILE, as its gold heads (the last word the root). Words are
# placed right to left, each word's head drawn from the words it can reach
# without crossing an arc (the right spine) in proportion to 1/distance.
# The generator is Park and Miller's, exact in awk's doubles, so that
# every awk draws the same trees.
headfinal_trees() {
	jq -r '"\(.tags | length)\t\({id, words, tags} | tojson)"' "$1" | awk -F '\t' -v k="$2" '
	function draw() { x = (x * 16807) % 2147483647; return x / 2147483647 }
	BEGIN { x = 1 }
	{
		n = $1
		for (r = 0; r < k; r++) {
			m = 1; spine[1] = n; head[n] = 0
			for (i = n - 1; i >= 1; i--) {
				z = 0
				for (s = 1; s <= m; s++) z += 1 / (spine[s] - i)
				u = draw() * z
				for (s = 1; s < m && u > 1 / (spine[s] - i); s++) u -= 1 / (spine[s] - i)
				head[i] = spine[s]
				# the new spine: i, then the old one from the head rightwards
				for (q = s; q <= m; q++) kept[q - s + 1] = spine[q]
				m = m - s + 2; spine[1] = i
				for (q = 2; q <= m; q++) spine[q] = kept[q - 1]
			}
			hs = head[1]
			for (i = 2; i <= n; i++) hs = hs "," head[i]
			print substr($2, 1, length($2) - 1) ",\"heads\":[" hs "]}"
		}
	}'
}
