"""One call of each tree's backward and of Tri Dao's on one row, between
cudaProfilerStart and cudaProfilerStop, for ncu --profile-from-start off
(every side warmed up first; Tri Dao's dw/db zeroed before the window, so the
window holds his backward kernel alone and our main kernel and reduction).

    ncu --profile-from-start off ... python3 ncu_once.py <lib> <tridao folder> <dtype> B C L W silu layout tree,...
"""
import ctypes
import sys

import torch

from run import CODE, DT, make


def main():
    lib = ctypes.CDLL(sys.argv[1])
    sys.path.insert(0, sys.argv[2])
    import causal_conv1d_cuda as tridao
    dt = sys.argv[3]
    B, C, L, W, silu, layout = (int(v) for v in sys.argv[4:10])
    trees = sys.argv[10].split(",")
    gen = torch.Generator(device="cuda").manual_seed(1)
    x, dy = make(dt, layout, B, C, L, gen=gen), make(dt, layout, B, C, L, gen=gen)
    w = (torch.randn(C, W, device="cuda", generator=gen) / W).float()
    b = torch.randn(C, device="cuda", generator=gen).float()
    dx, dw, db = torch.empty_like(x), torch.empty(C, W, device="cuda"), torch.empty(C, device="cuda")
    ptr = lambda t: ctypes.c_void_p(t.data_ptr() if t is not None else 0)
    calls = []
    for t in trees:
        e = getattr(lib, f"probe_bwd_{t}_{CODE[dt]}", None)
        ws = getattr(lib, f"probe_bwd_{t}_{CODE[dt]}_workspace", None)
        if e is None:
            print(f"{t}: no entry")
            continue
        e.restype, ws.restype = ctypes.c_int, ctypes.c_int64
        e.argtypes = [ctypes.c_void_p] * 7 + [ctypes.c_int64] * 3 + [ctypes.c_int32, ctypes.c_void_p, ctypes.c_int64,
                                                                    ctypes.c_void_p, ctypes.c_int32, ctypes.c_int32,
                                                                    ctypes.c_void_p]
        ws.argtypes = [ctypes.c_int64] * 3 + [ctypes.c_int32]
        work = torch.empty(max(ws(B, C, L, W), 1), dtype=torch.uint8, device="cuda")

        def call(e=e, work=work, t=t):
            rc = e(ptr(x), ptr(w), ptr(b), ptr(dy), ptr(dx), ptr(dw), ptr(db), B, C, L, W, ptr(work), work.numel(),
                   ctypes.c_void_p(torch.cuda.current_stream().cuda_stream), silu, layout, None)
            if rc != 0:
                raise RuntimeError(f"{t}: status {rc}")
        calls.append(call)

    def his():
        tridao.causal_conv1d_bwd(x, w, b, dy, None, None, None, dx, dw, db, None, bool(silu))
    for c in calls:
        c()
    dw.zero_(), db.zero_()
    his()
    dw.zero_(), db.zero_()
    torch.cuda.synchronize()
    cudart = torch.cuda.cudart()
    cudart.cudaProfilerStart()
    for c in calls:
        c()
    his()
    torch.cuda.synchronize()
    cudart.cudaProfilerStop()
    print("ncu_once done", flush=True)


if __name__ == "__main__":
    main()
