"""The causal conv1d decoding update, ours beside Tri Dao's causal_conv1d_update
(what Mamba and vLLM call), in one process on one GPU, timed as GPU time:
each side's calls are captured in a CUDA graph and replayed, so that neither
side's host overhead counts.

    BARACUDA_LIBRARY=<build>/libbaracuda_kernels.so.0 PYTHONPATH=bindings/python \\
        BARACUDA_TRIDAO=<folder of causal_conv1d_cuda.so> python3 bench/tridao_conv1d_update.py [--json PATH]

SiLU, with bias; GB/s counts x read, y written and the batch rows' states
read and written whole. The grid covers every value of each axis without the
whole product: one token a step, B 1 to 512 by C 2048 / 5376 / 8192 at the
Mamba setting (bf16 x, f32 weights, width 4, a shifted state of W-1
entries); then widths 2 and 3, the other dtypes (f16 and f32 x, bf16
weights), a state pool indexed by conv_state_indices (a pool twice the
batch, rows shuffled), and a circular state of 16 entries indexed by
cache_seqlens, with and without the pool; then steps of 2, 4 and 8 tokens
(speculative decoding), and widths 6 and 8 (ours alone: Tri Dao's serves 2
to 4), each over both states. Before timing, each row runs both once on the
same inputs and checks that y and the state agree (ours alone: against a
float64 reference). Without BARACUDA_TRIDAO only ours is timed."""
import argparse
import json
import os
import sys

import torch

import baracuda

CALLS = 20  # per graph
REPLAYS = 10
BATCHES = (1, 4, 16, 64, 128, 256, 512)
CHANNELS = (2048, 5376, 8192)
CIRCULAR_STATE = 16
DTYPES = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}
TOLERANCE = {"bf16": 1e-2, "f16": 2e-3, "f32": 1e-5}  # y against Tri Dao's (both sum in f32)


def cases():
    """(dtype, weight dtype, B, C, W, pooled, circular, tokens) per row."""
    rows = [("bf16", "f32", b, c, 4, False, False) for c in CHANNELS for b in BATCHES]
    rows += [("bf16", "f32", b, 5376, w, False, False) for w in (2, 3) for b in (1, 64, 256)]
    rows += [(x, w, b, 8192, 4, False, False) for x, w in (("bf16", "bf16"), ("f16", "f32"), ("f32", "f32"))
             for b in (1, 64, 512)]
    rows += [("bf16", "f32", b, c, 4, True, False) for c in (2048, 8192) for b in (1, 64, 256, 512)]
    rows += [("bf16", "f32", b, 5376, 4, pooled, True) for pooled in (False, True) for b in (1, 64, 256, 512)]
    rows = [row + (1,) for row in rows]
    rows += [("bf16", "f32", b, 5376, 4, False, circular, n) for circular in (False, True) for n in (2, 4, 8)
             for b in (64, 256)]
    rows += [("bf16", "f32", b, 5376, w, False, circular, 1) for w in (6, 8) for circular in (False, True)
             for b in (1, 64, 256)]
    return rows


def reference(x, state, weight, bias, seqlens, indices):
    """y and the batch rows' states after the step, in float64 (SiLU, bias)."""
    n, S, W = x.shape[2], state.shape[2], weight.shape[1]
    rows = indices.long() if indices is not None else torch.arange(x.shape[0], device=x.device)
    old, tokens = state[rows].double(), x.double()
    if seqlens is None:
        history = torch.cat([old, tokens], dim=2)
        window, new = history[:, :, S - (W - 1):], history[:, :, n:]
    else:
        slot = seqlens.long()[:, None] % S  # token 0's
        before = (slot + torch.arange(-(W - 1), 0, device=x.device)) % S
        window = torch.cat([old.gather(2, before[:, None, :].expand(-1, old.shape[1], -1)), tokens], dim=2)
        new = old.clone()
        for i in range(n):  # a later token overwrites an earlier one's slot
            new[torch.arange(len(rows)), :, (slot[:, 0] + i) % S] = tokens[:, :, i]
    z = sum(weight.double()[None, :, j, None] * window[:, :, j:j + n] for j in range(W)) + bias.double()[None, :, None]
    return z * torch.sigmoid(z), new


