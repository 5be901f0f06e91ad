"""Every op from Python on the GPU, against PyTorch (skipped without either)."""
import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no CUDA device", allow_module_level=True)
import torch.nn.functional as F  # noqa: E402

import baracuda  # noqa: E402

MODES = ["constant", "reflect", "replicate", "circular"]
FLOATS = [torch.float32, torch.float16, torch.bfloat16, torch.float64]
TOL = {torch.float32: 1e-5, torch.float16: 1e-3, torch.bfloat16: 8e-3, torch.float64: 1e-12}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", FLOATS)
def test_pad_matches_f_pad(mode, dtype):
    x = torch.randn(3, 5, 37, device="cuda").to(dtype)
    pad = (3, 5, 2, 1)
    want = F.pad(x, pad, mode=mode, value=1.5) if mode == "constant" else F.pad(x, pad, mode=mode)
    got = baracuda.pad(x, pad, mode=mode, value=1.5)
    assert torch.equal(got, want)


@pytest.mark.parametrize("dtype", [torch.int32, torch.int64, torch.int8, torch.uint8, torch.bool, torch.complex64])
def test_pad_constant_moves_any_dtype(dtype):
    x = (torch.randn(4, 33, device="cuda") * 50).to(dtype)
    value = 1 if dtype in (torch.bool,) else 3
    assert torch.equal(baracuda.pad(x, (2, 7, 1, 0), value=value), F.pad(x, (2, 7, 1, 0), value=value))


def test_pad_crops_with_negative_pads():
    x = torch.randn(6, 50, device="cuda")
    assert torch.equal(baracuda.pad(x, (-3, 4, 0, -2)), F.pad(x, (-3, 4, 0, -2)))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", FLOATS)
def test_pad_backward_matches_autograd(mode, dtype):
    # The reference is autograd in float64 on the same (rounded) dy: PyTorch's own
    # bf16 backward accumulates in bf16 and is further from the exact sums than ours.
    x = torch.randn(2, 4, 41, device="cuda", dtype=torch.float64).requires_grad_()
    pad = (6, 4, 3, 2)
    y = F.pad(x, pad, mode=mode)
    dy = torch.randn_like(y).to(dtype)
    y.backward(dy.double())
    got = baracuda.pad_backward(dy, pad, mode=mode)
    ref = x.grad
    err = (got.double() - ref).abs().max() / ref.abs().max()
    assert err <= TOL[dtype], f"{mode} {dtype}: {err}"


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int8, torch.complex128])
def test_write_slice_matches_indexing(dtype):
    dest = (torch.randn(3, 20, 30, device="cuda") * 10).to(dtype)
    src = (torch.randn(2, 7, 11, device="cuda") * 10).to(dtype)
    want = dest.clone()
    want[1:3, 5:12, 17:28] = src
    baracuda.write_slice(dest, src, (1, 5, 17))
    assert torch.equal(dest, want)


def test_write_slice_into_a_strided_view():
    base = torch.randn(16, 12, device="cuda")
    dest = base.t()  # [12, 16], column-major
    src = torch.randn(4, 5, device="cuda")
    want = base.clone().t()
    want[2:6, 3:8] = src
    baracuda.write_slice(dest, src, (2, 3))
    assert torch.equal(dest, want)


def test_runs_on_the_callers_stream():
    s = torch.cuda.Stream()
    x = torch.randn(8, 1000, device="cuda")
    with torch.cuda.stream(s):
        y = baracuda.pad(x, (1, 2), mode="replicate", stream=s)
    s.synchronize()
    assert torch.equal(y, F.pad(x, (1, 2), mode="replicate"))


def test_plan_api_reuses_a_plan():
    x = torch.randn(4, 100, device="cuda")
    y = torch.empty(4, 108, device="cuda")
    plan = baracuda.Plan("pad", dtype="f32", mode="reflect", rank=2, input_shape=[4, 100], pad_low=[0, 3],
                         pad_high=[0, 5])
    for _ in range(3):
        plan.run(X=x, Y=y)
    assert torch.equal(y, F.pad(x, (3, 5), mode="reflect"))


