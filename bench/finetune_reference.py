"""The PyTorch peer of bench/finetune.sh: the same recipe as the workbench's runs, in torch + torchvision
(Debian's torch 1.13 and torchvision 0.14), on the same folders.

  pretrain: torchvision.models.resnet18(num_classes=len(classes)) from its own random init on TRAIN, saved with
            torch.save(model.state_dict(), WEIGHTS) (a file the workbench's model.weights reads too).
  frozen:   resnet18 with a new head for TRAIN's classes, the body loaded from WEIGHTS and frozen
            (requires_grad False, its batch norms kept in eval mode so their statistics stay), only fc trained —
            what the workbench's model.freeze = "body" does.
  full:     the same start, everything trained, the body's parameters in a group at LR_SCALE x the head's rate —
            the workbench's optimizer.param_groups [{"params": ["conv1.*", "bn1.*", "layer*"], "lr_scale": ...}].
  scratch:  resnet18(num_classes=...) from random init, everything at the one rate.
  score:    no training: WEIGHTS (the whole model, head included) scored on TEST — the check that both sides
            measure a model alike.

WEIGHTS may be a safetensors file (the workbench's export, torchvision's names; read here by hand, as torch 1.13
has no reader) or a torch.save file. Its fc.* (the other half's classes) is left out; every other tensor must be
there and fit (load_state_dict strict on the body).

Data as the workbench's image_folder with data.images.crop CROP, data.augment.enabled, normalize "imagenet":
training RandomResizedCrop(CROP) + RandomHorizontalFlip + ToTensor + Normalize(ImageNet), the test CenterCrop(CROP)
+ ToTensor + Normalize; DataLoader(batch, shuffle, num_workers=WORKERS, persistent workers); AdamW(lr, weight decay
0.01 on every parameter, betas 0.9/0.999), the rate along a half cosine to 0 over the run's steps (each group
from its own rate; CosineAnnealingLR stepped after each step, the workbench's schedule cosine); cross-entropy. An epoch is timed from the loader's
iterator to the last optimizer step (the workbench's epoch_s), the test after the last epoch is not in it.

Usage: /usr/bin/python3 bench/finetune_reference.py MODE TRAIN TEST WEIGHTS EPOCHS SEED
         [BATCH=64 CROP=64 LR=0.001 LR_SCALE=0.1 WORKERS=2 THREADS=2]
  MODE pretrain writes WEIGHTS; frozen, full and score read it; scratch ignores it. Prints one JSON line.
"""
import json
import struct
import sys
import time

import torch
import torch.nn.functional as F
import torchvision
from torchvision import datasets, transforms

