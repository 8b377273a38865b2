"""bench/finetune.sh's recipes, step for step: a few training steps of the workbench against torchvision's resnet18
in torch 1.13 on one fixed batch, from one weights file — so that a difference in arithmetic (the loss, the
optimizer, its parameter groups, weight decay, the schedule, batch norm in training or frozen) shows as a number,
not as a few points of accuracy lost among the seeds' noise.

The batch: 64 files of TRAIN (the benchmark's batch size), each class's first in turn, copied to a folder of their
own, read without augmentation (CenterCrop(CROP), ImageNet's normalization), so that one epoch
is one step and both sides see the same pixels; the order within the batch does not change a step. The start:
WEIGHTS' body (a resnet18 state dict of any class count, safetensors or torch.save) with a head for TRAIN's
classes drawn once by torch, written to one file both sides load whole. Each variant trains STEPS steps on both
sides — frozen (model.freeze "body" / requires_grad False and the body's batch norms in eval mode), full
(optimizer.param_groups [conv1.*, bn1.*, layer*] at lr_scale 0.1 / torch's two param groups) — with AdamW (the
benchmark's: lr 0.001, weight decay 0.01, cosine to 0 over the steps) and with SGD (lr 0.1, no decay: one step
is -lr x the gradient, so the update compares gradients). Then the workbench's run is exported as safetensors
and compared tensor by tensor with torch's state dict: the loss of every step, and for every tensor the
difference between the two sides' results relative to how far torch's moved.

It found that the full fine-tune's body group took the head (its pattern "layer*" matched our "layers.<i>"
names too): fc moved a tenth of what torch's did.

Usage: /usr/bin/python3 bench/finetune_step_check.py CLI TRAIN WEIGHTS [STEPS=3] [WORK=/tmp/wb-finetune-step]
  e.g. bench/finetune_step_check.py build/cli/workbench-cli /tmp/wb-finetune/B/train /tmp/wb-finetune-runs/ours_A.safetensors
Exit status 0 when every variant agrees (losses within 1e-5 relative, each tensor within 1e-3 of torch's
update with SGD, 1e-2 with AdamW, tensors torch leaves alone left alone), 1 otherwise.
"""
import json
import os
import shutil
import subprocess
import sys

import torch
import torch.nn.functional as F
import torchvision
from torchvision import datasets, transforms

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import finetune_reference as ref  # noqa: E402  (the benchmark's PyTorch side: its weights reader and modes)

BATCH, CROP, LR_SCALE = 64, 64, 0.1
OPTIMIZERS = {"adamw": (1e-3, 0.01), "sgd": (0.1, 0.0)}  # lr, weight decay
# How far apart a tensor may end, as a share of torch's update: SGD's step is the gradient itself; Adam's divides
# by the gradient's running size, so elements with tiny gradients carry float rounding up to a whole lr step.
TOLERANCE = {"sgd": 1e-3, "adamw": 1e-2}


def make_batch_folder(train, work):
    """BATCH files of TRAIN into WORK/batch/<class>/: each class's first files in turn (ImageFolder's order)."""
    folder = os.path.join(work, "batch")
    shutil.rmtree(folder, ignore_errors=True)
    by_class = {}
    for path, label in datasets.ImageFolder(train).samples:
        by_class.setdefault(label, []).append(path)
    picked = [files[i] for i in range(BATCH) for files in by_class.values() if i < len(files)][:BATCH]
    for path in picked:
        cls = os.path.basename(os.path.dirname(path))
        os.makedirs(os.path.join(folder, cls), exist_ok=True)
        shutil.copy(path, os.path.join(folder, cls))
    return folder


def start_weights(weights, classes, work):
    torch.manual_seed(0)
    model = torchvision.models.resnet18(num_classes=classes)
    ref.load_body(model, weights)
    path = os.path.join(work, "start.pt")
    torch.save(model.state_dict(), path)
    return path


def torch_side(variant, optimizer, steps, folder, start):
    lr, decay = OPTIMIZERS[optimizer]
    data = datasets.ImageFolder(folder, transforms.Compose(
        [transforms.CenterCrop(CROP), transforms.ToTensor(), transforms.Normalize(*ref.IMAGENET)]))
    x = torch.stack([data[i][0] for i in range(len(data))])
    y = torch.tensor(data.targets)
    model = torchvision.models.resnet18(num_classes=len(data.classes))
    model.load_state_dict(ref.read_weights(start))
    head = list(model.fc.parameters())
    body = [p for n, p in model.named_parameters() if not n.startswith("fc.")]
    if variant == "frozen":
        for p in body:
            p.requires_grad_(False)
        groups = [{"params": head}]
    else:
        groups = [{"params": body, "lr": lr * LR_SCALE}, {"params": head}]
    make = torch.optim.AdamW if optimizer == "adamw" else torch.optim.SGD
    opt = make(groups, lr=lr, weight_decay=decay)
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=steps)
    losses = []
    for _ in range(steps):
        ref.train_mode(model, variant)
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        schedule.step()
        losses.append(loss.item())
    return losses, model.state_dict()


