"""ResNet-50's forward pass in PyTorch eager, the reference of bench/models.sh: torchvision's
resnet50 (Debian's python3-torchvision) in eval mode under no_grad, with each batch norm
folded into its convolution's bias as bench/resnet50.py folds it for kiln, so both do the
same arithmetic. Weights are torchvision's random initialization.

    /usr/bin/python3 bench/reference/resnet50_torch.py BATCH THREADS

Prints "resnet50_b<BATCH> <median ms>".
"""
import sys

from eager import median_ms


def folded_resnet50():
    import torch
    import torchvision
    model = torchvision.models.resnet50().eval()
    # Every convolution of torchvision's ResNet is followed by its batch norm: fold each
    # (eval mode: an affine map per channel) into the convolution's weights and bias.
    modules = dict(model.named_modules())
    for name, module in list(modules.items()):
        if not isinstance(module, torch.nn.BatchNorm2d):
            continue
        conv_name = name.replace("bn", "conv") if "bn" in name else name[:-1] + "0"
        conv = modules[conv_name]
        scale = module.weight / torch.sqrt(module.running_var + module.eps)
        with torch.no_grad():
            conv.weight.mul_(scale.reshape(-1, 1, 1, 1))
            conv.bias = torch.nn.Parameter(module.bias - module.running_mean * scale)
        parent, _, attr = name.rpartition(".")
        setattr(modules[parent] if parent else model, attr, torch.nn.Identity())
    return model


def main():
    import torch
    batch, threads = int(sys.argv[1]), int(sys.argv[2])
    torch.set_num_threads(threads)
    model = folded_resnet50()
    x = torch.rand(batch, 3, 224, 224, generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        print(f"resnet50_b{batch} {median_ms(lambda: model(x)):.3f}", flush=True)


if __name__ == "__main__":
    main()
