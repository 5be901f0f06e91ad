"""Plans selected for an arch without a GPU, and errors as exceptions."""
import pytest

import baracuda


def test_plan_info_reports_the_kernel():
    p = baracuda.Plan("pad", target_sm=90, dtype="f16", mode="circular", rank=2, input_shape=[3, 40],
                      pad_low=[1, 2], pad_high=[1, 3])
    info = p.info
    assert info["op"] == baracuda.OP_PAD and info["dtype"] == baracuda.DTYPES["f16"]
    assert info["target_sm"] == 90 and info["deterministic"] == 1
    assert info["kernel_name"] == "pad_gather_rows_b2_circular"
    assert p.workspace_size == 0


def test_a_bad_descriptor_raises_with_status_and_message():
    with pytest.raises(baracuda.BaracudaError) as e:
        baracuda.Plan("write_slice", target_sm=90, dtype="u4", rank=1, dest_shape=[10], start=[4], end=[12])
    assert e.value.status == baracuda.STATUS_INVALID_PROBLEM
    assert "axis 0 has start 4 and end 12" in e.value.message


def test_an_unserved_dtype_is_unsupported():
    with pytest.raises(baracuda.BaracudaError) as e:
        baracuda.Plan("pad_backward", target_sm=90, dtype="i32", mode="constant", rank=1, input_shape=[4])
    assert e.value.status == baracuda.STATUS_UNSUPPORTED


def test_unknown_fields_and_values_are_named():
    with pytest.raises(TypeError, match="no field 'shape'"):
        baracuda.Plan("pad", target_sm=90, shape=[4])
    with pytest.raises(ValueError, match="'float32' is not a dtype"):
        baracuda.Plan("pad", target_sm=90, dtype="float32")
    with pytest.raises(ValueError, match="'sideways' is not a value of mode"):
        baracuda.Plan("pad", target_sm=90, mode="sideways")


def test_the_registry_is_read_from_the_library():
    assert set(baracuda.OPS) == {"pad", "pad_backward", "write_slice", "causal_conv1d", "causal_conv1d_backward",
                                 "causal_conv1d_update", "alibi", "alibi_backward", "sdpa", "sdpa_backward"}
    assert "complex64" in baracuda.DTYPES and baracuda.version() >= (0, 1, 0)


def test_a_new_op_family_needs_no_binding_code():
    plan = baracuda.Plan("causal_conv1d_backward", target_sm=90, dtype="bf16", width=4, activation="silu",
                         batch=2, channels=8, seq_len=1000)
    # f32 dw/db partial sums: B x (L in chunks of 16 timesteps, the channel
    # tiles' backward's shortest for so small a grid: 63) x C x (W + 1).
    assert plan.workspace_size == 2 * 63 * 8 * 5 * 4


def test_dtype_fields_take_dtype_names():
    plan = baracuda.Plan("causal_conv1d_backward", target_sm=90, dtype="bf16", weight_dtype="f32", width=4,
                         batch=2, channels=8, seq_len=100)
    assert "bf16_f32w" in plan.info["kernel_name"]
    with pytest.raises(ValueError, match="is not a dtype"):
        baracuda.Plan("causal_conv1d", target_sm=90, dtype="bf16", weight_dtype="float", batch=2, channels=8,
                      seq_len=100)
