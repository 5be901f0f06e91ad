"""Rows of bench/tridao_conv1d_grid.py timed by the grid's own run_case (its
order: the copy, ours, his, then the backwards, each graph's replays in a
row; --after-kernel's columns too), with `ours` a tree of the forward probe
library in place of the baracuda plan: does the grid's sequence, not the
kernels, put rows behind that the interleaved probe has ahead? The backward
slots run Tri Dao's backward for both sides (the grid's load between the
forwards; their times are not reported).

    python3 grid_shim.py <lib> <tridao folder> <seconds> <rows as run.py's rows:> <tree> [<tree> ...]
"""
import ctypes
import os
import sys
import time
import types

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", ".."))
shim = types.ModuleType("baracuda")
sys.modules["baracuda"] = shim
import run as probe  # noqa: E402  (the probe driver: entry, call)
import tridao_conv1d_grid as grid  # noqa: E402

STATE = {}


class Plan:
    def __init__(self, op, **fields):
        self.op, self.fields = op, fields
        self.workspace_size = 0
        self.info = {"kernel_name": f"probe {STATE['tree']}"}

    def run(self, workspace=None, **a):
        x, w, b = a["X"], a["WEIGHT"], a["BIAS"]
        B, C, L = x.shape
        cl = 1 if (x.stride(1) == 1 and C > 1) else 0
        if self.op == "causal_conv1d":
            rc = probe.call(STATE["entry"], 0, 1 if self.fields.get("activation") == "silu" else 0, x, w, b, a["Y"],
                            (B, C, L, w.shape[1], cl))
            if rc:
                raise RuntimeError(f"probe forward status {rc}")
        else:  # the grid's backward slot: Tri Dao's backward (load between the forwards)
            STATE["tridao"].causal_conv1d_bwd(x, w, b, a["DY"], None, None, None, a["DX"], a["DW"], a["DB"], None, True)

    def close(self):
        pass


shim.Plan = Plan


def main():
    start = time.time()
    lib = ctypes.CDLL(sys.argv[1])
    sys.path.insert(0, sys.argv[2])
    import causal_conv1d_cuda as tridao
    STATE["tridao"] = tridao
    deadline = start + float(sys.argv[3])
    rows = [(d, lay, int(b), int(c), int(l), int(w)) for d, lay, b, c, l, w in
            (r.split("/") for r in sys.argv[4][len("rows:"):].split(","))]
    trees = sys.argv[5:]
    print(f"# grid_shim on {torch.cuda.get_device_name()}: the grid's run_case (after-kernel on), ours = a probe tree, "
          f"us per call; trees {trees}", flush=True)
    for case in rows:
        if time.time() > deadline:
            print(f"# deadline: from {case} not run", flush=True)
            break
        for tree in trees:
            e = probe.entry(lib, tree, case[0])
            if e is None:
                continue
            STATE["tree"], STATE["entry"] = tree, e
            try:
                r = grid.run_case(tridao, *case, after_kernel=True)[0]
            except Exception as ex:  # noqa: BLE001
                print(f"{case} {tree} | ERROR {ex}", flush=True)
                continue
            print(f"grid {case[0]} {case[1]} [{case[2]},{case[3]},{case[4]}] W{case[5]} {tree}: ours {r['ours_ms'] * 1e3:.2f} "
                  f"td {r['tridao_ms'] * 1e3:.2f} ({r['ratio']:.3f}x, copy {r['copy_ms'] * 1e3:.2f}) | after: ours "
                  f"{r['ours_after_ms'] * 1e3:.2f} td {r['tridao_after_ms'] * 1e3:.2f} ({r['ratio_after']:.3f}x)", flush=True)
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
