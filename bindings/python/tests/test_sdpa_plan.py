"""The attention ops through the header reader: descriptor fields by name,
named constants, defaults (scale 0, window -1, heads_kv 0), and errors."""
import math

import pytest

import baracuda


def test_the_forward_plan_reads_every_field_by_name():
    plan = baracuda.Plan("sdpa", target_sm=90, dtype="bf16", head_dim=64, batch=2, heads_q=8, heads_kv=2,
                         queries=128, keys=256, causal=1, alignment="bottom_right", window_left=32,
                         alibi="symmetric", per_batch_slopes=1, softcap=30.0)
    info = plan.info
    assert info["op"] == baracuda.OPS["sdpa"] and info["dtype"] == baracuda.DTYPES["bf16"]
    # A build with the Hopper kernels (sm_90a code, which the backward's choice shows) serves the forward with them.
    family = "sm90_wgmma" if hopper_kernels_built() else "sm80"
    assert info["kernel_name"] == f"sdpa_fwd_{family}_bf16_d64"
    assert info["deterministic"] == 1 and plan.workspace_size == 0


def hopper_kernels_built():
    """Whether this build holds the sm_90a attention kernels: the backward at target_sm 90 is then the Hopper one."""
    bwd = baracuda.Plan("sdpa_backward", target_sm=90, dtype="bf16", head_dim=64, batch=1, heads_q=4, queries=7, keys=9)
    return bwd.info["kernel_name"].startswith("sdpa_bwd_sm90_wgmma")


def test_the_init_macro_gives_the_header_defaults():
    d = baracuda._h.new("BARACUDA_SDPA_BACKWARD_DESC_INIT")
    assert d.header.op == baracuda.OP_SDPA_BACKWARD
    assert (d.alignment, d.window_left, d.window_right, d.heads_kv, d.head_dim_v) == (1, -1, -1, 0, 0)
    assert d.scale == 0.0 and d.softcap == 0.0


def built_for(sm):
    """Whether this build has code for sm (a build made with -Dgpu_arch=90 serves no other target)."""
    try:
        baracuda.Plan("pad", target_sm=sm, dtype="f32", rank=1, input_shape=[4], pad_low=[1], pad_high=[1])
    except baracuda.BaracudaError as e:
        if e.status == baracuda.STATUS_UNSUPPORTED and "is not served" in str(e):
            return False
        raise
    return True


@pytest.mark.skipif(not built_for(89), reason="this build has no code for sm 89")
def test_the_sm89_forward_is_chosen_for_target_sm_89():
    fwd = baracuda.Plan("sdpa", target_sm=89, dtype="f16", head_dim=128, head_dim_v=64, batch=1, heads_q=4,
                        queries=7, keys=9)
    assert fwd.info["kernel_name"] == "sdpa_fwd_sm89_f16_d128_dv64"


def test_the_deterministic_backward_is_chosen_by_the_select_option():
    fields = dict(target_sm=90, dtype="bf16", head_dim=64, batch=1, heads_q=4, queries=7, keys=9)
    atomic = baracuda.Plan("sdpa_backward", **fields)
    bwd = baracuda.Plan("sdpa_backward", flags=baracuda.SELECT_DETERMINISTIC, **fields)
    # A build with the Hopper kernels (sm_90a code) serves both modes with them; else the sm_80 kernel does.
    family = "sm90" if atomic.info["kernel_name"].startswith("sdpa_bwd_sm90_wgmma") else "sm80"
    assert atomic.info["deterministic"] == 0
    assert bwd.info["kernel_name"].startswith(f"sdpa_bwd_{family}_deterministic_bf16")
    assert bwd.info["deterministic"] == 1 and bwd.workspace_size > 0


@pytest.mark.parametrize("fields, status, text", [
    (dict(head_dim=12), baracuda.STATUS_INVALID_PROBLEM, "head_dim is 12, must be a positive multiple of 8"),
    (dict(head_dim=264), baracuda.STATUS_UNSUPPORTED, "head_dim 264 is over 256"),
    (dict(head_dim=64, heads_q=6, heads_kv=4), baracuda.STATUS_INVALID_PROBLEM, "heads_kv is 4, must divide"),
    (dict(head_dim=64, scale=math.nan), baracuda.STATUS_INVALID_PROBLEM, "scale is nan, must be finite"),
])
def test_bad_descriptors_raise_with_the_field_named(fields, status, text):
    with pytest.raises(baracuda.BaracudaError) as e:
        baracuda.Plan("sdpa_backward", target_sm=90, dtype="bf16", batch=1, queries=4, keys=4,
                      **{"heads_q": 2, **fields})
    assert e.value.status == status
    assert text in e.value.message
