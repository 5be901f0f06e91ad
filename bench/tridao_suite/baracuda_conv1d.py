"""Tri Dao's causal_conv1d_fn and causal_conv1d_update, with his signatures,
over baracuda's causal conv1d plans: what Tri Dao's own test suite calls
when conftest.py puts these in place of his. The tensors go to the plans as
the caller gives them (any strides, f32 weights beside 16-bit x); nothing is
cast or copied."""
import torch

import baracuda

_DTYPES = {torch.float32: "f32", torch.float16: "f16", torch.bfloat16: "bf16", torch.float64: "f64"}
_plans = {}


def _plan(op, x, weight, silu, **more):
    """The plan of op for x [B, C, L] and weight [C, W], made once per shape."""
    batch, channels, length = x.shape
    fields = dict(dtype=_DTYPES[x.dtype], weight_dtype=_DTYPES[weight.dtype], width=weight.shape[1],
                  activation="silu" if silu else "none", batch=batch, channels=channels, seq_len=length, **more)
    key = (op, tuple(sorted(fields.items())))
    if key not in _plans:
        _plans[key] = baracuda.Plan(op, **fields)
    return _plans[key]


def _given(**arrays):
    """The arguments that are not None, by role."""
    return {role: t for role, t in arrays.items() if t is not None}


def _silu(activation):
    if activation not in (None, "silu", "swish"):
        raise NotImplementedError("activation must be None, silu, or swish")
    return activation in ("silu", "swish")


class CausalConv1dFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias, seq_idx, initial_states, return_final_states, activation):
        silu = _silu(activation)
        batch, channels, _ = x.shape
        out = torch.empty_like(x)
        # In Tri Dao's layout ([B, W-1, C] memory), so that the suite sees what his function returns.
        final_states = (torch.empty(batch, weight.shape[1] - 1, channels, device=x.device, dtype=x.dtype).transpose(1, 2)
                        if return_final_states else None)
        _plan("causal_conv1d", x, weight, silu).run(
            **_given(X=x, WEIGHT=weight, BIAS=bias, Y=out, INITIAL_STATES=initial_states, FINAL_STATES=final_states,
                     SEQ_IDX=seq_idx))
        ctx.save_for_backward(x, weight, bias, seq_idx, initial_states)
        ctx.silu, ctx.return_final_states = silu, return_final_states
        return (out, final_states) if return_final_states else out

    @staticmethod
    def backward(ctx, dout, *more):
        x, weight, bias, seq_idx, initial_states = ctx.saved_tensors
        dfinal_states = more[0] if ctx.return_final_states else None
        dx, dweight = torch.empty_like(x), torch.empty_like(weight)
        dbias = torch.empty_like(bias) if bias is not None else None
        dinitial_states = torch.empty_like(initial_states) if initial_states is not None else None
        plan = _plan("causal_conv1d_backward", x, weight, ctx.silu)
        workspace = torch.empty(max(plan.workspace_size, 1), dtype=torch.uint8, device=x.device)
        plan.run(workspace=workspace, **_given(X=x, WEIGHT=weight, BIAS=bias, INITIAL_STATES=initial_states, DY=dout,
                                              DFINAL_STATES=dfinal_states, DX=dx, DW=dweight, DB=dbias,
                                              DINITIAL_STATES=dinitial_states, SEQ_IDX=seq_idx))
        return dx, dweight, dbias, None, dinitial_states, None, None


def causal_conv1d_fn(x, weight, bias=None, seq_idx=None, initial_states=None, return_final_states=False,
                     final_states_out=None, activation=None):
    if final_states_out is not None:
        raise NotImplementedError("baracuda adapter: final_states_out is not adapted")
    return CausalConv1dFn.apply(x, weight, bias, seq_idx, initial_states, return_final_states, activation)


def causal_conv1d_update(x, conv_state, weight, bias=None, activation=None, cache_seqlens=None,
                         conv_state_indices=None):
    silu = _silu(activation)
    tokens = x.unsqueeze(-1) if x.dim() == 2 else x
    # Our plan leaves a padding row's output untouched; Tri Dao's function
    # returns zeros there (the suite checks), so the adapter starts from zeros.
    out = torch.zeros_like(tokens) if conv_state_indices is not None else torch.empty_like(tokens)
    plan = _plan("causal_conv1d_update", tokens, weight, silu, state_len=conv_state.shape[-1])
    plan.run(**_given(X=tokens, WEIGHT=weight, BIAS=bias, Y=out, STATE=conv_state, CACHE_SEQLENS=cache_seqlens,
                      CONV_STATE_INDICES=conv_state_indices))
    return out.squeeze(-1) if x.dim() == 2 else out
