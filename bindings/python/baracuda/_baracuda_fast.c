/*
 * The optional compiled fast path of Plan.run and Plan.enqueue: the same
 * baracuda_arg_t array the Python path packs, built on the C stack from
 * PyTorch tensors, and baracuda_plan_run called without ctypes. It holds no
 * state between calls, so no layout is ever reused and the array is the
 * caller thread's own.
 *
 * A tensor is read through DLPack's C exchange API where torch offers one
 * (torch.Tensor.__dlpack_c_exchange_api__, PyTorch 2.11 on): one C call fills
 * a DLTensor, and another gives the current stream, with no Python object
 * made. Where it does not (an older torch, a Tensor subclass other than
 * Parameter, a tensor the exporter refuses), the tensor's attributes are read
 * through the CPython API instead; both give the bytes the Python path packs.
 *
 * Only plain CUDA PyTorch tensors take it: anything else (another framework,
 * a CPU tensor, a complex or unknown dtype, rank over 8, a role name it does
 * not know) makes run return None and the Python path takes the call, raising
 * there with its messages. Needs only Python's headers; torch's objects are
 * handed in by setup().
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#include "baracuda/core.h"

typedef baracuda_status_t (*plan_run_fn)(baracuda_plan_t, const baracuda_arg_t *, int32_t, void *, size_t,
                                         baracuda_stream_t);

enum { kMaxArgs = 16 };

/* The layouts DLPack 1.x fixes for its C exchange API (dlpack.h, v1.3), the
 * few fields read here; declared here so that only Python's headers are needed. */
typedef struct {
  void *data;
  struct {
    int32_t device_type, device_id;
  } device;
  int32_t ndim;
  struct {
    uint8_t code, bits;
    uint16_t lanes;
  } dtype;
  int64_t *shape, *strides; /* strides NULL: compact row-major */
  uint64_t byte_offset;
} dl_tensor;

typedef struct dl_managed_tensor {
  uint32_t version[2];
  void *manager_context;
  void (*deleter)(struct dl_managed_tensor *self);
  uint64_t flags;
  dl_tensor tensor;
} dl_managed_tensor;

typedef struct {
  struct {
    uint32_t major, minor;
  } version;
  void *prev_api; /* the header, the part stable across versions */
  /* a new tensor of the prototype's device, dtype and shape, in the framework's allocator: 0, or -1 after set_error */
  int (*managed_tensor_allocator)(dl_tensor *prototype, struct dl_managed_tensor **out, void *error_context,
                                  void (*set_error)(void *error_context, const char *kind, const char *message));
  void *managed_tensor_from_py_object_no_sync;
  /* the framework's tensor object owning tensor (taken over in any case): 0, or -1 with a Python error */
  int (*managed_tensor_to_py_object_no_sync)(struct dl_managed_tensor *tensor, void **out_py_object);
  int (*dltensor_from_py_object_no_sync)(void *py_object, dl_tensor *out); /* 0, or -1 with a Python error */
  int (*current_work_stream)(int32_t device_type, int32_t device_id, void **out_stream);
} dl_exchange_api;

enum { kDLCUDA = 2, kDLInt = 0, kDLUInt = 1, kDLFloat = 2, kDLBfloat = 4, kDLBool = 6 };
enum { kDLFloat8_e4m3fn = 10, kDLFloat8_e5m2 = 12 };

/* Set by setup(): torch.Tensor, {torch dtype: baracuda dtype} of the plain
 * dtypes, {role name: role}, torch's current-raw-stream function, the exact
 * types the exchange API serves (torch.Tensor, torch.nn.Parameter) and that API
 * (NULL where torch has none). */
static PyObject *tensor_type, *dtype_codes, *role_codes, *current_stream, *exchange_types;
static const dl_exchange_api *exchange;
static PyObject *name_dtype, *name_is_cuda, *name_shape, *name_stride, *name_data_ptr, *name_get_device;

/* The int64 items of a tuple (torch.Size is one) into out; 0 when any is not an int64. */
static int read_int64s(PyObject *tuple, int64_t *out, Py_ssize_t n) {
  for (Py_ssize_t i = 0; i < n; ++i) {
    out[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(tuple, i));
    if (out[i] == -1 && PyErr_Occurred()) return 0;
  }
  return 1;
}

