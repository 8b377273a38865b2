#!/usr/bin/env python3
"""Writes bench/models/resnet50.json and vit_b_16.json: torchvision's ResNet-50 and ViT-B/16 as the engine's
layer lists (docs/experiment.md, "Layer lists"), on synthetic 3x224x224 images of 1000 classes, for
bench/compare.sh's standard-model rows. Run it again after changing either architecture here.

ResNet-50 (torchvision.models.resnet50, "v1.5": the stride sits on the bottleneck's 3x3 conv): stem conv 7x7/2
(64, no bias) -> batch norm -> relu -> max pool 3x3/2 padding 1; stages of 3, 4, 6, 3 bottlenecks (1x1 -> 3x3 ->
1x1 at 4x expansion, each conv without bias and followed by batch norm, the block's sum followed by relu; the
first block of each stage projects its shortcut with a 1x1 conv + batch norm); global average pool; linear 1000.
ViT-B/16 (torchvision.models.vit_b_16): patch 16, dim 768, class token and learned position embedding, 12 pre-norm
encoder blocks of 12 heads and MLP ratio 4 (GELU), layer norm, the class token, linear 1000.

usage: bench/models/make_models.py
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def conv(out, k, stride=1, padding=0):
    layer = {"type": "conv2d", "out_channels": out, "kernel_size": k, "bias": False}
    if stride != 1:
        layer["stride"] = stride
    if padding:
        layer["padding"] = padding
    return layer


BN = {"type": "batchnorm2d"}
RELU = {"type": "relu"}


def bottleneck(width, stride, project):
    block = {"type": "residual",
             "layers": [conv(width, 1), BN, RELU, conv(width, 3, stride, 1), BN, RELU, conv(width * 4, 1), BN]}
    if project:
        block["shortcut"] = [conv(width * 4, 1, stride), BN]
    return [block, RELU]


def resnet50(classes):
    layers = [conv(64, 7, 2, 3), BN, RELU, {"type": "maxpool2d", "kernel_size": 3, "stride": 2, "padding": 1}]
    for width, blocks, stride in [(64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)]:
        for b in range(blocks):
            layers += bottleneck(width, stride if b == 0 else 1, b == 0)
    return layers + [{"type": "adaptive_avgpool2d", "output_size": 1}, {"type": "flatten"},
                     {"type": "linear", "out_features": classes}]


def vit_b_16(classes):
    return ([{"type": "patch_embed", "patch_size": 16, "dim": 768}, {"type": "position_embedding", "cls_token": True}]
            + [{"type": "encoder_block", "heads": 12, "mlp_ratio": 4}] * 12
            + [{"type": "layernorm"}, {"type": "token_pool", "mode": "cls"},
               {"type": "linear", "out_features": classes}])


def experiment(name, layers, classes):
    return {"name": name, "model": {"layers": layers},
            "data": {"dataset": "synthetic", "augment": False,
                     "synthetic": {"samples": 512, "classes": classes, "shape": [3, 224, 224]}},
            "optimizer": {"name": "adamw"}, "train": {"batch_size": 128}}


def main():
    for name, build in [("resnet50", resnet50), ("vit_b_16", vit_b_16)]:
        path = os.path.join(HERE, name + ".json")
        with open(path, "w") as f:
            json.dump(experiment(name, build(1000), 1000), f, indent=1)
            f.write("\n")
        print("wrote", path)


if __name__ == "__main__":
    main()