def test_a_shape_mismatch_raises_with_the_librarys_message():
    x = torch.randn(4, 100, device="cuda")
    plan = baracuda.Plan("pad", dtype="f32", mode="constant", rank=2, input_shape=[4, 100], pad_high=[0, 5])
    with pytest.raises(baracuda.BaracudaError, match="arg Y shape"):
        plan.run(X=x, Y=torch.empty(4, 104, device="cuda"))


def test_cupy_arrays_work_too():
    cupy = pytest.importorskip("cupy")
    x = cupy.arange(40, dtype=cupy.float32).reshape(4, 10)
    y = baracuda.pad(x, (2, 2), mode="circular")
    want = F.pad(torch.as_tensor(x, device="cuda"), (2, 2), mode="circular")
    assert torch.equal(torch.as_tensor(y, device="cuda"), want)


def test_jax_arrays_are_read_through_dlpack():
    import os

    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    jnp = pytest.importorskip("jax.numpy")
    import jax

    if not any(d.platform == "gpu" for d in jax.devices()):
        pytest.skip("JAX sees no GPU")
    x = jnp.arange(60, dtype=jnp.float32).reshape(6, 10)
    out = torch.empty(6, 15, device="cuda")  # JAX arrays are immutable: the output comes from elsewhere
    baracuda.pad(x, (2, 3), mode="reflect", out=out)
    torch.cuda.synchronize()
    want = F.pad(torch.arange(60, dtype=torch.float32, device="cuda").reshape(6, 10), (2, 3), mode="reflect")
    assert torch.equal(out, want)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_causal_conv1d_matches_f_conv1d(dtype):
    B, C, L, W = 2, 64, 300, 4
    x = torch.randn(B, C, L, device="cuda", dtype=dtype)
    w = torch.randn(C, W, device="cuda", dtype=dtype)
    b = torch.randn(C, device="cuda", dtype=dtype)
    y = torch.empty_like(x)
    name = {torch.float32: "f32", torch.bfloat16: "bf16"}[dtype]
    plan = baracuda.Plan("causal_conv1d", dtype=name, width=W, activation="silu", batch=B, channels=C, seq_len=L)
    plan.run(X=x, WEIGHT=w, BIAS=b, Y=y)
    ref = F.silu(F.conv1d(x.double(), w.double()[:, None], b.double(), padding=W - 1, groups=C)[..., :L])
    err = (y.double() - ref).abs().max() / ref.abs().max()
    assert err <= TOL[dtype], f"{dtype}: {err}"


def test_tensors_that_require_grad_are_read_as_they_are():
    x = torch.randn(4, 100, device="cuda", requires_grad=True)
    assert torch.equal(baracuda.pad(x, (3, 5), mode="reflect"), F.pad(x.detach(), (3, 5), mode="reflect"))
    B, C, L, W = 2, 16, 40, 4
    xs = torch.randn(B, C, L, device="cuda", requires_grad=True)
    w = torch.nn.Parameter(torch.randn(C, W, device="cuda"))
    y = torch.empty_like(xs, requires_grad=False)
    baracuda.Plan("causal_conv1d", dtype="f32", batch=B, channels=C, seq_len=L).run(X=xs, WEIGHT=w, Y=y)
    ref = F.conv1d(xs.detach().double(), w.detach().double()[:, None], padding=W - 1, groups=C)[..., :L]
    assert (y.double() - ref).abs().max() / ref.abs().max() <= TOL[torch.float32]


def test_the_default_stream_is_torchs_current_one():
    s = torch.cuda.Stream()
    x = torch.randn(8, 1000, device="cuda", dtype=torch.bfloat16)
    plan = baracuda.Plan("pad", dtype="bf16", mode="replicate", rank=2, input_shape=[8, 1000], pad_high=[0, 2])
    with torch.cuda.stream(s):
        _, handle, _ = plan._args.fill({"X": x, "Y": x}, None)
    assert handle.value == s.cuda_stream != torch.cuda.current_stream().cuda_stream


def test_a_host_tensor_is_refused_by_name():
    with pytest.raises(TypeError, match="pad: arg X: the tensor is on cpu"):
        baracuda.pad(torch.randn(4, 10), (1, 1))
