"""Reads a profile's trace as a reader we did not write would: the Chrome Trace Event Format's JSON schema
(tests/python/chrome_trace.schema.json, written from Google's Trace Event Format document) through the
jsonschema package from PyPI, then Python's json: every profiled step's "ProfilerStep#N" range, the step's
phase ranges inside it on its thread, aten operators. Prints one JSON object with what it measured from the
trace alone (mean step and phase times in ms, per the trace's own durations) for the test to compare with the
engine's report.

usage: check_chrome_trace.py TRACE FIRST_STEP STEPS   (FIRST_STEP: steps done before the first profiled one)
exit 0 with the JSON on stdout; exit 1 with the problem on stderr.
"""
import json
import os
import sys

import jsonschema

PHASES = ["data", "forward", "backward", "optimizer", "allreduce"]


def fail(message):
    print(message, file=sys.stderr)
    sys.exit(1)


def main():
    trace_path, first_step, steps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    with open(os.path.join(os.path.dirname(__file__), "chrome_trace.schema.json")) as f:
        schema = json.load(f)
    with open(trace_path) as f:
        trace = json.load(f)
    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(trace), key=lambda e: list(e.path))
    if errors:
        fail("not a Chrome trace: " + "; ".join(f"{list(e.path)}: {e.message}" for e in errors[:5]))
    complete = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    step_ranges = {}
    for e in complete:
        if e["name"].startswith("ProfilerStep#"):
            step_ranges[int(e["name"][len("ProfilerStep#"):])] = e
    wanted = list(range(first_step + 1, first_step + steps + 1))
    if sorted(step_ranges) != wanted:
        fail(f"step ranges {sorted(step_ranges)}, expected ProfilerStep#{wanted[0]}..#{wanted[-1]}")
    phase_ms = {p: 0.0 for p in PHASES}
    inside = {p: 0 for p in PHASES}
    for e in complete:
        for phase in PHASES:
            if e["name"] != f"## {phase} ##":
                continue
            holder = [s for s in step_ranges.values()
                      if s["tid"] == e["tid"] and s["ts"] <= e["ts"] and e["ts"] + e["dur"] <= s["ts"] + s["dur"] + 1e-3]
            if not holder:
                fail(f"a '## {phase} ##' range at ts {e['ts']} lies outside every profiled step")
            inside[phase] += 1
            phase_ms[phase] += e["dur"] / 1000.0
    for phase in ["data", "forward", "backward", "optimizer"]:
        if inside[phase] < steps:
            fail(f"'## {phase} ##' ranges: {inside[phase]} for {steps} steps")
    aten = sorted({e["name"] for e in complete if e["name"].startswith("aten::")})
    if not aten:
        fail("no aten:: operator in the trace")
    step_ms = sum(s["dur"] for s in step_ranges.values()) / 1000.0 / steps
    print(json.dumps({
        "step_ms": step_ms,
        "phases_ms": {p: ms / steps for p, ms in phase_ms.items() if inside[p]},
        "aten_operators": aten,
        "events": len(trace["traceEvents"]),
    }))


if __name__ == "__main__":
    main()
