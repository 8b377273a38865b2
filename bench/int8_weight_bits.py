#!/usr/bin/python3
"""What 7-bit int8 weights cost in accuracy, measured independently of the workbench in PyTorch's own eager-mode
quantization (Debian's torch 1.13, oneDNN engine): a CNN shaped like the workbench's preset (conv 32 5x5, conv 64
5x5, linear 128, linear 10) trained 2 epochs on Fashion-MNIST, then static int8 with a histogram observer over
2,048 training images and per-channel symmetric weights of 8 bits ([-128, 127]) and of 7 bits ([-64, 63], what
every workbench int8 artifact uses so that no x86 CPU's int8 kernels saturate). Prints the test accuracy of the
float model and of each int8 model on all 10,000 test images (~1.5 min on 2 cores).

    /usr/bin/python3 bench/int8_weight_bits.py
"""
import gzip, numpy as np, torch, torch.nn as nn, copy
from torch.ao.quantization import QConfig, HistogramObserver, PerChannelMinMaxObserver, prepare, convert, fuse_modules
torch.manual_seed(0); torch.set_num_threads(2)
d="/usr/share/datasets/fashion-mnist/"
def imgs(f): return np.frombuffer(gzip.open(d+f).read(),np.uint8,offset=16).reshape(-1,1,28,28)
def labs(f): return np.frombuffer(gzip.open(d+f).read(),np.uint8,offset=8)
xtr=torch.tensor((imgs("train-images-idx3-ubyte.gz")/255.-0.286)/0.353,dtype=torch.float32); ytr=torch.tensor(labs("train-labels-idx1-ubyte.gz"),dtype=torch.long)
xte=torch.tensor((imgs("t10k-images-idx3-ubyte.gz")/255.-0.286)/0.353,dtype=torch.float32); yte=torch.tensor(labs("t10k-labels-idx1-ubyte.gz"),dtype=torch.long)
class Net(nn.Module):
    def __init__(s):
        super().__init__(); s.q=torch.ao.quantization.QuantStub(); s.dq=torch.ao.quantization.DeQuantStub()
        s.c1=nn.Conv2d(1,32,5,padding=2); s.r1=nn.ReLU(); s.p1=nn.MaxPool2d(2); s.c2=nn.Conv2d(32,64,5,padding=2); s.r2=nn.ReLU(); s.p2=nn.MaxPool2d(2)
        s.f=nn.Flatten(); s.l1=nn.Linear(64*49,128); s.r3=nn.ReLU(); s.l2=nn.Linear(128,10)
    def forward(s,x): return s.dq(s.l2(s.r3(s.l1(s.f(s.p2(s.r2(s.c2(s.p1(s.r1(s.c1(s.q(x))))))))))))
m=Net(); opt=torch.optim.Adam(m.parameters(),1e-3)
for ep in range(2):
    perm=torch.randperm(60000)
    for i in range(0,60000,128):
        idx=perm[i:i+128]; opt.zero_grad(); nn.functional.cross_entropy(m(xtr[idx]),ytr[idx]).backward(); opt.step()
m.eval()
def acc(model): 
    with torch.no_grad(): return (model(xte).argmax(1)==yte).float().mean().item()
print("float", acc(m))
torch.backends.quantized.engine="onednn"
for name, rr in [("w8",False),("w7",True)]:
    q=copy.deepcopy(m); q=fuse_modules(q,[["c1","r1"],["c2","r2"],["l1","r3"]])
    q.qconfig=QConfig(activation=HistogramObserver.with_args(reduce_range=False), weight=PerChannelMinMaxObserver.with_args(dtype=torch.qint8, qscheme=torch.per_channel_symmetric, reduce_range=rr))
    prepare(q,inplace=True)
    with torch.no_grad():
        for i in range(0,2048,64): q(xtr[i:i+64])
    convert(q,inplace=True)
    print(name, acc(q))
