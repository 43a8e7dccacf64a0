#!/bin/sh
# Renders reports of real training runs in headless Chromium and checks that
# the screenshots are not blank (and that a blank page fails the check): one
# made from the runs' files (--log, decode's output), one from their run
# directories (--run-dir: EM, DA and CE DMVs — a log-likelihood, a tempered
# and a contrastive objective, an axis each — and a CCM), scored on held-out
# sentences.
# Needs the programs in ../../bin (make build) and chromium-headless-shell or
# chromium (.ci/run installs the first). SHOT=FILE keeps the screenshot.
set -eu
cd "$(dirname "$0")"
PATH=$PWD/../../bin:$PATH
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

browser=""
for b in chromium-headless-shell chromium chromium-browser; do
	if command -v "$b" >/dev/null; then browser=$b; break; fi
done
[ -n "$browser" ] || { echo "report/test.sh: no chromium-headless-shell or chromium" >&2; exit 1; }

ptb2deps --tree ../treebank/*.mrg | filterlen 10 > "$dir/c.jsonl"
train-em --init km --log "$dir/km.log" --quiet "$dir/c.jsonl" > "$dir/km.model"
train-em --init uniform --log "$dir/uniform.log" --quiet "$dir/c.jsonl" > "$dir/uniform.model"
decode -m "$dir/km.model" --quiet "$dir/c.jsonl" > "$dir/km.jsonl"
decode -m "$dir/uniform.model" --quiet "$dir/c.jsonl" > "$dir/uniform.jsonl"
(cd "$dir" && report -o report.html --title 'EM on the treebank grind ships, ≤10 words' \
	--run EM-km=km.log,km.jsonl --run EM-uniform=uniform.log,uniform.jsonl --top 4 --trees 2)

# The same from run directories: train on odd sentences, score on even ones.
awk 'NR % 2' "$dir/c.jsonl" > "$dir/train.jsonl"
awk '!(NR % 2)' "$dir/c.jsonl" > "$dir/test.jsonl"
(cd "$dir" &&
	train-em --init km --run-dir EM-km --quiet train.jsonl -o /dev/null &&
	train-da --beta0 0.1 --gamma 2 --run-dir DA --quiet train.jsonl -o /dev/null &&
	train-ce --run-dir CE --quiet train.jsonl -o /dev/null &&
	train-ccm --run-dir CCM --quiet train.jsonl -o /dev/null &&
	report -o rundirs.html --title 'EM, DA, CE and the CCM from run directories, ≤10 words' --top 4 --trees 1 \
		--test test.jsonl EM-km DA CE CCM)
for want in '<h2>Run directories</h2>' 'train-em --init km --run-dir EM-km' 'train-da --beta0 0.1' \
	'<h2>Constituent runs: brackets</h2>' '<tr><td>CCM</td>' '>log-likelihood (nats)</text>' \
	'>tempered objective (nats)</text>' '>contrastive objective (nats)</text>' '>training-set accuracy (%)</text>' \
	'class="n best"'; do
	grep -qF -- "$want" "$dir/rundirs.html" || { echo "report/test.sh: rundirs.html lacks $want" >&2; exit 1; }
done

shot() { # URL PNG
	"$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=900,2500 \
		--screenshot="$2" "$1" >/dev/null 2>&1
	[ -s "$2" ] || { echo "report/test.sh: $browser wrote no screenshot of $1" >&2; exit 1; }
}
shot "file://$dir/report.html" "$dir/report.png"
shot "file://$dir/rundirs.html" "$dir/rundirs.png"
printf '<!DOCTYPE html><html><body></body></html>' > "$dir/blank.html"
shot "file://$dir/blank.html" "$dir/blank.png"

check="go run ./pngcheck"
if $check "$dir/blank.png" 2>/dev/null; then
	echo "report/test.sh: the blank page passed the check: the check cannot fail" >&2
	exit 1
fi
$check "$dir/report.png"
$check "$dir/rundirs.png"
[ -z "${SHOT:-}" ] || cp "$dir/rundirs.png" "$SHOT"
echo "report renders in $browser (from files and from run directories)"
