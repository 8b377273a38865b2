#!/usr/bin/python3
"""Writes tests/fixtures/schedules.json: learning rates per optimizer step from torch.optim.lr_scheduler.

Re-run from the repository root with Debian's Python (torch 1.13):
    /usr/bin/python3 scripts/make_schedule_fixtures.py
The output is deterministic (no randomness; JSON keys in a fixed order), so re-running changes nothing
unless torch's schedulers change.

How each case is simulated, which is what wb::LrSchedule promises (see backend/src/optim/lr_schedule.h):
- lrs[k] is the lr the k-th optimizer step uses: param_groups[0]['lr'] after k scheduler.step() calls, each
  call following an optimizer.step().
- Warmup of W steps: for k < W, a LinearLR(start_factor, end_factor=1, total_iters=W) on its own optimizer;
  for k >= W, a fresh optimizer and main scheduler stepped k - W times. SequentialLR is deliberately not used:
  its schedulers share one optimizer's param groups, and in torch 1.13 a OneCycleLR behind the LinearLR
  rewrites the lr the warmup ramps (it starts from lr / div_factor / ... instead of lr * start_factor).
- plateau: ReduceLROnPlateau.step(metric) for every validation listed at step k, before lrs[k] is read; with
  warmup, lrs[k] = (warmup lr / base lr) * plateau lr for k < W.
- onecycle: recorded for exactly its total_steps steps (torch raises past them; the C++ clamps to the last).
"""

import json
import math
import os
import warnings

import torch

# WB_FIXTURES_OUT: another folder (scripts/compare_fixtures.sh regenerates them with torch 2.x there).
OUTPUT = os.path.join(os.environ.get("WB_FIXTURES_OUT") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures"),
                      "schedules.json")

# Mirrors wb::ScheduleConfig's defaults; a case overrides some of them.
DEFAULTS = {
    "name": "cosine",
    "warmup_steps": 0,
    "warmup_start_factor": 0.01,
    "step_size": 1000,
    "milestones": [],
    "gamma": 0.1,
    "t_max": 0,
    "eta_min": 0.0,
    "pct_start": 0.3,
    "anneal_strategy": "cos",
    "div_factor": 25.0,
    "final_div_factor": 1e4,
    "three_phase": False,
    "plateau_mode": "min",
    "factor": 0.1,
    "patience": 10,
    "threshold": 1e-4,
    "threshold_mode": "rel",
    "cooldown": 0,
    "min_lr": 0.0,
}


def make_optimizer(lr):
    # The parameter never gets a gradient: only the lr bookkeeping matters here.
    return torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=lr, momentum=0.9)


def make_main_scheduler(optimizer, config, main_steps):
    name = config["name"]
    if name == "constant":
        return torch.optim.lr_scheduler.ConstantLR(optimizer, factor=1.0, total_iters=1)
    if name == "step":
        return torch.optim.lr_scheduler.StepLR(optimizer, step_size=config["step_size"], gamma=config["gamma"])
    if name == "multistep":
        return torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=config["milestones"], gamma=config["gamma"])
    if name == "exponential":
        return torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=config["gamma"])
    if name == "cosine":
        t_max = config["t_max"] if config["t_max"] > 0 else main_steps
        return torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=t_max, eta_min=config["eta_min"])
    if name == "onecycle":
        return torch.optim.lr_scheduler.OneCycleLR(
            optimizer, max_lr=optimizer.param_groups[0]["lr"], total_steps=main_steps,
            pct_start=config["pct_start"], anneal_strategy=config["anneal_strategy"], cycle_momentum=False,
            div_factor=config["div_factor"], final_div_factor=config["final_div_factor"],
            three_phase=config["three_phase"])
    raise ValueError("no main scheduler for " + name)


def stepped_lrs(optimizer, scheduler, count):
    lrs = []
    for _ in range(count):
        lrs.append(optimizer.param_groups[0]["lr"])
        optimizer.step()
        scheduler.step()
    return lrs


def cosine_closed_form(base_lr, eta_min, t_max, steps):
    # torch's CosineAnnealingLR._get_closed_form_lr, the form wb::LrSchedule evaluates.
    return [eta_min + (base_lr - eta_min) * (1 + math.cos(math.pi * k / t_max)) / 2 for k in range(steps)]


def linear_with_warmup(optimizer, num_warmup_steps, num_training_steps):
    # transformers' get_linear_schedule_with_warmup (its _get_linear_schedule_with_warmup_lr_lambda), one
    # LambdaLR over the whole run, warmup included.
    def lr_lambda(current_step):
        if current_step < num_warmup_steps:
            return float(current_step) / float(max(1, num_warmup_steps))
        return max(0.0, float(num_training_steps - current_step) / float(max(1, num_training_steps - num_warmup_steps)))
    return torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)


