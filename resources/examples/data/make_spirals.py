#!/usr/bin/env python3
"""Writes spirals.csv, the table the csv-spirals example trains on: three interleaved spiral arms of 2-D points
(x, y) with a little noise, 300 points per arm, labelled 0, 1, 2. A linear model cannot separate them; a small
MLP can. Deterministic (seeded): running it again writes the same file."""
import math
import random
import sys


def main(path):
    rng = random.Random(2024)
    rows = []
    for arm in range(3):
        for i in range(300):
            r = i / 300.0
            angle = arm * 2.0 * math.pi / 3.0 + r * 4.0 + rng.gauss(0.0, 0.2)
            rows.append((r * math.sin(angle), r * math.cos(angle), arm))
    rng.shuffle(rows)
    with open(path, "w", encoding="ascii") as out:
        out.write("x,y,label\n")
        for x, y, label in rows:
            out.write(f"{x:.5f},{y:.5f},{label}\n")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "spirals.csv")
