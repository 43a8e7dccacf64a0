#!/bin/sh
# Renders a report of two real training runs in headless Chromium and checks
# that the screenshot is not blank (and that a blank page fails the check).
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

ptb2deps ../treebank/*.mrg | filterlen 10 > "$dir/c.jsonl"
train-em --init km --log "$dir/km.log" --quiet "$dir/c.jsonl" > "$dir/km.model"
train-em --init uniform --log "$dir/uniform.log" --quiet "$dir/c.jsonl" > "$dir/uniform.model"
decode -m "$dir/km.model" --quiet "$dir/c.jsonl" > "$dir/km.jsonl"
decode -m "$dir/uniform.model" --quiet "$dir/c.jsonl" > "$dir/uniform.jsonl"
(cd "$dir" && report -o report.html --title 'EM on the treebank grind ships, ≤10 words' \
	--run EM-km=km.log,km.jsonl --run EM-uniform=uniform.log,uniform.jsonl --top 4 --trees 2)

shot() { # URL PNG
	"$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=900,2500 \
		--screenshot="$2" "$1" >/dev/null 2>&1
	[ -s "$2" ] || { echo "report/test.sh: $browser wrote no screenshot of $1" >&2; exit 1; }
}
shot "file://$dir/report.html" "$dir/report.png"
printf '<!DOCTYPE html><html><body></body></html>' > "$dir/blank.html"
shot "file://$dir/blank.html" "$dir/blank.png"

check="go run ./pngcheck"
if $check "$dir/blank.png" 2>/dev/null; then
	echo "report/test.sh: the blank page passed the check: the check cannot fail" >&2
	exit 1
fi
$check "$dir/report.png"
[ -z "${SHOT:-}" ] || cp "$dir/report.png" "$SHOT"
echo "report renders in $browser"