/* The baracuda dtype of a DLPack one, where it is one of the plain dtypes the attribute path takes; 0 otherwise. */
static baracuda_dtype_t dtype_of_dl(uint8_t code, uint8_t bits) {
  switch (code << 8 | bits) {
    case kDLFloat << 8 | 32: return BARACUDA_DTYPE_F32;
    case kDLFloat << 8 | 16: return BARACUDA_DTYPE_F16;
    case kDLBfloat << 8 | 16: return BARACUDA_DTYPE_BF16;
    case kDLFloat << 8 | 64: return BARACUDA_DTYPE_F64;
    case kDLInt << 8 | 32: return BARACUDA_DTYPE_I32;
    case kDLInt << 8 | 64: return BARACUDA_DTYPE_I64;
    case kDLInt << 8 | 8: return BARACUDA_DTYPE_S8;
    case kDLUInt << 8 | 8: return BARACUDA_DTYPE_U8;
    case kDLBool << 8 | 8: return BARACUDA_DTYPE_BOOL;
    case kDLFloat8_e4m3fn << 8 | 8: return BARACUDA_DTYPE_FP8_E4M3;
    case kDLFloat8_e5m2 << 8 | 8: return BARACUDA_DTYPE_FP8_E5M2;
    default: return BARACUDA_DTYPE_INVALID;
  }
}

/* t (zeroed first) from dl, and *device its CUDA device: 1, or 0 when dl is not a plain CUDA tensor of rank 0 to 8. */
static int tensor_of_dl(const dl_tensor *dl, baracuda_tensor_t *t, int32_t *device) {
  const baracuda_dtype_t dtype = dtype_of_dl(dl->dtype.code, dl->dtype.bits);
  if (dl->device.device_type != kDLCUDA || dl->dtype.lanes != 1 || !dtype || dl->ndim < 0 ||
      dl->ndim > BARACUDA_MAX_RANK)
    return 0;
  t->data = (char *)dl->data + dl->byte_offset;
  t->dtype = dtype;
  t->rank = dl->ndim;
  int64_t step = 1;
  for (int32_t d = dl->ndim - 1; d >= 0; --d) {
    t->shape[d] = dl->shape[d];
    t->strides[d] = dl->strides ? dl->strides[d] : step;
    step *= dl->shape[d];
  }
  *device = dl->device.device_id;
  return 1;
}

/* dl from obj through the exchange API: 1, or 0 (a Python error may be left for the caller to clear). Subclasses of
 * Tensor other than Parameter are left to their attributes: what their data is may be theirs to say. */
static int exchange_dl(PyObject *obj, dl_tensor *dl) {
  if (!exchange) return 0;
  Py_ssize_t i = PyTuple_GET_SIZE(exchange_types);
  while (i-- && PyTuple_GET_ITEM(exchange_types, i) != (PyObject *)Py_TYPE(obj)) {
  }
  return i >= 0 && exchange->dltensor_from_py_object_no_sync(obj, dl) == 0;
}

/* t (zeroed first) from obj through the exchange API, and *device its CUDA device: 1, or 0 (a Python error may be
 * left for the caller to clear) when the attributes must be read instead. */
static int read_exchanged(PyObject *obj, baracuda_tensor_t *t, int32_t *device) {
  dl_tensor dl = {0};
  return exchange_dl(obj, &dl) && tensor_of_dl(&dl, t, device);
}

/* t (zeroed first) from obj's attributes when obj is a plain CUDA PyTorch tensor: 1, or 0 (a Python error may be
 * left for the caller to clear). */
