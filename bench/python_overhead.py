"""Wall-clock microseconds per call of the Python binding on tiny tensors with
cached plans, beside PyTorch's own ops, a C++ extension and a bare ctypes
call, in one process.

    BARACUDA_LIBRARY=<build>/libbaracuda_kernels.so.0 PYTHONPATH=bindings/python \\
        [BARACUDA_TRIDAO=<folder of causal_conv1d_cuda.so>] python3 bench/python_overhead.py [--json PATH]

Each row: warm-up, then the median over repeats of a loop of calls that ends
with a device synchronize. Each binding row is timed as the binding runs it
(through the compiled fast path where it was built) and through the Python
path alone, and beside its ctypes floor: the same plan's C function through
ctypes with an argument array built once (plan validation and the op's
launches, several for some modes). With BARACUDA_TRIDAO, Tri Dao's
causal-conv1d extension (pybind11; what Mamba calls) runs the same
convolution: the speed of a C++ extension. --cpu needs neither torch nor a
GPU: it runs the PyTorch path with the tests' stand-in torch module through
Plan.check (plans for sm_90; Plan.check has no fast path) and counts this
thread's CPU time, an estimate of the Python side alone on a shared
machine."""
import argparse
import ctypes
import functools
import json
import os
import statistics
import sys
import time

CALLS = 2000
REPEATS = 7
WARMUP = 200


def per_call_us(call, sync, clock):
    for _ in range(WARMUP):
        call()
    sync()
    times = []
    for _ in range(REPEATS):
        start = clock()
        for _ in range(CALLS):
            call()
        sync()
        times.append((clock() - start) / CALLS / 1000)
    return statistics.median(times)


def bare(c_function, plan, **arrays):
    """plan's C function called through ctypes with an argument array built once, as a
    C++ extension would call it: the C floor of a call (plan validation and, for run,
    the launches)."""
    args, stream, _ = plan._args.fill(arrays, None)
    handle, count = plan._plan, len(args)
    if c_function.__name__ == "baracuda_plan_run":
        stream, no_bytes = ctypes.c_void_p(stream.value), ctypes.c_size_t(0)  # its own: fill reuses the thread's
        return lambda: c_function(handle, args, count, None, no_bytes, stream)
    return lambda: c_function(handle, args, count)


def cached_plan(baracuda, helper_call):
    """The plan a helper call cached (its newest entry)."""
    helper_call()
    entry = list(baracuda._ops._plans.values())[-1]
    return entry[0] if isinstance(entry, tuple) else entry


def binding_rows(baracuda, make, method, c_function, **select):
    """The binding's rows (name, call, its ctypes floor, goal), the f32 pad plan with its
    tensors, and the conv's tensors: make(shape, torch dtype name, requires_grad) gives a
    tensor, method is "run" or "check" (c_function the matching C function), select goes
    to every Plan."""

    def pad_plan(name):
        plan = baracuda.Plan("pad", dtype={"float32": "f32", "bfloat16": "bf16"}[name], mode="reflect", rank=2,
                             input_shape=[4, 100], pad_low=[0, 3], pad_high=[0, 5], **select)
        return plan, make([4, 100], name), make([4, 108], name)

    pad32, x32, y32 = pad_plan("float32")
    pad16, x16, y16 = pad_plan("bfloat16")
    B, C, L, W = 2, 64, 8, 4
    conv_arrays = {"X": make([B, C, L], "bfloat16"), "WEIGHT": make([C, W], "bfloat16", True),
                   "BIAS": make([C], "bfloat16", True), "Y": make([B, C, L], "bfloat16")}
    conv = baracuda.Plan("causal_conv1d", dtype="bf16", width=W, activation="silu", batch=B, channels=C, seq_len=L,
                         **select)
    dy, dx = make([4, 108], "float32"), make([4, 100], "float32")
    dest, source = make([4, 64, 32], "float32"), make([4, 1, 32], "float32")

    def helper_row(name, helper_call, **arrays):
        floor = bare(c_function, cached_plan(baracuda, helper_call), **arrays)
        return (name + ("" if method == "run" else " (check instead of run)"), helper_call, floor, 12)

    def plan_row(name, plan, call, **arrays):
        return (f"Plan.{method} {name}", call, bare(c_function, plan, **arrays), 8)

    # each call written as a user writes it, with keywords (a functools.partial would add a dict copy per call)
    run32, run16, run_conv = (getattr(plan, method) for plan in (pad32, pad16, conv))
    x, w, b, y = conv_arrays.values()
    return [
        plan_row("pad f32", pad32, lambda: run32(X=x32, Y=y32), X=x32, Y=y32),
        plan_row("pad bf16", pad16, lambda: run16(X=x16, Y=y16), X=x16, Y=y16),
        plan_row("causal_conv1d bf16", conv, lambda: run_conv(X=x, WEIGHT=w, BIAS=b, Y=y), **conv_arrays),
        helper_row("baracuda.pad", lambda: baracuda.pad(x32, (3, 5), mode="reflect"), X=x32, Y=y32),
        helper_row("baracuda.pad_backward reflect", lambda: baracuda.pad_backward(dy, (3, 5), mode="reflect"), DY=dy,
                   DX=dx),
        helper_row("baracuda.pad_backward constant", lambda: baracuda.pad_backward(dy, (3, 5)), DY=dy, DX=dx),
        helper_row("baracuda.write_slice", lambda: baracuda.write_slice(dest, source, (0, 10, 0)), DEST=dest,
                   SOURCE=source),
    ], (pad32, x32, y32), conv_arrays