def simulate(case):
    config = dict(DEFAULTS)
    config.update(case["config"])
    base_lr = case["base_lr"]
    total_steps = case["total_steps"]
    steps = case.get("steps", total_steps)
    warmup = config["warmup_steps"]
    main_steps = total_steps - warmup

    if config["name"] == "linear":
        optimizer = make_optimizer(base_lr)
        return config, stepped_lrs(optimizer, linear_with_warmup(optimizer, warmup, total_steps), steps)

    warmup_lrs = []
    if warmup > 0:
        optimizer = make_optimizer(base_lr)
        linear = torch.optim.lr_scheduler.LinearLR(
            optimizer, start_factor=config["warmup_start_factor"], end_factor=1.0, total_iters=warmup)
        warmup_lrs = stepped_lrs(optimizer, linear, min(warmup, steps))

    if config["name"] == "plateau":
        optimizer = make_optimizer(base_lr)
        plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(
            optimizer, mode=config["plateau_mode"], factor=config["factor"], patience=config["patience"],
            threshold=config["threshold"], threshold_mode=config["threshold_mode"], cooldown=config["cooldown"],
            min_lr=config["min_lr"])
        validations = case["validations"]
        lrs = []
        for k in range(steps):
            for validation in validations:
                if validation["step"] == k:
                    plateau.step(validation["metric"])
            lr = optimizer.param_groups[0]["lr"]
            lrs.append(warmup_lrs[k] / base_lr * lr if k < warmup else lr)
        return config, lrs

    optimizer = make_optimizer(base_lr)
    main = make_main_scheduler(optimizer, config, main_steps)
    main_lrs = stepped_lrs(optimizer, main, steps - len(warmup_lrs))
    if config["name"] == "cosine":
        # The closed form must agree with the recursion torch runs in step(), past T_max too.
        t_max = config["t_max"] if config["t_max"] > 0 else main_steps
        closed = cosine_closed_form(base_lr, config["eta_min"], t_max, len(main_lrs))
        for k, (stepped, closed_lr) in enumerate(zip(main_lrs, closed)):
            assert abs(stepped - closed_lr) <= 1e-9 * abs(stepped) + 1e-15, \
                "cosine closed form is off at main step %d in %s: %r vs %r" % (k, case["name"], stepped, closed_lr)
    return config, warmup_lrs + main_lrs


def plateau_validations(first_step, every, metrics):
    return [{"step": first_step + i * every, "metric": m} for i, m in enumerate(metrics)]