static int read_attributes(PyObject *obj, baracuda_tensor_t *t) {
  if (!PyObject_TypeCheck(obj, (PyTypeObject *)tensor_type)) return 0;
  int ok = 0;
  PyObject *dtype = NULL, *is_cuda = NULL, *shape = NULL, *stride = NULL, *data = NULL;
  PyObject *code;
  if (!(dtype = PyObject_GetAttr(obj, name_dtype)) || !(code = PyDict_GetItemWithError(dtype_codes, dtype))) goto done;
  if (!(is_cuda = PyObject_GetAttr(obj, name_is_cuda)) || is_cuda != Py_True) goto done;
  if (!(shape = PyObject_GetAttr(obj, name_shape)) || !PyTuple_Check(shape)) goto done;
  if (!(stride = PyObject_CallMethodNoArgs(obj, name_stride)) || !PyTuple_Check(stride)) goto done;
  const Py_ssize_t rank = PyTuple_GET_SIZE(shape);
  if (rank > BARACUDA_MAX_RANK || PyTuple_GET_SIZE(stride) != rank) goto done;
  if (!(data = PyObject_CallMethodNoArgs(obj, name_data_ptr))) goto done;
  t->data = PyLong_AsVoidPtr(data);
  t->dtype = (baracuda_dtype_t)PyLong_AsLong(code);
  t->rank = (int32_t)rank;
  ok = !PyErr_Occurred() && read_int64s(shape, t->shape, rank) && read_int64s(stride, t->strides, rank);
done:
  Py_XDECREF(dtype);
  Py_XDECREF(is_cuda);
  Py_XDECREF(shape);
  Py_XDECREF(stride);
  Py_XDECREF(data);
  return ok;
}

/* t from obj, by the exchange API where it serves obj, else by its attributes; *device is set (from -1) only by the
 * former. */
static int read_tensor(PyObject *obj, baracuda_tensor_t *t, int32_t *device) {
  if (read_exchanged(obj, t, device)) return 1;
  PyErr_Clear();
  return read_attributes(obj, t);
}

/* PyTorch's current stream on obj's device, as the Python path reads it; NULL with an error set on failure. */
static int stream_of(PyObject *obj, void **stream) {
  PyObject *device = PyObject_CallMethodNoArgs(obj, name_get_device);
  if (!device) return 0;
  PyObject *handle = PyObject_CallOneArg(current_stream, device);
  Py_DECREF(device);
  if (!handle) return 0;
  *stream = PyLong_AsVoidPtr(handle);
  Py_DECREF(handle);
  return !PyErr_Occurred();
}

/* a->role from name, and a zeroed, padding included, as the Python path's array is. */
static int role_of(PyObject *name, baracuda_arg_t *a) {
  memset(a, 0, sizeof *a);
  PyObject *code = PyDict_GetItemWithError(role_codes, name);
  if (!code) return 0;
  a->role = (int32_t)PyLong_AsLong(code);
  return 1;
}

/*
 * baracuda_plan_run (at run_address) of the plan at plan_address over a[0..n), without workspace, on stream_arg: an
 * int cudaStream_t, or None for the current stream of the first tensor's device (the exchange API's where it read
 * that tensor, device >= 0; else PyTorch's, asked of first). 1 with *status, or 0 (a Python error may be left for the
 * caller to clear) when the Python path must take the call.
 */
static int launch(PyObject *run_address, PyObject *plan_address, const baracuda_arg_t *a, Py_ssize_t n,
                  PyObject *stream_arg, int32_t device, PyObject *first, baracuda_status_t *status) {
  void *stream = NULL;
  if (stream_arg != Py_None) {
    stream = PyLong_AsVoidPtr(stream_arg);
    if (PyErr_Occurred()) return 0;
  } else if (device >= 0) {
    if (exchange->current_work_stream(kDLCUDA, device, &stream) != 0) return 0;
  } else if (first && !stream_of(first, &stream)) {
    return 0;
  }
  plan_run_fn run = (plan_run_fn)PyLong_AsVoidPtr(run_address);
  baracuda_plan_t plan = (baracuda_plan_t)PyLong_AsVoidPtr(plan_address);
  if (PyErr_Occurred()) return 0;
  /* clang-format off */
  Py_BEGIN_ALLOW_THREADS
  *status = run(plan, a, (int32_t)n, NULL, 0, (baracuda_stream_t)stream);
  Py_END_ALLOW_THREADS
  /* clang-format on */
  return 1;
}

