/*
 * The optional compiled fast path of Plan.run and Plan.enqueue: the same
 * baracuda_arg_t array the Python path packs, built on the C stack from
 * PyTorch tensors read through the CPython API, and baracuda_plan_run called
 * without ctypes. On a slow host that is about 3 us less per call of four
 * tensors than the Python path (whose attribute reads, loop and ctypes call it
 * replaces). It holds no state between calls, so no layout is ever reused and
 * the array is the caller thread's own.
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

/* Set by setup(): torch.Tensor, {torch dtype: baracuda dtype} of the plain
 * dtypes, {role name: role}, and torch's current-raw-stream function. */
static PyObject *tensor_type, *dtype_codes, *role_codes, *current_stream;
static PyObject *name_dtype, *name_is_cuda, *name_shape, *name_stride, *name_data_ptr, *name_get_device;

/* The int64 items of a tuple (torch.Size is one) into out; 0 when any is not an int64. */
static int read_int64s(PyObject *tuple, int64_t *out, Py_ssize_t n) {
  for (Py_ssize_t i = 0; i < n; ++i) {
    out[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(tuple, i));
    if (out[i] == -1 && PyErr_Occurred()) return 0;
  }
  return 1;
}

/* t (zeroed first) from obj when obj is a plain CUDA PyTorch tensor: 1, or 0 (a Python error may be left for the
 * caller to clear). */
static int read_tensor(PyObject *obj, baracuda_tensor_t *t) {
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
  PyObject *roles = args[2], *tensors = args[3], *stream_arg = args[4];
  baracuda_arg_t a[kMaxArgs];
  Py_ssize_t n = 0;
  void *stream = NULL;
  PyObject *first = NULL;
  if (PyDict_Check(roles)) {
    PyObject *name, *obj;
    Py_ssize_t at = 0;
    while (PyDict_Next(roles, &at, &name, &obj)) {
      if (n == kMaxArgs || !role_of(name, &a[n]) || !read_tensor(obj, &a[n].tensor)) goto python_path;
      if (!first) first = obj;
      ++n;
    }
  } else if (PyTuple_Check(roles) && PyTuple_Check(tensors) && PyTuple_GET_SIZE(roles) == PyTuple_GET_SIZE(tensors)) {
    for (; n < PyTuple_GET_SIZE(roles); ++n) {
      PyObject *obj = PyTuple_GET_ITEM(tensors, n);
      if (n == kMaxArgs || !role_of(PyTuple_GET_ITEM(roles, n), &a[n]) || !read_tensor(obj, &a[n].tensor))
        goto python_path;
      if (!first) first = obj;
    }
  } else {
    goto python_path;
  }
  if (stream_arg != Py_None) {
    stream = PyLong_AsVoidPtr(stream_arg);
    if (PyErr_Occurred()) goto python_path;
  } else if (first && !stream_of(first, &stream)) {
    goto python_path;
  }
  plan_run_fn run = (plan_run_fn)PyLong_AsVoidPtr(args[0]);
  baracuda_plan_t plan = (baracuda_plan_t)PyLong_AsVoidPtr(args[1]);
  if (PyErr_Occurred()) return NULL;
  baracuda_status_t status;
  /* clang-format off */
  Py_BEGIN_ALLOW_THREADS
  status = run(plan, a, (int32_t)n, NULL, 0, (baracuda_stream_t)stream);
  Py_END_ALLOW_THREADS
  /* clang-format on */
  return PyLong_FromLong(status);
python_path:
  PyErr_Clear();
  Py_RETURN_NONE;
}

/* setup(torch.Tensor, {torch dtype: baracuda dtype}, {role name: role}, current_stream(device) -> int) */
static PyObject *fast_setup(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
  (void)self;
  if (nargs != 4 || !PyType_Check(args[0]) || !PyDict_Check(args[1]) || !PyDict_Check(args[2]) ||
      !PyCallable_Check(args[3])) {
    PyErr_SetString(PyExc_TypeError, "setup(tensor type, dtype codes, role codes, current_stream)");
    return NULL;
  }
  PyObject **slots[4] = {&tensor_type, &dtype_codes, &role_codes, &current_stream};
  for (int i = 0; i < 4; ++i) {
    Py_INCREF(args[i]);
    Py_XSETREF(*slots[i], args[i]);
  }
  Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"run", (PyCFunction)(void (*)(void))fast_run, METH_FASTCALL, "Plan.run for plain CUDA PyTorch tensors."},
    {"setup", (PyCFunction)(void (*)(void))fast_setup, METH_FASTCALL, "Hands in torch's objects."},
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