class Update:
    """One row's tensors, a call of ours and one of Tri Dao's over copies of the same state."""

    def __init__(self, dtype, weight_dtype, batch, channels, width, pooled, circular, tokens):
        gen = torch.Generator(device="cuda").manual_seed(batch * 7919 + channels * 31 + width)
        dt, wdt = DTYPES[dtype], DTYPES[weight_dtype]
        state_len = CIRCULAR_STATE if circular else width - 1
        pool = 2 * batch if pooled else batch

        def randn(*shape, dtype=dt):
            return torch.randn(*shape, device="cuda", generator=gen).to(dtype)

        self.x = randn(batch, channels, tokens)
        self.weight, self.bias = randn(channels, width, dtype=wdt), randn(channels, dtype=wdt)
        self.state = randn(pool, channels, state_len)
        self.indices = (torch.randperm(pool, device="cuda", generator=gen)[:batch].to(torch.int32) if pooled else None)
        self.seqlens = (torch.randint(0, 1000, (batch,), device="cuda", generator=gen, dtype=torch.int32)
                        if circular else None)
        self.y = torch.empty_like(self.x)
        self.plan = baracuda.Plan("causal_conv1d_update", dtype=dtype, weight_dtype=weight_dtype, width=width,
                                  activation="silu", batch=batch, channels=channels, seq_len=tokens,
                                  state_len=state_len)
        self.bytes = (self.x.numel() * 2 + batch * channels * state_len * 2) * self.x.element_size()

    def ours(self, state, y):
        args = dict(X=self.x, WEIGHT=self.weight, BIAS=self.bias, Y=y, STATE=state)
        if self.indices is not None:
            args["CONV_STATE_INDICES"] = self.indices
        if self.seqlens is not None:
            args["CACHE_SEQLENS"] = self.seqlens
        return lambda: self.plan.run(**args)

    def theirs(self, tridao, state, y):
        return lambda: tridao.causal_conv1d_update(self.x, state, self.weight, self.bias, y, True, self.seqlens,
                                                   self.indices)

    def check(self, tridao, dtype):
        """Ours once, and Tri Dao's (or, where it is None, the float64 reference) from the same state: y
        within tolerance, the states equal (the reference's batch rows)."""
        ours_state, ours_y = self.state.clone(), torch.zeros_like(self.y)
        self.ours(ours_state, ours_y)()
        if tridao:
            theirs_state, theirs_y = self.state.clone(), torch.zeros_like(self.y)
            self.theirs(tridao, theirs_state, theirs_y)()
            name = "Tri Dao's"
        else:
            theirs_y, rows = reference(self.x, self.state, self.weight, self.bias, self.seqlens, self.indices)
            theirs_state = rows.to(self.state.dtype)
            ours_state = ours_state[self.indices.long()] if self.indices is not None else ours_state
            name = "the float64 reference"
        err = (ours_y.double() - theirs_y.double()).abs().max().item() / max(
            theirs_y.double().abs().max().item(), 1e-30)
        if err > TOLERANCE[dtype] or not torch.equal(ours_state, theirs_state):
            raise AssertionError(f"ours and {name} differ: y error {err:.2e}, "
                                 f"states equal: {torch.equal(ours_state, theirs_state)}")


def captured(call):
    """CALLS calls captured in a CUDA graph (after a warm-up on a side stream), replayed once."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            call()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(CALLS):
            call()
    graph.replay()
    return graph


def graph_us(call):
    """GPU microseconds per call: CALLS calls captured in a graph, replayed."""
    graph = captured(call)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(REPLAYS):
        graph.replay()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) * 1000 / (REPLAYS * CALLS)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", metavar="PATH", help="also write the rows as JSON")
    options = parser.parse_args()
    tridao = None
    if os.environ.get("BARACUDA_TRIDAO"):
        sys.path.insert(0, os.environ["BARACUDA_TRIDAO"])
        import causal_conv1d_cuda as tridao
    device = torch.cuda.get_device_name()
    print(f"# causal_conv1d_update, SiLU, bias; {device}; GPU time per call (CUDA-graph replay)")
    print("| x | weights | B | C | W | state | ours us | Tri Dao us | ours vs his | ours GB/s |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    results = []
    for dtype, weight_dtype, batch, channels, width, pooled, circular, tokens in cases():
        u = Update(dtype, weight_dtype, batch, channels, width, pooled, circular, tokens)
        state = ((f"circular {CIRCULAR_STATE}" if circular else f"shift {width - 1}") + (" pool" if pooled else "") +
                 (f", {tokens} tokens" if tokens > 1 else ""))
        served = tridao if width <= 4 else None  # Tri Dao's widths
        u.check(served, dtype)
        ours = graph_us(u.ours(u.state, u.y))
        theirs = graph_us(u.theirs(served, u.state, u.y)) if served else None
        ratio = f"{theirs / ours:.2f}x" if theirs else "-"
        theirs_text = f"{theirs:.1f}" if theirs else "-"
        print(f"| {dtype} | {weight_dtype} | {batch} | {channels} | {width} | {state} | {ours:.1f} | {theirs_text} "
              f"| {ratio} | {u.bytes / ours / 1e3:.0f} |", flush=True)
        results.append(dict(dtype=dtype, weight_dtype=weight_dtype, batch=batch, channels=channels, width=width,
                            tokens=tokens, state=state, ours_us=ours, tridao_us=theirs, bytes=u.bytes))
        del u
    if options.json:
        with open(options.json, "w") as f:
            json.dump({"device": device, "calls": CALLS, "replays": REPLAYS, "rows": results}, f, indent=1)


if __name__ == "__main__":
    main()
