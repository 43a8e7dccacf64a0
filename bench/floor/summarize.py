"""Reads run.sh's run files and prints, for each family and thread count,
each run's ms per E-step for grind and the C kernels and the ratios
grind / kernel pair by pair (the same run), then their medians."""
import re
import statistics
import sys

GO = {"BenchmarkEStepBrown": "hmm", "BenchmarkEStepSinica10": "ccm"}
runs = []
for path in sys.argv[1:]:
    times = {}  # (family, threads, who) -> ms
    for line in open(path):
        f = line.rstrip("\n").split("\t")
        if len(f) == 6 and f[0] in ("hmm", "ccm"):
            times[(f[0], int(f[2]), f[1])] = float(f[3])
        m = re.match(r"(Benchmark\w+)/workers=(\d+)(-\d+)?\s+\d+\s+([\d.]+) ns/op", line)
        if m and m.group(1) in GO:
            times[(GO[m.group(1)], int(m.group(2)), "grind")] = float(m.group(4)) / 1e6
    runs.append(times)

print("| family | threads | grind ms | kernel | kernel ms | grind / kernel, each run | median |")
print("|---|---:|---:|---|---:|---|---:|")
keys = sorted({k[:2] for t in runs for k in t}, key=lambda k: (k[0] != "hmm", k[1]))
for fam, th in keys:
    grind = [t[(fam, th, "grind")] for t in runs if (fam, th, "grind") in t]
    kernels = sorted({k[2] for t in runs for k in t if k[:2] == (fam, th) and k[2] != "grind"})
    for kern in kernels:
        pairs = [(t[(fam, th, "grind")], t[(fam, th, kern)]) for t in runs
                 if (fam, th, "grind") in t and (fam, th, kern) in t]
        ratios = [g / c for g, c in pairs]
        print(f"| {fam} | {th} | {statistics.median(grind):.2f} | {kern} | "
              f"{statistics.median([c for _, c in pairs]):.2f} | "
              f"{', '.join(f'{x:.2f}' for x in ratios)} | {statistics.median(ratios):.2f} |")
