#!/usr/bin/env python3
"""Reads a TensorBoard event file with TensorBoard's own reader (PyPI's tensorboard, in .venv/): its record
reader checks each record's CRC-32C (and stops at the first bad one, as TensorBoard does with a file still
being written, so "bytes_read" below the file's size means a damaged record), and EventAccumulator collects the
scalars as TensorBoard's scalar dashboard shows them. Prints one JSON object:
  {"file_version": "brain.Event:2", "events": N, "bytes_read": B, "file_bytes": F,
   "scalars": {tag: [[step, wall_time, value], ...]}}   (every scalar event, in file order)

usage: read_tensorboard.py EVENT_FILE
"""
import json
import os
import sys

from tensorboard.backend.event_processing import event_accumulator, event_file_loader
from tensorboard.compat.proto import event_pb2


def main():
    path = sys.argv[1]
    # Every event, checked record by record (a damaged record raises DataLossError and exits non-zero).
    events = list(event_file_loader.RawEventFileLoader(path).Load())
    versions = []
    for raw in events:
        event = event_pb2.Event.FromString(raw)
        if event.HasField("file_version"):
            versions.append(event.file_version)
    # size_guidance 0: keep every scalar (the default samples 10,000 per tag).
    accumulator = event_accumulator.EventAccumulator(path, size_guidance={event_accumulator.SCALARS: 0})
    accumulator.Reload()
    scalars = {tag: [[s.step, s.wall_time, s.value] for s in accumulator.Scalars(tag)]
               for tag in accumulator.Tags()["scalars"]}
    json.dump({"file_version": versions[0] if versions else "", "events": len(events),
               "bytes_read": sum(16 + len(raw) for raw in events), "file_bytes": os.path.getsize(path),
               "scalars": scalars}, sys.stdout)


if __name__ == "__main__":
    main()