def gpu_rows():
    import torch
    import torch.nn.functional as F

    import baracuda

    def make(shape, name, requires_grad=False):  # random, never zeros
        return torch.randn(shape, device="cuda").to(getattr(torch, name)).requires_grad_(requires_grad)

    run = baracuda._plan._run
    rows, (plan, x, y), conv_arrays = binding_rows(baracuda, make, "run", run)
    plan.run(X=x, Y=y)
    assert torch.equal(y, F.pad(x, (3, 5), mode="reflect")), "baracuda's pad differs from F.pad"
    shape, dtype, device = (4, 108), x.dtype, x.device
    rows += [
        ("F.pad (PyTorch)", lambda: F.pad(x, (3, 5), mode="reflect"), None, None),
        ("torch.add (PyTorch)", lambda: torch.add(x, x), None, None),
        ("x.new_empty(shape) (PyTorch)", lambda: x.new_empty(shape), None, None),
        ("torch.empty(shape, dtype=, device=) (PyTorch)", lambda: torch.empty(shape, dtype=dtype, device=device), None,
         None),
        (f"bare ctypes {run.__name__} (pad f32)", bare(run, plan, X=x, Y=y), None, None),
    ]
    tridao = os.environ.get("BARACUDA_TRIDAO")
    if tridao:  # the same convolution (bf16, SiLU) through Tri Dao's pybind11 extension
        sys.path.insert(0, tridao)
        import causal_conv1d_cuda

        cx, cw, cb, cy = conv_arrays.values()
        rows.append(("causal_conv1d_fwd (Tri Dao's C++ extension, same conv)",
                     lambda: causal_conv1d_cuda.causal_conv1d_fwd(cx, cw, cb, None, None, cy, None, True), None, None))
    return rows, torch.cuda.synchronize, torch.cuda.get_device_name(), time.perf_counter_ns


def cpu_rows():
    """The same calls through Plan.check, with the stand-in torch module."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bindings", "python", "tests"))
    from fake_torch import Tensor, torch

    sys.modules["torch"] = torch
    import baracuda
    from baracuda import _ops, _plan

    # the helpers plan for sm_90 and check where they would run
    _ops.Plan = functools.partial(_plan.Plan, target_sm=90)
    check = _plan._check
    _plan._run = lambda plan, args, count, workspace, workspace_bytes, stream: check(plan, args, count)

    def make(shape, name, requires_grad=False):
        return Tensor(shape, getattr(torch, name), requires_grad=requires_grad)

    def python_call():
        pass

    rows, (plan, x, y), _ = binding_rows(baracuda, make, "check", check, target_sm=90)
    rows += [(f"bare ctypes {check.__name__} (pad f32)", bare(check, plan, X=x, Y=y), None, None),
             ("an empty Python function call (this machine's speed)", python_call, None, None)]
    # the CPU time of this thread: the development machine is shared, and wall clock counts the others' turns
    return rows, lambda: None, "CPU only (stand-in torch, Plan.check; thread CPU time)", time.thread_time_ns


def measure(rows, sync, clock):
    """A dict per row: us per call, and for the binding's rows the Python path's and the ctypes floor."""
    from baracuda import _plan

    fast = _plan._FAST_RUN
    results = []
    for name, call, floor, goal in rows:
        r = {"row": name, "us_per_call": per_call_us(call, sync, clock), "goal_us": goal}
        if floor is not None:
            _plan._FAST_RUN = None
            r["python_path_us"] = per_call_us(call, sync, clock)
            _plan._FAST_RUN = fast
            r["ctypes_floor_us"] = per_call_us(floor, sync, clock)
        results.append(r)
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", metavar="PATH", help="also write the rows as JSON")
    parser.add_argument("--cpu", action="store_true", help="no GPU or torch: the Python side through Plan.check")
    options = parser.parse_args()
    rows, sync, device, clock = cpu_rows() if options.cpu else gpu_rows()
    results = measure(rows, sync, clock)
    from baracuda import _fast

    print(f"Python overhead on {device}: median of {REPEATS} loops of {CALLS} calls, tiny tensors, cached plans;")
    print(f"compiled fast path: {'yes, ' + _fast.module.__file__ if _fast.module else 'no'}", end="")
    print(f"; tensors read through DLPack's C exchange API: {'yes' if _fast.module and _fast.module.exchange_api() else 'no'}.")
    print("ctypes floor: the same plan's C function through ctypes, argument array built once.\n")
    print("| row | us/call | Python path us | ctypes floor us | goal |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for r in results:
        python, floor = (f"{r['python_path_us']:.2f}", f"{r['ctypes_floor_us']:.2f}") if "ctypes_floor_us" in r else ("", "")
        goal = "" if r["goal_us"] is None else f"<= {r['goal_us']}"
        print(f"| {r['row']} | {r['us_per_call']:.2f} | {python} | {floor} | {goal} |")
    if options.json:
        with open(options.json, "w") as f:
            json.dump({"device": device, "calls": CALLS, "repeats": REPEATS, "rows": results}, f, indent=1)


if __name__ == "__main__":
    main()
