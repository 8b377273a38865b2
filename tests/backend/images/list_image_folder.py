"""Prints what torchvision's ImageFolder finds in a folder, for test_images to compare with: the classes, then
one line per sample, "LABEL PATH". Usage: /usr/bin/python3 list_image_folder.py ROOT"""
import sys

from torchvision.datasets import ImageFolder

folder = ImageFolder(sys.argv[1])
print("\t".join(folder.classes))
for path, label in folder.samples:
    print(label, path)