IMAGENET = ([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])
SAFETENSORS_DTYPES = {"F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16, "I64": torch.int64}


def read_weights(path):
    with open(path, "rb") as f:
        head = f.read(8)
        if head[:2] == b"PK":
            return torch.load(path, map_location="cpu")
        length = struct.unpack("<Q", head)[0]
        header = json.loads(f.read(length))
        data = f.read()
    header.pop("__metadata__", None)
    tensors = {}
    for name, entry in header.items():
        begin, end = entry["data_offsets"]
        flat = torch.frombuffer(bytearray(data[begin:end]), dtype=SAFETENSORS_DTYPES[entry["dtype"]])
        tensors[name] = flat.reshape(entry["shape"])
    return tensors


def load_body(model, path):
    state = {k: v for k, v in read_weights(path).items() if not k.startswith("fc.")}
    result = model.load_state_dict(state, strict=False)
    if result.unexpected_keys or set(result.missing_keys) != {"fc.weight", "fc.bias"}:
        sys.exit(f"error: {path} does not fit resnet18's body: missing {result.missing_keys}, "
                 f"unexpected {result.unexpected_keys}")


def loaders(train_root, test_root, batch, crop, workers):
    normalize = transforms.Normalize(*IMAGENET)
    train = datasets.ImageFolder(train_root, transforms.Compose([
        transforms.RandomResizedCrop(crop), transforms.RandomHorizontalFlip(), transforms.ToTensor(), normalize]))
    test = datasets.ImageFolder(test_root, transforms.Compose([
        transforms.CenterCrop(crop), transforms.ToTensor(), normalize]))
    if test.classes != train.classes:
        sys.exit(f"error: {test_root} has classes {test.classes}, {train_root} {train.classes}")
    train_loader = torch.utils.data.DataLoader(train, batch_size=batch, shuffle=True, num_workers=workers,
                                               persistent_workers=workers > 0)
    test_loader = torch.utils.data.DataLoader(test, batch_size=batch, num_workers=workers)
    return train_loader, test_loader, len(train.classes)


def build(mode, weights, classes, lr, lr_scale):
    model = torchvision.models.resnet18(num_classes=classes)
    if mode in ("frozen", "full"):
        load_body(model, weights)
    head = list(model.fc.parameters())
    body = [p for n, p in model.named_parameters() if not n.startswith("fc.")]
    if mode == "frozen":
        for p in body:
            p.requires_grad_(False)
        groups = [{"params": head}]
    elif mode == "full":
        groups = [{"params": body, "lr": lr * lr_scale}, {"params": head}]
    else:
        groups = [{"params": body + head}]
    return model, torch.optim.AdamW(groups, lr=lr, weight_decay=0.01)


def train_mode(model, mode):
    model.train()
    if mode == "frozen":  # the frozen body's batch norms keep their statistics
        for name, module in model.named_modules():
            if isinstance(module, torch.nn.BatchNorm2d):
                module.eval()


def test_accuracy(model, loader):
    model.eval()
    right, total = 0, 0
    with torch.no_grad():
        for x, y in loader:
            right += (model(x).argmax(1) == y).sum().item()
            total += y.numel()
    return right / total


def main():
    if len(sys.argv) < 7:
        sys.exit(__doc__)
    mode, train_root, test_root, weights = sys.argv[1:5]
    epochs, seed = int(sys.argv[5]), int(sys.argv[6])
    rest = sys.argv[7:] + ["64", "64", "0.001", "0.1", "2", "2"][len(sys.argv[7:]):]
    batch, crop, lr, lr_scale, workers, threads = int(rest[0]), int(rest[1]), float(rest[2]), float(rest[3]), \
        int(rest[4]), int(rest[5])
    if mode not in ("pretrain", "frozen", "full", "scratch", "score"):
        sys.exit(f"error: mode {mode!r}: pretrain, frozen, full, scratch or score")
    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    train_loader, test_loader, classes = loaders(train_root, test_root, batch, crop, workers)
    if mode == "score":
        model = torchvision.models.resnet18(num_classes=classes)
        model.load_state_dict(read_weights(weights))
        print(json.dumps({"mode": mode, "test_accuracy": test_accuracy(model, test_loader)}))
        return
    model, optimizer = build(mode, weights, classes, lr, lr_scale)
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs * len(train_loader))
    epoch_s, train_loss = [], []
    for _ in range(epochs):
        train_mode(model, mode)
        start = time.perf_counter()
        loss_sum, steps = 0.0, 0
        for x, y in train_loader:
            optimizer.zero_grad(set_to_none=True)
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            schedule.step()
            loss_sum, steps = loss_sum + loss.item(), steps + 1
        epoch_s.append(time.perf_counter() - start)
        train_loss.append(loss_sum / steps)
    accuracy = test_accuracy(model, test_loader)
    if mode == "pretrain":
        torch.save(model.state_dict(), weights)
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    print(json.dumps({"mode": mode, "test_accuracy": accuracy, "epoch_s": epoch_s, "train_loss": train_loss,
                      "classes": classes, "trainable_parameters": trainable, "torch": torch.__version__,
                      "torchvision": torchvision.__version__}))


if __name__ == "__main__":
    main()
