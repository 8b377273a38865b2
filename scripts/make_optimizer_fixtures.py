#!/usr/bin/python3
"""Writes tests/fixtures/optimizers.json: parameters of a tiny model after each step of torch.optim optimizers.

Re-run from the repository root with Debian's Python (torch 1.13):
    /usr/bin/python3 scripts/make_optimizer_fixtures.py
The output is deterministic: weights and data come from a seeded numpy generator and are written out as
numbers, so the C++ test rebuilds the same model from the JSON without needing the generator.

The model is written functionally, so the C++ test can repeat it op for op:
    h = tanh(layer_norm(linear(x, fc1.weight, fc1.bias), [3], norm.weight, norm.bias, eps=1e-5))
    loss = mse_loss(linear(h, fc2.weight, fc2.bias), y)
Each configuration runs 5 steps; before each step every param group's lr is set to that step's entry of
"lrs" (what a schedule does). Parameter groups follow wb::makeOptimizer's rule: unless decay_bias_and_norm
is set, parameters with dim() <= 1 go in a second group with weight_decay 0; empty groups are left out.

"group_cases": optimizer.param_groups (two configured groups beside the default one, with their own lr or
lr_scale and weight decay) under torch's StepLR and CosineAnnealingLR (eta_min, which is not proportional to a
group's rate): each group's lr at every step and the parameters after it.

It also records each torch.optim constructor's own defaults ("torch_defaults"): the C++ test checks that an
experiment that names an optimizer and nothing else builds that optimizer with exactly these options.
"""

import inspect
import json
import os

import numpy as np
import torch
import torch.nn.functional as F

# WB_FIXTURES_OUT: another folder (scripts/compare_fixtures.sh regenerates them with torch 2.x there).
OUTPUT = os.path.join(os.environ.get("WB_FIXTURES_OUT") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures"),
                      "optimizers.json")
SEED = 20240601
STEPS = 5

# Mirrors wb::OptimizerConfig's defaults; a configuration overrides some of them.
DEFAULTS = {
    "name": "adamw",
    "lr": 1e-3,
    "weight_decay": 0.01,
    "momentum": 0.0,
    "nesterov": False,
    "beta1": 0.9,
    "beta2": 0.999,
    "eps": 1e-8,
    "alpha": 0.99,
    "decay_bias_and_norm": True,
}

CONFIGS = [
    {"case": "sgd_plain", "lrs": [0.1, 0.05, 0.08, 0.02, 0.03],
     "config": {"name": "sgd", "momentum": 0.0, "weight_decay": 0.0, "decay_bias_and_norm": True}},
    {"case": "sgd_momentum_nesterov_wd", "lrs": [0.1, 0.05, 0.08, 0.02, 0.03],
     "config": {"name": "sgd", "momentum": 0.9, "nesterov": True, "weight_decay": 0.01,
                "decay_bias_and_norm": False}},
    {"case": "adam", "lrs": [1e-2, 5e-3, 2e-2, 1e-2, 3e-3],
     "config": {"name": "adam", "weight_decay": 0.0, "decay_bias_and_norm": True}},
    {"case": "adam_l2_wd", "lrs": [1e-2, 5e-3, 2e-2, 1e-2, 3e-3],
     "config": {"name": "adam", "weight_decay": 0.1, "beta1": 0.8, "beta2": 0.99, "eps": 1e-6,
                "decay_bias_and_norm": True}},
    {"case": "adamw_wd_no_decay_groups", "lrs": [2e-2, 1e-2, 3e-2, 5e-3, 1e-2],
     "config": {"name": "adamw", "weight_decay": 0.3, "decay_bias_and_norm": False}},
    {"case": "rmsprop_momentum", "lrs": [1e-2, 5e-3, 2e-2, 1e-2, 3e-3],
     "config": {"name": "rmsprop", "alpha": 0.9, "momentum": 0.5, "weight_decay": 0.01,
                "decay_bias_and_norm": False}},
    {"case": "adagrad", "lrs": [0.1, 0.05, 0.08, 0.02, 0.03],
     "config": {"name": "adagrad", "eps": 1e-10, "weight_decay": 0.02, "decay_bias_and_norm": False}},
]


