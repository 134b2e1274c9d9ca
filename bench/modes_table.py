#!/usr/bin/env python3
"""The table of bench/check.sh and bench/prof.sh: one program run in several modes (without a
tool, with it in one way or another), repeated and interleaved.

usage: modes_table.py ROWS MODE...

ROWS holds lines "benchmark mode value p10" (p10 may repeat value when the program gives only
one number). Per benchmark and mode it prints the median over the repetitions of the values and
of the p10s, and their ratios to the first MODE (the run without the tool). Benchmarks keep the
order of their first appearance; modes the order given. Python 3 standard library only.
"""

import statistics
import sys


def main():
    rows, modes = sys.argv[1], sys.argv[2:]
    by = {}
    for line in open(rows):
        parts = line.split()
        if len(parts) != 4:
            continue
        bench, mode, value, p10 = parts
        try:
            by.setdefault(bench, {}).setdefault(mode, []).append((float(value), float(p10)))
        except ValueError:
            continue
    width = max([len(b) for b in by] + [9])
    print(f"{'benchmark':<{width}} {'mode':<10} {'median':>10} {'p10':>10} {'x median':>9} "
          f"{'x p10':>7} {'runs':>4}")
    for bench, got in by.items():
        base = got.get(modes[0])
        bm = statistics.median(v for v, _ in base) if base else None
        bp = statistics.median(p for _, p in base) if base else None
        for mode in modes:
            if mode not in got:
                continue
            m = statistics.median(v for v, _ in got[mode])
            p = statistics.median(q for _, q in got[mode])
            rm = f"{m / bm:.3f}" if bm else "-"
            rp = f"{p / bp:.3f}" if bp else "-"
            print(f"{bench:<{width}} {mode:<10} {m:>10.4g} {p:>10.4g} {rm:>9} {rp:>7} "
                  f"{len(got[mode]):>4}")


if __name__ == "__main__":
    main()