/*
 * run(plan_run address, plan address, roles, tensors, stream) -> status, or
 * None when the Python path must take the call. roles and tensors: a dict of
 * role name -> tensor (tensors None), or a tuple of role names and a tuple of
 * tensors. stream: a cudaStream_t as an int, or None for PyTorch's current
 * stream on the first tensor's device.
 */
static PyObject *fast_run(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
  (void)self;
  if (nargs != 5) {
    PyErr_SetString(PyExc_TypeError, "run takes 5 arguments");
    return NULL;
  }
  if (!tensor_type) Py_RETURN_NONE;
  PyObject *roles = args[2], *tensors = args[3];
  baracuda_arg_t a[kMaxArgs];
  Py_ssize_t n = 0;
  PyObject *first = NULL;
  int32_t device = -1, ignored; /* the first tensor's device, where the exchange API read it */
  if (PyDict_Check(roles)) {
    PyObject *name, *obj;
    Py_ssize_t at = 0;
    while (PyDict_Next(roles, &at, &name, &obj)) {
      if (n == kMaxArgs || !role_of(name, &a[n]) || !read_tensor(obj, &a[n].tensor, first ? &ignored : &device))
        goto python_path;
      if (!first) first = obj;
      ++n;
    }
  } else if (PyTuple_Check(roles) && PyTuple_Check(tensors) && PyTuple_GET_SIZE(roles) == PyTuple_GET_SIZE(tensors)) {
    for (; n < PyTuple_GET_SIZE(roles); ++n) {
      PyObject *obj = PyTuple_GET_ITEM(tensors, n);
      if (n == kMaxArgs || !role_of(PyTuple_GET_ITEM(roles, n), &a[n]) ||
          !read_tensor(obj, &a[n].tensor, first ? &ignored : &device))
        goto python_path;
      if (!first) first = obj;
    }
  } else {
    goto python_path;
  }
  baracuda_status_t status;
  if (launch(args[0], args[1], a, n, args[4], device, first, &status)) return PyLong_FromLong(status);
python_path:
  PyErr_Clear();
  Py_RETURN_NONE;
}

static void ignore_error(void *context, const char *kind, const char *message) {
  (void)context;
  (void)kind;
  (void)message;
}

/* The int64 values of the tuple shape into out (at most BARACUDA_MAX_RANK): its length, or -1. */
static Py_ssize_t read_shape(PyObject *shape, int64_t *out) {
  if (!PyTuple_Check(shape) || PyTuple_GET_SIZE(shape) > BARACUDA_MAX_RANK) return -1;
  return read_int64s(shape, out, PyTuple_GET_SIZE(shape)) ? PyTuple_GET_SIZE(shape) : -1;
}

/*
 * run_new(plan_run address, plan address, (input role, output role), x, shape, stream) -> (status, out), or None
 * when the Python path must take the call (nothing allocated). out is a new tensor of x's framework, device and
 * dtype, and of the given shape, made by the framework's allocator through the exchange API: the helpers' output,
 * without the cost of allocating it from Python.
 */
static PyObject *fast_run_new(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
  (void)self;
  if (nargs != 6) {
    PyErr_SetString(PyExc_TypeError, "run_new takes 6 arguments");
    return NULL;
  }
  PyObject *names = args[2], *x = args[3];
  baracuda_arg_t a[2];
  int64_t shape[BARACUDA_MAX_RANK];
  dl_tensor in = {0};
  int32_t device = -1, ignored;
  const Py_ssize_t rank = read_shape(args[4], shape);
  if (!exchange || !exchange->managed_tensor_allocator || !exchange->managed_tensor_to_py_object_no_sync || rank < 0 ||
      !PyTuple_Check(names) || PyTuple_GET_SIZE(names) != 2 ||
      !role_of(PyTuple_GET_ITEM(names, 0), &a[0]) || !role_of(PyTuple_GET_ITEM(names, 1), &a[1]) ||
      !exchange_dl(x, &in) || !tensor_of_dl(&in, &a[0].tensor, &device))
    goto python_path;
  dl_tensor prototype = {0};
  prototype.device = in.device;
  prototype.dtype = in.dtype;
  prototype.ndim = (int32_t)rank;
  prototype.shape = shape;
  dl_managed_tensor *made = NULL;
  void *out = NULL;
  if (exchange->managed_tensor_allocator(&prototype, &made, NULL, ignore_error) != 0 || !made ||
      !tensor_of_dl(&made->tensor, &a[1].tensor, &ignored)) {
    if (made && made->deleter) made->deleter(made);
    goto python_path;
  }
  if (exchange->managed_tensor_to_py_object_no_sync(made, &out) != 0 || !out) goto python_path;
  baracuda_status_t status;
  if (!launch(args[0], args[1], a, 2, args[5], device, x, &status)) {
    Py_DECREF((PyObject *)out);
    goto python_path;
  }
  PyObject *code = PyLong_FromLong(status);
  PyObject *result = code ? PyTuple_Pack(2, code, (PyObject *)out) : NULL;
  Py_XDECREF(code);
  Py_DECREF((PyObject *)out);
  return result;
python_path:
  PyErr_Clear();
  Py_RETURN_NONE;
}

