"""Wall-clock microseconds per call of the Python binding on tiny tensors with
cached plans, beside PyTorch's own ops and a bare ctypes call, in one process.

    BARACUDA_LIBRARY=<build>/libbaracuda_kernels.so.0 PYTHONPATH=bindings/python \\
        python3 bench/python_overhead.py [--json PATH]

Each row: warm-up, then the median over repeats of a loop of calls that ends
with a device synchronize. --cpu needs neither torch nor a GPU: it runs the
PyTorch path with the tests' stand-in torch module through Plan.check
(plans for sm_90), an estimate of the Python side alone."""
import argparse
import functools
import json
import os
import statistics
import sys
import time

CALLS = 2000
REPEATS = 7
WARMUP = 200


def per_call_us(call, sync):
    for _ in range(WARMUP):
        call()
    sync()
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter_ns()
        for _ in range(CALLS):
            call()
        sync()
        times.append((time.perf_counter_ns() - start) / CALLS / 1000)
    return statistics.median(times)


def binding_rows(baracuda, make, method, **select):
    """The binding's rows: make(shape, torch dtype name, requires_grad) gives a tensor,
    method is "run" or "check", select goes to every Plan."""

    def pad_plan(name):
        plan = baracuda.Plan("pad", dtype={"float32": "f32", "bfloat16": "bf16"}[name], mode="reflect", rank=2, input_shape=[4, 100], pad_low=[0, 3],
                             pad_high=[0, 5], **select)
        return getattr(plan, method), make([4, 100], name), make([4, 108], name)

    pad32, x32, y32 = pad_plan("float32")
    pad16, x16, y16 = pad_plan("bfloat16")
    B, C, L, W = 2, 64, 8, 4
    cx, cy = make([B, C, L], "bfloat16"), make([B, C, L], "bfloat16")
    cw, cb = make([C, W], "bfloat16", True), make([C], "bfloat16", True)
    conv = getattr(baracuda.Plan("causal_conv1d", dtype="bf16", width=W, activation="silu", batch=B, channels=C,
                                 seq_len=L, **select), method)
    dy = make([4, 108], "float32")
    dest, source = make([4, 64, 32], "float32"), make([4, 1, 32], "float32")
    label = "" if method == "run" else " (check instead of run)"
    return [
        (f"Plan.{method} pad f32", lambda: pad32(X=x32, Y=y32), 8),
        (f"Plan.{method} pad bf16", lambda: pad16(X=x16, Y=y16), 8),
        (f"Plan.{method} causal_conv1d bf16", lambda: conv(X=cx, WEIGHT=cw, BIAS=cb, Y=cy), 8),
        ("baracuda.pad" + label, lambda: baracuda.pad(x32, (3, 5), mode="reflect"), 12),
        ("baracuda.pad_backward" + label, lambda: baracuda.pad_backward(dy, (3, 5), mode="reflect"), 12),
        ("baracuda.write_slice" + label, lambda: baracuda.write_slice(dest, source, (0, 10, 0)), 12),
    ], (pad32.__self__, x32, y32)


def bare_row(c_function, plan, x, y):
    """The C function called with the plan's prebuilt argument array, as an extension would."""
    args, stream, _ = plan._args.fill({"X": x, "Y": y}, None)
    handle = plan._handle
    if c_function.__name__ == "baracuda_plan_run":
        return (f"bare ctypes {c_function.__name__}", lambda: c_function(handle, args, 2, None, 0, stream), None)
    return (f"bare ctypes {c_function.__name__}", lambda: c_function(handle, args, 2), None)


def gpu_rows():
    import torch
    import torch.nn.functional as F

    import baracuda

    def make(shape, name, requires_grad=False):  # random, never zeros
        return torch.randn(shape, device="cuda").to(getattr(torch, name)).requires_grad_(requires_grad)

    rows, (plan, x, y) = binding_rows(baracuda, make, "run")
    plan.run(X=x, Y=y)
    assert torch.equal(y, F.pad(x, (3, 5), mode="reflect")), "baracuda's pad differs from F.pad"
    rows += [
        ("F.pad (PyTorch)", lambda: F.pad(x, (3, 5), mode="reflect"), None),
        ("torch.add (PyTorch)", lambda: torch.add(x, x), None),
        bare_row(baracuda._lib.baracuda_plan_run, plan, x, y),
    ]
    return rows, torch.cuda.synchronize, torch.cuda.get_device_name()


def cpu_rows():
    """The same calls through Plan.check, with the stand-in torch module."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bindings", "python", "tests"))
    from fake_torch import Tensor, torch

    sys.modules["torch"] = torch
    import baracuda
    from baracuda import _ops, _plan

    # the helpers plan for sm_90 and check where they would run
    _ops.Plan = functools.partial(_plan.Plan, target_sm=90)
    check = baracuda._lib.baracuda_plan_check
    _plan._run = lambda plan, args, count, workspace, workspace_bytes, stream: check(plan, args, count)

    def make(shape, name, requires_grad=False):
        return Tensor(shape, getattr(torch, name), requires_grad=requires_grad)

    def python_call():
        pass

    rows, (plan, x, y) = binding_rows(baracuda, make, "check", target_sm=90)
    rows += [bare_row(check, plan, x, y), ("an empty Python function call (this machine's speed)", python_call, None)]
    return rows, lambda: None, "CPU only (stand-in torch, Plan.check)"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", metavar="PATH", help="also write the rows as JSON")
    parser.add_argument("--cpu", action="store_true", help="no GPU or torch: the Python side through Plan.check")
    options = parser.parse_args()
    rows, sync, device = cpu_rows() if options.cpu else gpu_rows()
    results = [{"row": name, "us_per_call": per_call_us(call, sync), "goal_us": goal} for name, call, goal in rows]
    print(f"Python overhead on {device}: median of {REPEATS} loops of {CALLS} calls, tiny tensors, cached plans\n")
    print("| row | us/call | goal |")
    print("| --- | ---: | ---: |")
    for r in results:
        goal = "" if r["goal_us"] is None else f"<= {r['goal_us']}"
        print(f"| {r['row']} | {r['us_per_call']:.2f} | {goal} |")
    if options.json:
        with open(options.json, "w") as f:
            json.dump({"device": device, "calls": CALLS, "repeats": REPEATS, "rows": results}, f, indent=1)


if __name__ == "__main__":
    main()