CASES = [
    {"name": "constant", "base_lr": 0.05, "total_steps": 20, "config": {"name": "constant"}},
    {"name": "constant_warmup", "base_lr": 0.05, "total_steps": 30,
     "config": {"name": "constant", "warmup_steps": 8, "warmup_start_factor": 0.1}},
    {"name": "step", "base_lr": 0.1, "total_steps": 50, "config": {"name": "step", "step_size": 7, "gamma": 0.5}},
    {"name": "step_warmup", "base_lr": 0.1, "total_steps": 60,
     "config": {"name": "step", "step_size": 9, "gamma": 0.3, "warmup_steps": 5, "warmup_start_factor": 0.2}},
    # Unsorted and repeated milestones: torch counts a repeated milestone twice.
    {"name": "multistep", "base_lr": 0.2, "total_steps": 60,
     "config": {"name": "multistep", "milestones": [40, 10, 25, 25], "gamma": 0.3}},
    {"name": "multistep_warmup", "base_lr": 0.2, "total_steps": 60,
     "config": {"name": "multistep", "milestones": [5, 20], "gamma": 0.5, "warmup_steps": 10}},
    {"name": "exponential", "base_lr": 0.3, "total_steps": 120, "config": {"name": "exponential", "gamma": 0.97}},
    {"name": "exponential_warmup", "base_lr": 0.3, "total_steps": 80,
     "config": {"name": "exponential", "gamma": 0.9, "warmup_steps": 6, "warmup_start_factor": 0.5}},
    {"name": "cosine_rest_of_run", "base_lr": 0.1, "total_steps": 100, "config": {"name": "cosine"}},
    # T_max shorter than the run: the cosine comes back up after T_max, as torch's step() does.
    {"name": "cosine_eta_min_short_t_max", "base_lr": 0.1, "total_steps": 100, "steps": 250,
     "config": {"name": "cosine", "t_max": 40, "eta_min": 0.001}},
    {"name": "cosine_warmup", "base_lr": 0.1, "total_steps": 120,
     "config": {"name": "cosine", "warmup_steps": 20, "eta_min": 1e-4}},
    {"name": "cosine_warmup_short_t_max", "base_lr": 0.1, "total_steps": 120, "steps": 200,
     "config": {"name": "cosine", "warmup_steps": 15, "t_max": 30, "eta_min": 0.002,
                "warmup_start_factor": 0.05}},
    {"name": "onecycle_cos", "base_lr": 0.4, "total_steps": 100, "config": {"name": "onecycle"}},
    {"name": "onecycle_linear", "base_lr": 0.4, "total_steps": 77,
     "config": {"name": "onecycle", "anneal_strategy": "linear", "pct_start": 0.25, "div_factor": 10.0,
                "final_div_factor": 100.0}},
    {"name": "onecycle_three_phase_cos", "base_lr": 0.4, "total_steps": 90,
     "config": {"name": "onecycle", "three_phase": True, "pct_start": 0.3}},
    {"name": "onecycle_three_phase_linear_warmup", "base_lr": 0.4, "total_steps": 110,
     "config": {"name": "onecycle", "three_phase": True, "anneal_strategy": "linear", "pct_start": 0.2,
                "warmup_steps": 10, "warmup_start_factor": 0.3}},
    {"name": "onecycle_cos_warmup", "base_lr": 0.4, "total_steps": 64,
     "config": {"name": "onecycle", "warmup_steps": 12}},
    # transformers' linear schedule (BERT's fine-tuning): from 0 over the warmup, then down to 0; past the end
    # it stays 0.
    {"name": "linear", "base_lr": 5e-5, "total_steps": 40, "config": {"name": "linear"}},
    {"name": "linear_warmup", "base_lr": 2e-5, "total_steps": 60, "steps": 66,
     "config": {"name": "linear", "warmup_steps": 6}},
    # Reductions after patience, a rel threshold that ignores tiny improvements, cooldown, then min_lr.
    {"name": "plateau_min_rel_cooldown_min_lr", "base_lr": 0.1, "total_steps": 200,
     "config": {"name": "plateau", "plateau_mode": "min", "factor": 0.5, "patience": 2, "threshold": 0.01,
                "threshold_mode": "rel", "cooldown": 2, "min_lr": 0.01},
     "validations": plateau_validations(8, 8, [1.0, 0.9, 0.895, 0.9, 0.91, 0.8, 0.85, 0.85, 0.85, 0.85,
                                                0.85, 0.85, 0.85, 0.79, 0.85, 0.85, 0.85, 0.85, 0.85, 0.85,
                                                0.85, 0.85, 0.85, 0.85])},
    {"name": "plateau_max_abs", "base_lr": 0.05, "total_steps": 150,
     "config": {"name": "plateau", "plateau_mode": "max", "factor": 0.2, "patience": 1, "threshold": 0.02,
                "threshold_mode": "abs", "cooldown": 1},
     "validations": plateau_validations(5, 10, [0.5, 0.6, 0.61, 0.615, 0.64, 0.63, 0.7, 0.7, 0.69, 0.71,
                                                 0.72, 0.72, 0.72, 0.8])},
    {"name": "plateau_max_rel_warmup", "base_lr": 0.05, "total_steps": 120,
     "config": {"name": "plateau", "plateau_mode": "max", "factor": 0.5, "patience": 0, "threshold": 0.1,
                "threshold_mode": "rel", "warmup_steps": 30, "warmup_start_factor": 0.1},
     "validations": plateau_validations(4, 8, [0.3, 0.31, 0.5, 0.52, 0.6, 0.9, 0.91, 0.95, 1.2, 1.2, 1.2,
                                                1.0, 1.5, 1.55])},
    {"name": "plateau_min_abs_warmup", "base_lr": 0.02, "total_steps": 100,
     "config": {"name": "plateau", "plateau_mode": "min", "factor": 0.1, "patience": 1, "threshold": 0.05,
                "threshold_mode": "abs", "warmup_steps": 25, "warmup_start_factor": 0.01, "cooldown": 1},
     "validations": plateau_validations(3, 6, [2.0, 1.97, 1.9, 1.88, 1.87, 1.7, 1.69, 1.68, 1.67, 1.66,
                                                1.65, 1.4, 1.39, 1.38, 1.37, 1.36])},
    # With a tiny lr, torch stops reducing once a reduction would change the lr by no more than eps = 1e-8.
    {"name": "plateau_eps_stops_reduction", "base_lr": 1e-7, "total_steps": 60,
     "config": {"name": "plateau", "factor": 0.5, "patience": 0, "threshold_mode": "abs", "threshold": 0.0},
     "validations": plateau_validations(2, 5, [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0])},
]


def main():
    warnings.simplefilter("ignore")  # torch warns about stepping schedulers of a parameter without gradient
    out_cases = []
    for case in CASES:
        config, lrs = simulate(case)
        entry = {
            "name": case["name"],
            "base_lr": case["base_lr"],
            "total_steps": case["total_steps"],
            "config": config,
            "lrs": lrs,
        }
        if "validations" in case:
            entry["validations"] = case["validations"]
        out_cases.append(entry)
    document = {
        "generated_by": "scripts/make_schedule_fixtures.py",
        "torch_version": torch.__version__,
        "cases": out_cases,
    }
    with open(OUTPUT, "w") as f:
        json.dump(document, f, indent=1)
        f.write("\n")
    print("wrote %d cases to %s" % (len(out_cases), os.path.normpath(OUTPUT)))


if __name__ == "__main__":
    main()
