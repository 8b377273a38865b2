#!/usr/bin/python3
"""The quick try in a plain PyTorch loop: the figure `workbench-cli train` with the same keys is held against.

    build/cli/workbench-cli train --set model.preset=mlp --set data.limit=10000 --set train.epochs=1
    /usr/bin/python3 bench/quick_try_reference.py [--seeds 5] [--limit 10000] [--batch 128] [--epochs 1]

What a PyTorch user writes when nothing is tuned: the first 10,000 Fashion-MNIST training images (Debian's
dataset-fashion-mnist), normalized with their own mean and std, shuffled each epoch, no augmentation, no
validation split, the workbench's `mlp` preset (flatten, linear 256, relu, dropout 0.2, linear 128, relu,
linear 10) with torch's default initialization, torch.optim.AdamW(lr=1e-3) with all its defaults (weight decay
0.01 on every parameter), no schedule, cross-entropy, batch 128 (drop_last=False). Prints the test accuracy on
all 10,000 test images for each seed, then their mean.
"""
import argparse
import gzip
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

DATA = "/usr/share/datasets/fashion-mnist"


def read_idx(name, header):
    path = os.path.join(DATA, name)
    opener = gzip.open if path.endswith(".gz") else open
    if not os.path.exists(path):
        path, opener = path[:-3], open
    with opener(path, "rb") as f:
        return np.frombuffer(f.read()[header:], np.uint8)


def load(limit):
    train_x = read_idx("train-images-idx3-ubyte.gz", 16).reshape(-1, 1, 28, 28)[:limit]
    train_y = read_idx("train-labels-idx1-ubyte.gz", 8)[:limit]
    test_x = read_idx("t10k-images-idx3-ubyte.gz", 16).reshape(-1, 1, 28, 28)
    test_y = read_idx("t10k-labels-idx1-ubyte.gz", 8)
    train_x = torch.from_numpy(train_x.astype(np.float32) / 255.0)
    test_x = torch.from_numpy(test_x.astype(np.float32) / 255.0)
    mean, std = train_x.mean(), train_x.std()
    return ((train_x - mean) / std, torch.from_numpy(train_y.astype(np.int64)),
            (test_x - mean) / std, torch.from_numpy(test_y.astype(np.int64)))


def mlp():
    return nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.ReLU(), nn.Dropout(0.2), nn.Linear(256, 128),
                         nn.ReLU(), nn.Linear(128, 10))


def run(seed, data, batch, epochs):
    train_x, train_y, test_x, test_y = data
    torch.manual_seed(seed)
    model = mlp()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for _ in range(epochs):
        model.train()
        order = torch.randperm(len(train_x))
        for start in range(0, len(order), batch):
            index = order[start:start + batch]
            loss = F.cross_entropy(model(train_x[index]), train_y[index])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    model.eval()
    with torch.no_grad():
        return float((model(test_x).argmax(1) == test_y).float().mean())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--limit", type=int, default=10000)
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--epochs", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(2)
    data = load(args.limit)
    accuracies = [run(seed, data, args.batch, args.epochs) for seed in range(args.seeds)]
    for seed, accuracy in enumerate(accuracies):
        print(f"seed {seed}: test accuracy {accuracy:.4f}")
    print(f"mean test accuracy {np.mean(accuracies):.4f} over {args.seeds} seeds "
          f"(min {min(accuracies):.4f}, max {max(accuracies):.4f})")


if __name__ == "__main__":
    main()
