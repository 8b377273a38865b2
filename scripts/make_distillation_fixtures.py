#!/usr/bin/python3
"""Writes tests/fixtures/distillation.json: the knowledge-distillation loss computed by python3-torch.

Re-run from the repository root with Debian's Python (torch 1.13):
    /usr/bin/python3 scripts/make_distillation_fixtures.py
Logits and labels come from a seeded numpy generator and are written out as numbers. The loss is the one
PyTorch users write (Hinton et al.; the workbench's compress "distill" pass):
    soft = F.kl_div(F.log_softmax(student / T, 1), F.softmax(teacher / T, 1), reduction="batchmean")
    loss = alpha * T * T * soft + (1 - alpha) * F.cross_entropy(student, labels)
The gradient of the loss with respect to the student's logits is stored too.
"""

import json
import os

import numpy as np
import torch
import torch.nn.functional as F

# WB_FIXTURES_OUT: another folder (scripts/compare_fixtures.sh regenerates them with torch 2.x there).
OUTPUT = os.path.join(os.environ.get("WB_FIXTURES_OUT") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures"),
                      "distillation.json")
CASES = [(1.0, 0.5), (4.0, 0.9), (2.0, 1.0), (8.0, 0.0), (3.0, 0.7)]


def main():
    rng = np.random.default_rng(20241203)
    cases = []
    for temperature, alpha in CASES:
        batch, classes = 6, 10
        student = rng.normal(0, 3, size=(batch, classes))
        teacher = rng.normal(0, 3, size=(batch, classes))
        labels = rng.integers(0, classes, size=batch)
        s = torch.tensor(student, dtype=torch.float32, requires_grad=True)
        t = torch.tensor(teacher, dtype=torch.float32)
        y = torch.tensor(labels, dtype=torch.long)
        soft = F.kl_div(F.log_softmax(s / temperature, 1), F.softmax(t / temperature, 1), reduction="batchmean")
        loss = alpha * temperature * temperature * soft + (1 - alpha) * F.cross_entropy(s, y)
        loss.backward()
        cases.append({
            "temperature": temperature,
            "alpha": alpha,
            "student": s.detach().tolist(),
            "teacher": teacher.astype(np.float32).tolist(),
            "labels": labels.tolist(),
            "loss": loss.item(),
            "grad": s.grad.tolist(),
        })
    with open(OUTPUT, "w") as f:
        json.dump({"torch_version": torch.__version__, "cases": cases}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