def initial_model_and_data():
    rng = np.random.default_rng(SEED)

    def normal(scale, *shape):
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    parameters = [
        ("fc1.weight", normal(0.5, 3, 4)),
        ("fc1.bias", normal(0.1, 3)),
        ("norm.weight", (1.0 + normal(0.1, 3)).astype(np.float32)),
        ("norm.bias", normal(0.1, 3)),
        ("fc2.weight", normal(0.5, 2, 3)),
        ("fc2.bias", normal(0.1, 2)),
    ]
    inputs = normal(1.0, 8, 4)
    targets = normal(1.0, 8, 2)
    return parameters, inputs, targets


def loss_of(params, x, y):
    hidden = F.linear(x, params["fc1.weight"], params["fc1.bias"])
    hidden = torch.tanh(F.layer_norm(hidden, [3], params["norm.weight"], params["norm.bias"], eps=1e-5))
    return F.mse_loss(F.linear(hidden, params["fc2.weight"], params["fc2.bias"]), y)


def make_optimizer(config, groups):
    name = config["name"]
    # foreach=False: the per-tensor loop, which is what LibTorch's C++ optimizers run.
    if name == "sgd":
        return torch.optim.SGD(groups, lr=config["lr"], momentum=config["momentum"], dampening=0,
                               nesterov=config["nesterov"], foreach=False)
    if name == "adam":
        return torch.optim.Adam(groups, lr=config["lr"], betas=(config["beta1"], config["beta2"]),
                                eps=config["eps"], foreach=False)
    if name == "adamw":
        return torch.optim.AdamW(groups, lr=config["lr"], betas=(config["beta1"], config["beta2"]),
                                 eps=config["eps"], foreach=False)
    if name == "rmsprop":
        return torch.optim.RMSprop(groups, lr=config["lr"], alpha=config["alpha"], eps=config["eps"],
                                   momentum=config["momentum"], centered=False, foreach=False)
    if name == "adagrad":
        return torch.optim.Adagrad(groups, lr=config["lr"], lr_decay=0, initial_accumulator_value=0,
                                   eps=config["eps"], foreach=False)
    raise ValueError(name)


def run(case, parameters, inputs, targets):
    assert len(case["lrs"]) == STEPS, case["case"]
    config = dict(DEFAULTS)
    config.update(case["config"])
    params = {name: torch.tensor(values, requires_grad=True) for name, values in parameters}
    names = [name for name, _ in parameters]
    decayed = [n for n in names if config["decay_bias_and_norm"] or params[n].dim() > 1]
    not_decayed = [n for n in names if n not in decayed]
    group_names = [(decayed, config["weight_decay"]), (not_decayed, 0.0)]
    groups = [{"params": [params[n] for n in g], "weight_decay": wd} for g, wd in group_names if g]
    optimizer = make_optimizer(config, groups)

    x = torch.tensor(inputs)
    y = torch.tensor(targets)
    losses = []
    after_steps = []
    for lr in case["lrs"]:
        for group in optimizer.param_groups:
            group["lr"] = lr
        optimizer.zero_grad(set_to_none=True)
        loss = loss_of(params, x, y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        after_steps.append({n: params[n].detach().flatten().tolist() for n in names})
    return {
        "case": case["case"],
        "config": config,
        "lrs": case["lrs"],
        "groups": [{"names": g, "weight_decay": wd} for g, wd in group_names if g],
        "losses": losses,
        "after_step": after_steps,
    }


# optimizer.param_groups under a schedule: torch's own schedulers on torch's param groups, each group scheduled
# from its own initial_lr. The groups are laid out as wb::makeOptimizer lays them out: the default group,
# then each configured group in order, each split into decayed and (unless decay_bias_and_norm) undecayed.
GROUP_STEPS = 6
GROUP_CONFIGS = [
    {"case": "sgd_momentum_two_groups_step_lr",
     "config": {"name": "sgd", "lr": 0.1, "momentum": 0.9, "weight_decay": 0.01, "decay_bias_and_norm": False,
                "param_groups": [{"params": ["fc1.*"], "lr_scale": 0.1},
                                 {"params": ["norm"], "lr": 0.05, "weight_decay": 0.0}]},
     "schedule": {"name": "step", "step_size": 2, "gamma": 0.5}},
    {"case": "adamw_two_groups_cosine_eta_min",
     "config": {"name": "adamw", "lr": 0.02, "weight_decay": 0.1, "decay_bias_and_norm": True,
                "param_groups": [{"params": ["fc1.*", "norm.*"], "lr_scale": 0.1, "weight_decay": 0.0}]},
     "schedule": {"name": "cosine", "t_max": GROUP_STEPS, "eta_min": 1e-3}},
]


def picks(pattern, name):
    import fnmatch
    return fnmatch.fnmatchcase(name, pattern) or fnmatch.fnmatchcase(name, pattern + ".*")


def group_layout(config, names, params):
    """[(names, lr, weight_decay)] in wb::makeOptimizer's order."""
    configured = config["param_groups"]
    assigned = {n: 0 for n in names}
    for g, group in enumerate(configured):
        for n in names:
            if any(picks(p, n) for p in group["params"]):
                assigned[n] = g + 1
    layout = []
    for g in range(len(configured) + 1):
        if g == 0:
            lr, wd = config["lr"], config["weight_decay"]
        else:
            group = configured[g - 1]
            lr = group["lr"] if "lr" in group else group["lr_scale"] * config["lr"]
            wd = group.get("weight_decay", config["weight_decay"])
        members = [n for n in names if assigned[n] == g]
        decayed = [n for n in members if config["decay_bias_and_norm"] or params[n].dim() > 1]
        not_decayed = [n for n in members if n not in decayed]
        if decayed:
            layout.append((decayed, lr, wd))
        if not_decayed:
            layout.append((not_decayed, lr, 0.0))
    return layout


def run_groups(case, parameters, inputs, targets):
    config = dict(DEFAULTS)
    config.update(case["config"])
    params = {name: torch.tensor(values, requires_grad=True) for name, values in parameters}
    names = [name for name, _ in parameters]
    layout = group_layout(config, names, params)
    groups = [{"params": [params[n] for n in g], "lr": lr, "weight_decay": wd} for g, lr, wd in layout]
    optimizer = make_optimizer(config, groups)
    schedule = case["schedule"]
    if schedule["name"] == "step":
        scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=schedule["step_size"],
                                                    gamma=schedule["gamma"])
    else:
        scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=schedule["t_max"],
                                                               eta_min=schedule["eta_min"])
    x = torch.tensor(inputs)
    y = torch.tensor(targets)
    losses, after_steps, lrs = [], [], []
    for _ in range(GROUP_STEPS):
        lrs.append([group["lr"] for group in optimizer.param_groups])
        optimizer.zero_grad(set_to_none=True)
        loss = loss_of(params, x, y)
        loss.backward()
        optimizer.step()
        scheduler.step()
        losses.append(loss.item())
        after_steps.append({n: params[n].detach().flatten().tolist() for n in names})
    return {
        "case": case["case"],
        "config": config,
        "schedule": schedule,
        "steps": GROUP_STEPS,
        "groups": [{"names": g, "lr": lr, "weight_decay": wd} for g, lr, wd in layout],
        "group_lrs": lrs,
        "losses": losses,
        "after_step": after_steps,
    }


