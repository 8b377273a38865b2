"""Replays the five AdamW steps tests/support/fused_adamw_steps.h wrote through PyTorch's own
torch.optim.AdamW(fused=True), with grad_scale and found_inf set on the optimizer as torch.amp.GradScaler sets
them for an optimizer whose step supports AMP scaling, and compares parameters, moments and step counts with the
workbench's bit for bit. usage: fused_adamw_replay.py DUMP DEVICE (cpu, cuda). Exit 0 when every tensor is
equal, 1 with the differences printed otherwise."""
import sys

import torch

dump, device = sys.argv[1], sys.argv[2]
d = torch.load(dump, weights_only=False)
params = [t.clone().to(device).requires_grad_(True) for t in d["initial"]]
groups = [{"params": params[:2], "weight_decay": d["weight_decay"][0]},
          {"params": params[2:], "weight_decay": d["weight_decay"][1]}]
opt = torch.optim.AdamW(groups, lr=d["lrs"][0], betas=tuple(d["betas"]), eps=d["eps"], fused=True)
for step, lr in enumerate(d["lrs"]):
    # The workbench stages each rate in a float32 tensor (the kernel's tensor-lr overload, as a CUDA graph needs):
    # the same rate rounded to float32 here, or the bits would differ by that rounding alone.
    for group in opt.param_groups:
        group["lr"] = float(torch.tensor(lr, dtype=torch.float32))
    for p, g in zip(params, d["grads"][step]):
        p.grad = g.to(device)
    # As torch.amp.GradScaler.step sets them: its 0-dim float32 scale and the found_inf it summed.
    opt.grad_scale = torch.full((), d["grad_scale"], dtype=torch.float32, device=device)
    opt.found_inf = torch.full((), d["found_inf"][step], dtype=torch.float32, device=device)
    opt.step()

bad = []
for i, p in enumerate(params):
    state = opt.state[p]
    for name, theirs, ours in (("parameter", p.detach(), d["params"][i]),
                               ("exp_avg", state["exp_avg"], d["exp_avg"][i]),
                               ("exp_avg_sq", state["exp_avg_sq"], d["exp_avg_sq"][i])):
        if not torch.equal(theirs.cpu(), ours):
            diff = (theirs.cpu().double() - ours.double()).abs().max().item()
            bad.append(f"{name} {i}: not bit for bit (largest difference {diff:.3g})")
    if float(state["step"]) != len(d["lrs"]) - sum(d["found_inf"]):
        bad.append(f"step {i}: torch counts {float(state['step'])}")
print(f"fused AdamW on {device}, {len(d['lrs'])} steps ({int(sum(d['found_inf']))} with an inf), torch "
      f"{torch.__version__}: " + ("the same bits (parameters, moments, step counts)" if not bad else "; ".join(bad)))
sys.exit(1 if bad else 0)
