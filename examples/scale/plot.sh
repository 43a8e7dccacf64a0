#!/bin/sh
# Draws the table run.sh writes (columns maxlen, sentences, mode,
# cpu_per_iter or sec_per_iter, and peak_rss_mb, found by name) as an SVG
# on stdout: CPU seconds per EM iteration (left) and peak RSS (right)
# against the number of sentences, both axes logarithmic, one line per
# mode and length, and a dotted line of slope 1 (linear time) through the
# first point of each time series.
#
#   sh examples/scale/plot.sh docs/scale.tsv > docs/scale.svg
set -eu
awk -F'\t' '
function lg(x) { return log(x) / log(10) }
function px(v, p) { return p["x0"] + (lg(v) - xmin) / (xmax - xmin) * W }
function py(v, p) { return p["y0"] + H - (lg(v) - p["lo"]) / (p["hi"] - p["lo"]) * H }
NR == 1 {
	for (c = 1; c <= NF; c++) col[$c] = c
	# CPU time when the table has it: on a shared machine wall time moves with the load
	tcol = ("cpu_per_iter" in col) ? "cpu_per_iter" : "sec_per_iter"
	ttitle = (tcol == "cpu_per_iter") ? "CPU seconds per EM iteration (2 workers)" : "seconds per EM iteration"
	next
}
{
	key = $(col["mode"]) " ≤" $(col["maxlen"])
	if (!(key in seen)) { seen[key] = 1; keys[++nk] = key }
	n[key] = n[key] + 1; i = n[key]
	x = $(col["sentences"]); t = $(col[tcol]); r = $(col["peak_rss_mb"])
	xs[key, i] = x; ts[key, i] = t; rs[key, i] = r
	if (xminv == "" || x < xminv) xminv = x
	if (x > xmaxv) xmaxv = x
	if (tlo == "" || t < tlo) tlo = t
	if (t > thi) thi = t
	if (rlo == "" || r < rlo) rlo = r
	if (r > rhi) rhi = r
}
END {
	W = 330; H = 260
	xmin = int(lg(xminv)); xmax = int(lg(xmaxv) + 0.999)
	if (xmax == xmin) xmax = xmin + 1
	split("", T); T["x0"] = 70; T["y0"] = 40; T["lo"] = int(lg(tlo) + 10) - 10; T["hi"] = int(lg(thi) + 10.999) - 10
	split("", R); R["x0"] = 490; R["y0"] = 40; R["lo"] = int(lg(rlo) + 10) - 10; R["hi"] = int(lg(rhi) + 10.999) - 10
	color["memory ≤10"] = "#1f77b4"; color["stream ≤10"] = "#d62728"
	color["memory ≤40"] = "#2ca02c"; color["stream ≤40"] = "#9467bd"
	printf "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"880\" height=\"380\" font-family=\"sans-serif\" font-size=\"12\">\n"
	printf "<rect width=\"880\" height=\"380\" fill=\"white\"/>\n"
	panel(T, ttitle, 1)
	panel(R, "peak RSS (MB)", 2)
	# legend
	for (k = 1; k <= nk; k++) {
		y = 345; x = 70 + (k - 1) * 150
		printf "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"2\"/>", x, y, x + 25, y, color[keys[k]]
		printf "<text x=\"%d\" y=\"%d\">%s</text>\n", x + 30, y + 4, keys[k]
	}
	printf "<line x1=\"%d\" y1=\"365\" x2=\"%d\" y2=\"365\" stroke=\"gray\" stroke-dasharray=\"2,3\"/><text x=\"%d\" y=\"369\">linear (slope 1)</text>\n", 70, 95, 100
	printf "</svg>\n"
}
function panel(p, title, which,    e, x, y, k, i, v) {
	printf "<text x=\"%d\" y=\"25\" font-weight=\"bold\">%s</text>\n", p["x0"], title
	printf "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"black\"/>\n", p["x0"], p["y0"], W, H
	for (e = xmin; e <= xmax; e++) {
		x = p["x0"] + (e - xmin) / (xmax - xmin) * W
		printf "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>", x, p["y0"], x, p["y0"] + H
		printf "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">1e%d</text>\n", x, p["y0"] + H + 15, e
	}
	printf "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">sentences</text>\n", p["x0"] + W / 2, p["y0"] + H + 30
	for (e = p["lo"]; e <= p["hi"]; e++) {
		y = p["y0"] + H - (e - p["lo"]) / (p["hi"] - p["lo"]) * H
		printf "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>", p["x0"], y, p["x0"] + W, y
		printf "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n", p["x0"] - 4, y + 4, 10 ^ e
	}
	for (k = 1; k <= nk; k++) {
		key = keys[k]
		printf "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", color[key]
		for (i = 1; i <= n[key]; i++) {
			v = (which == 1) ? ts[key, i] : rs[key, i]
			printf "%.1f,%.1f ", px(xs[key, i], p), py(v, p)
		}
		printf "\"/>\n"
		for (i = 1; i <= n[key]; i++) {
			v = (which == 1) ? ts[key, i] : rs[key, i]
			printf "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n", px(xs[key, i], p), py(v, p), color[key]
		}
		if (which == 1 && n[key] > 1) {
			# linear time through the first point: t · (x / x₁)
			printf "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-opacity=\"0.6\" stroke-dasharray=\"2,3\"/>\n", \
				px(xs[key, 1], p), py(ts[key, 1], p), px(xs[key, n[key]], p), py(ts[key, 1] * xs[key, n[key]] / xs[key, 1], p), color[key]
		}
	}
}
' "$1"