OPTIMIZER_CLASSES = {"sgd": torch.optim.SGD, "adam": torch.optim.Adam, "adamw": torch.optim.AdamW,
                     "rmsprop": torch.optim.RMSprop, "adagrad": torch.optim.Adagrad}


def torch_defaults():
    """Each constructor's keyword defaults; a required argument (SGD's lr in torch 1.13) is null."""
    defaults = {}
    for name, cls in OPTIMIZER_CLASSES.items():
        options = {}
        for key, parameter in inspect.signature(cls.__init__).parameters.items():
            if key in ("self", "params", "foreach", "maximize", "capturable", "differentiable", "fused"):
                continue
            value = parameter.default
            if value is parameter.empty or type(value).__name__ == "_RequiredParameter":
                value = None
            options[key] = list(value) if isinstance(value, tuple) else value
        defaults[name] = options
    return defaults


def main():
    torch.set_num_threads(1)
    parameters, inputs, targets = initial_model_and_data()
    document = {
        "generated_by": "scripts/make_optimizer_fixtures.py",
        "torch_version": torch.__version__,
        "seed": SEED,
        "parameters": [{"name": n, "shape": list(v.shape), "values": v.flatten().tolist()} for n, v in parameters],
        "inputs": {"shape": list(inputs.shape), "values": inputs.flatten().tolist()},
        "targets": {"shape": list(targets.shape), "values": targets.flatten().tolist()},
        "cases": [run(case, parameters, inputs, targets) for case in CONFIGS],
        "group_cases": [run_groups(case, parameters, inputs, targets) for case in GROUP_CONFIGS],
        "torch_defaults": torch_defaults(),
    }
    with open(OUTPUT, "w") as f:
        json.dump(document, f, indent=1)
        f.write("\n")
    print("wrote %d cases to %s" % (len(document["cases"]), os.path.normpath(OUTPUT)))


if __name__ == "__main__":
    main()
