"""The contenders of an attention row: our plans through the Python binding
(the default plans and each candidate forced as bench_ops' sdpa_candidates
forces it) and PyTorch's sdpa backends, each with the result of one eager
call (checked against a reference before any timing) and a CUDA graph of
its call."""
import os

import torch
import torch.nn.functional as F
from torch.nn.attention import sdpa_kernel

from graph_turns import Contender
from torch_sdpa import BACKENDS, capture

# bench_ops' sdpa_candidates: each forced by BARACUDA_FORCE_CANDIDATE at select
FORWARD_CANDIDATES = ("sdpa_fwd_cudnn", "sdpa_fwd_sm90_wgmma", "sdpa_fwd_sm80")
BACKWARD_CANDIDATES = ("sdpa_bwd_cudnn", "sdpa_bwd_sm90_wgmma", "sdpa_bwd_sm80", "sdpa_bwd_cudnn_deterministic",
                       "sdpa_bwd_sm90_deterministic")
# A result off the reference by more than this (relative to its largest magnitude), and by more than 8x the
# closest of PyTorch's other backends, is far off: a wrong kernel, not rounding.
FAR_OFF = {"bf16": 2e-2, "f32": 1e-4}


def rel_err(got, want):
    """max |got - want| / max |want| over a tuple of tensors."""
    worst = 0.0
    for g, w in zip(got, want):
        scale = w.abs().max().item() or 1.0
        worst = max(worst, (g.float() - w.float()).abs().max().item() / scale)
    return worst


def forced_plan(baracuda, op, candidate, flags, fields):
    """A plan with candidate forced (None: select's own choice), or the reason select refused."""
    if candidate:
        os.environ["BARACUDA_FORCE_CANDIDATE"] = candidate
    try:
        return baracuda.Plan(op, flags=flags, **fields), None
    except baracuda.BaracudaError as e:
        return None, e.message
    finally:
        os.environ.pop("BARACUDA_FORCE_CANDIDATE", None)


def our_contenders(baracuda, dtype, B, H, S, D, causal, backward, tensors):
    """Our plans for a row: the default plan (and the deterministic default backward) and every forced candidate.
    A default whose kernel is a forced candidate's is timed once, as that candidate; its row names both."""
    q, k, v, out, lse, dout = tensors
    fields = dict(dtype=dtype, head_dim=D, causal=int(causal), batch=B, heads_q=H, queries=S, keys=S)
    op = "sdpa_backward" if backward else "sdpa"
    wanted = [(None, 0, "default")]
    if backward:
        wanted.append((None, baracuda.SELECT_DETERMINISTIC, "default_deterministic"))
    if dtype in ("bf16", "f16"):
        wanted += [(c, 0, c) for c in (BACKWARD_CANDIDATES if backward else FORWARD_CANDIDATES)]
    made, refused, defaults = [], {}, {}
    for candidate, flags, name in wanted:
        # bench_ops' forced candidates see the bottom-right diagonal (the same mask here, where Q = K)
        plan, why = forced_plan(baracuda, op, candidate, flags,
                                fields if candidate is None else {**fields, "alignment": "bottom_right"})
        if plan is None:
            refused[name] = why
            continue
        info = plan.info
        same = [c for c in made if c.info["kernel_name"] == info["kernel_name"]]
        if candidate and any(c.name.startswith("default") for c in same):  # a default met again: one contender
            for c in same:
                defaults[c.name] = name
                c.name = name
            continue
        ws = torch.empty(max(plan.workspace_size, 16), dtype=torch.uint8, device="cuda")
        if backward:
            grads = tuple(torch.empty_like(x) for x in (q, k, v))

            def call(plan=plan, ws=ws, grads=grads):
                plan.run(workspace=ws, Q=q, K=k, V=v, OUT=out, LSE=lse, DOUT=dout, DQ=grads[0], DK=grads[1],
                         DV=grads[2])
            result = grads
        else:
            o, l_ = torch.empty_like(q), torch.empty(B, H, S, device="cuda", dtype=torch.float32)

            def call(plan=plan, ws=ws, o=o, l_=l_):
                plan.run(workspace=ws, Q=q, K=k, V=v, OUT=o, LSE=l_)
            result = (o,)
        c = Contender(name, "ours", call, result, info)
        c.plan = plan
        made.append(c)
    for c in made:
        c.defaults = [d for d, n in defaults.items() if n == c.name] + [c.name] * c.name.startswith("default")
    return made, refused


def torch_contender(backend, q, k, v, causal, backward, dout, stream):
    """PyTorch's backend on the row: its call (the forward, or autograd's backward of a forward made once) and the
    result of one eager call; refused with PyTorch's reason where the backend cannot run the row."""
    try:
        return torch_call(backend, q, k, v, causal, backward, dout, stream)
    except (RuntimeError, torch.cuda.OutOfMemoryError) as e:
        torch.cuda.synchronize()
        c = Contender(backend, "torch", None, ())
        c.refused = str(e).splitlines()[0][:120]
        return c


def torch_call(backend, q, k, v, causal, backward, dout, stream):
    """torch_contender's work; PyTorch's error passes through."""
    with sdpa_kernel(BACKENDS[backend]):
        if backward:
            with torch.cuda.stream(stream):
                out = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
            torch.cuda.current_stream().wait_stream(stream)

            def call():
                return torch.autograd.grad(out, (q, k, v), dout, retain_graph=True)
        else:
            def call():
                return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        with torch.cuda.stream(stream):
            result = call()
            # copied on the stream that allocated it: copied elsewhere after its release, the next backend's call
            # on this stream could reuse its memory first (round 1 of session 23)
            result = tuple(r.detach().clone() for r in (result if isinstance(result, tuple) else (result,)))
        torch.cuda.current_stream().wait_stream(stream)
        return Contender(backend, "torch", call, result)


def capture_all(contenders, stream):
    """Each contender's call captured once into its graph (PyTorch's under its backend); refused if it cannot be."""
    for c in contenders:
        if c.refused:
            continue
        try:
            if c.side == "torch":
                with sdpa_kernel(BACKENDS[c.name]):
                    c.graph = capture(c.call, stream)
            else:
                c.graph = capture(c.call, stream)
        except RuntimeError as e:
            c.refused = f"no graph: {str(e).splitlines()[0]}"
            torch.cuda.synchronize()


def check(contenders, reference, dtype):
    """Each contender's error against the reference; ours refused when far off (PyTorch's other backends set
    the scale of rounding)."""
    for c in contenders:
        c.err = rel_err(c.result, reference)
    theirs = [c.err for c in contenders if c.side == "torch" and c.err > 0]
    limit = max(FAR_OFF[dtype], 8 * min(theirs, default=0))  # the closest backend: one far off widens nothing
    for c in contenders:
        if c.side == "ours" and not c.refused and not (c.err <= limit):
            c.refused = f"far off: error {c.err:.3g} over limit {limit:.3g}"