def our_side(cli, variant, optimizer, steps, folder, start, work):
    lr, decay = OPTIMIZERS[optimizer]
    runs = os.path.join(work, "runs")
    sets = {"model.preset": "resnet18", "data.dataset": "image_folder", "data.path": folder,
            "data.val_fraction": "0", "data.test_fraction": "0", "data.images.crop": str(CROP),
            "data.augment.enabled": "false", "data.images.normalize": "imagenet", "data.workers": "0",
            "train.batch_size": str(BATCH), "train.epochs": str(steps), "train.log_every_steps": "1",
            "optimizer.name": optimizer, "optimizer.lr": str(lr), "optimizer.weight_decay": str(decay),
            "schedule.name": "cosine", "seed": "1", "output.runs_dir": runs, "model.weights": start}
    if variant == "frozen":
        sets["model.freeze"] = "body"
    else:
        sets["optimizer.param_groups"] = json.dumps([{"params": ["conv1.*", "bn1.*", "layer*"],
                                                      "lr_scale": LR_SCALE}])
    args = [cli, "train", "--json", "-q"] + [a for k, v in sets.items() for a in ("--set", f"{k}={v}")]
    done = subprocess.run(args, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"error: workbench-cli train ({variant}, {optimizer}) failed:\n{done.stdout}{done.stderr}")
    run = json.loads(done.stdout)["run_dir"]
    exported = os.path.join(work, "ours.safetensors")
    subprocess.run([cli, "export", run, "--format", "safetensors", "--out", exported], check=True,
                   capture_output=True)
    with open(os.path.join(run, "metrics.jsonl")) as f:
        events = [json.loads(line) for line in f]
    losses = [e["loss"] for e in events if e.get("event") == "step"]
    return losses, ref.read_weights(exported)


def compare(variant, optimizer, steps, ours, theirs, start):
    (our_losses, our_state), (their_losses, their_state) = ours, theirs
    begin = ref.read_weights(start)
    problems = []
    if len(our_losses) != steps or any(abs(a - b) > 1e-5 * abs(b) for a, b in zip(our_losses, their_losses)):
        problems.append(f"losses: ours {our_losses}, torch's {their_losses}")
    worst = (0.0, "")
    for name, theirs_now in their_state.items():
        if name.endswith("num_batches_tracked"):
            continue
        if name not in our_state:
            problems.append(f"{name}: not in our export")
            continue
        moved = (theirs_now.double() - begin[name].double()).norm().item()
        apart = (our_state[name].double() - theirs_now.double()).norm().item()
        if moved == 0.0:
            if apart > 0.0:
                problems.append(f"{name}: torch's stayed, ours moved {apart:.3g}")
            continue
        if apart / moved > worst[0]:
            worst = (apart / moved, name)
        if apart > TOLERANCE[optimizer] * moved:
            ours_moved = (our_state[name].double() - begin[name].double()).norm().item()
            problems.append(f"{name}: torch's moved {moved:.4g}, ours {ours_moved:.4g}, apart {apart:.3g}")
    print(f"{variant:6} {optimizer:5} {steps} steps: loss {our_losses[-1] if our_losses else '-'} "
          f"(torch {their_losses[-1]:.7g}); worst tensor {worst[1]} {worst[0]:.2g} of torch's update"
          + ("" if not problems else "\n  DIFFERS: " + "\n  DIFFERS: ".join(problems[:8])))
    return not problems


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    cli, train, weights = sys.argv[1:4]
    steps = int(sys.argv[4]) if len(sys.argv) > 4 else 3
    work = sys.argv[5] if len(sys.argv) > 5 else "/tmp/wb-finetune-step"
    torch.set_num_threads(os.cpu_count() or 1)
    os.makedirs(work, exist_ok=True)
    folder = make_batch_folder(train, work)
    start = start_weights(weights, len(os.listdir(folder)), work)
    agree = True
    for variant in ("frozen", "full"):
        for optimizer, n in (("sgd", 1), ("adamw", steps)):
            theirs = torch_side(variant, optimizer, n, folder, start)
            ours = our_side(cli, variant, optimizer, n, folder, start, work)
            agree = compare(variant, optimizer, n, ours, theirs, start) and agree
    print("agree" if agree else "DIFFER")
    sys.exit(0 if agree else 1)


if __name__ == "__main__":
    main()