/* The exchange API on type (its __dlpack_c_exchange_api__ capsule), where it has one of DLPack major version 1 with
 * the two functions read here; NULL otherwise, with no error left. */
static const dl_exchange_api *exchange_api_of(PyObject *type) {
  const dl_exchange_api *api = NULL;
  PyObject *capsule = PyObject_GetAttrString(type, "__dlpack_c_exchange_api__");
  if (capsule && PyCapsule_IsValid(capsule, "dlpack_exchange_api"))
    api = (const dl_exchange_api *)PyCapsule_GetPointer(capsule, "dlpack_exchange_api");
  Py_XDECREF(capsule);
  PyErr_Clear();
  if (api && (api->version.major != 1 || !api->dltensor_from_py_object_no_sync || !api->current_work_stream))
    api = NULL;
  return api;
}

/* setup(torch.Tensor, {torch dtype: baracuda dtype}, {role name: role}, current_stream(device) -> int,
 *       (types the exchange API may read: torch.Tensor, torch.nn.Parameter)) */
static PyObject *fast_setup(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
  (void)self;
  if (nargs != 5 || !PyType_Check(args[0]) || !PyDict_Check(args[1]) || !PyDict_Check(args[2]) ||
      !PyCallable_Check(args[3]) || !PyTuple_Check(args[4])) {
    PyErr_SetString(PyExc_TypeError, "setup(tensor type, dtype codes, role codes, current_stream, exchange types)");
    return NULL;
  }
  PyObject **slots[5] = {&tensor_type, &dtype_codes, &role_codes, &current_stream, &exchange_types};
  for (int i = 0; i < 5; ++i) {
    Py_INCREF(args[i]);
    Py_XSETREF(*slots[i], args[i]);
  }
  exchange = exchange_api_of(tensor_type);
  Py_RETURN_NONE;
}

/* exchange_api() -> whether tensors are read through DLPack's C exchange API (for tests and benchmarks) */
static PyObject *fast_exchange_api(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  return PyBool_FromLong(exchange != NULL);
}

static PyMethodDef methods[] = {
    {"run", (PyCFunction)(void (*)(void))fast_run, METH_FASTCALL, "Plan.run for plain CUDA PyTorch tensors."},
    {"run_new", (PyCFunction)(void (*)(void))fast_run_new, METH_FASTCALL, "A helper's run into a new output."},
    {"setup", (PyCFunction)(void (*)(void))fast_setup, METH_FASTCALL, "Hands in torch's objects."},
    {"exchange_api", fast_exchange_api, METH_NOARGS, "Whether tensors are read through DLPack's C exchange API."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_baracuda_fast", NULL, -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__baracuda_fast(void) {
  PyObject **names[6] = {&name_dtype, &name_is_cuda, &name_shape, &name_stride, &name_data_ptr, &name_get_device};
  const char *texts[6] = {"dtype", "is_cuda", "shape", "stride", "data_ptr", "get_device"};
  for (int i = 0; i < 6; ++i)
    if (!*names[i] && !(*names[i] = PyUnicode_InternFromString(texts[i]))) return NULL;
  return PyModule_Create(&module);
}
