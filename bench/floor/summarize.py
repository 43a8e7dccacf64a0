"""Reads run.sh's run files and prints, for each family, thread count and
C kernel, grind's and the kernel's ms per E-step (medians over the runs)
and the ratios grind / kernel taken run by run (each run times both in
the same minute), in wall time and in CPU time (user + system, every
thread: steadier than wall time when other jobs share the cores)."""
import re
import statistics
import sys

GO = {"BenchmarkEStepBrown": "hmm", "BenchmarkEStepSinica10": "ccm"}
runs = []
for path in sys.argv[1:]:
    times = {}  # (family, threads, who) -> (wall ms, cpu ms)
    for line in open(path):
        f = line.rstrip("\n").split("\t")
        if len(f) == 6 and f[0] in GO.values():
            times[(f[0], int(f[2]), f[1])] = (float(f[3]), float(f[4]))
        m = re.match(r"(Benchmark|Baseline)(\w+)/workers=(\d+)(-\d+)?\s+\d+\s+([\d.]+) ns/op\s+([\d.]+) cpu-ms/op", line)
        if m and "Benchmark" + m.group(2) in GO:
            who = "grind" if m.group(1) == "Benchmark" else "baseline"
            times[(GO["Benchmark" + m.group(2)], int(m.group(3)), who)] = (float(m.group(5)) / 1e6, float(m.group(6)))
    runs.append(times)


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def show(xs):
    return ", ".join(f"{x:.2f}" for x in xs)


print(f"{len(runs)} runs; ms per E-step (medians over the runs); grind / kernel run by run, then the median")
print()
print("| family | threads | grind | kernel | grind wall ms | kernel wall ms | wall ratio, each run | median | grind CPU ms | kernel CPU ms | CPU ratio, each run | median |")
print("|---|---:|---|---|---:|---:|---|---:|---:|---:|---|---:|")
keys = sorted({k[:2] for t in runs for k in t}, key=lambda k: (k[0] != "hmm", k[1]))
for fam, th in keys:
    kernels = sorted({k[2] for t in runs for k in t if k[:2] == (fam, th) and k[2] not in ("grind", "baseline")})
    for who in ("baseline", "grind"):
        for kern in kernels:
            pairs = [(t[(fam, th, who)], t[(fam, th, kern)]) for t in runs
                     if (fam, th, who) in t and (fam, th, kern) in t]
            if not pairs:
                continue
            wall = [g[0] / c[0] for g, c in pairs]
            cpu = [g[1] / c[1] for g, c in pairs]
            print(f"| {fam} | {th} | {who} | {kern} | {med([g[0] for g, _ in pairs]):.2f} | "
                  f"{med([c[0] for _, c in pairs]):.2f} | {show(wall)} | **{med(wall):.2f}** | "
                  f"{med([g[1] for g, _ in pairs]):.2f} | {med([c[1] for _, c in pairs]):.2f} | "
                  f"{show(cpu)} | **{med(cpu):.2f}** |")
