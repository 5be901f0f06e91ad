/*
 * baracuda-kernels: the core of the C ABI.
 *
 * Every op follows one life cycle:
 *
 *     descriptor --baracuda_plan_select--> plan
 *     plan --baracuda_plan_workspace_size--> bytes; the caller allocates them
 *     plan --baracuda_plan_run(args, workspace, stream)--> results on the stream
 *     plan --baracuda_plan_destroy--> gone
 *
 * This header is C99 and valid C++; it needs no CUDA header. Include
 * <baracuda/baracuda.h>, which brings this file and every op family's header.
 */
#ifndef BARACUDA_CORE_H
#define BARACUDA_CORE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define BARACUDA_API
#else
#define BARACUDA_API __attribute__((visibility("default")))
#endif

/* ---------------------------------------------------------------- status */

/*
 * Every function that can fail returns a status. 0 is success; 1 to 4 are the
 * library's own codes; a failure reported by the CUDA runtime is returned as
 * the negated cudaError_t, so it is always negative. After any non-zero status,
 * baracuda_last_error_message() tells this thread what went wrong.
 */
typedef int32_t baracuda_status_t;

#define BARACUDA_STATUS_SUCCESS 0
/* A data pointer is not aligned to its element size. */
#define BARACUDA_STATUS_MISALIGNED_OPERAND 1
/* The request is wrong: shapes disagree, a negative extent, a null pointer. */
#define BARACUDA_STATUS_INVALID_PROBLEM 2
/* The request is valid, but this build, device, dtype or size is not served. */
#define BARACUDA_STATUS_UNSUPPORTED 3
/* The workspace given to run is smaller than baracuda_plan_workspace_size. */
#define BARACUDA_STATUS_WORKSPACE_TOO_SMALL 4

/* ---------------------------------------------------------------- dtypes */

/* Element types. The values are fixed forever; 0 is never a valid dtype. */
typedef int32_t baracuda_dtype_t;

#define BARACUDA_DTYPE_INVALID 0
#define BARACUDA_DTYPE_F32 1
#define BARACUDA_DTYPE_F16 2
#define BARACUDA_DTYPE_BF16 3
#define BARACUDA_DTYPE_F64 4
#define BARACUDA_DTYPE_F32_STRICT 5 /* f32 where no op may use reduced-precision math */
#define BARACUDA_DTYPE_I32 6
#define BARACUDA_DTYPE_I64 7
#define BARACUDA_DTYPE_BOOL 8       /* one byte, 0 or 1 */
#define BARACUDA_DTYPE_S8 9
#define BARACUDA_DTYPE_U8 10
#define BARACUDA_DTYPE_S4 11        /* two per byte, element 2k in the low nibble */
#define BARACUDA_DTYPE_U4 12        /* two per byte, element 2k in the low nibble */
#define BARACUDA_DTYPE_FP8_E4M3 13  /* OCP e4m3fn: no infinities */
#define BARACUDA_DTYPE_FP8_E5M2 14
#define BARACUDA_DTYPE_COMPLEX32 15 /* (re, im) pair of f32, 8 bytes */
#define BARACUDA_DTYPE_COMPLEX64 16 /* (re, im) pair of f64, 16 bytes */
#define BARACUDA_DTYPE_BIN 17       /* one bit per element */
#define BARACUDA_DTYPE_COUNT 18     /* one past the largest dtype value */

/* ---------------------------------------------------------------- tensors */

#define BARACUDA_MAX_RANK 8

/*
 * A view of device memory. Element (i0, ..., i{rank-1}) lives at
 * data + sum(i_d * strides[d]) elements (for S4/U4, nibbles).
 * Strides are in elements, never bytes; a stride of 0 broadcasts that axis
 * (allowed for inputs only); negative strides are not served.
 * capacity is how many elements are reachable from data (the allocation's
 * size); the library then checks that the view stays inside it. 0 = unchecked.
 * Shape and stride entries at and past rank are ignored.
 */
typedef struct baracuda_tensor_t {
  void *data;
  baracuda_dtype_t dtype;
  int32_t rank;
  int64_t shape[BARACUDA_MAX_RANK];
  int64_t strides[BARACUDA_MAX_RANK];
  int64_t capacity;
} baracuda_tensor_t;

/* A dense row-major tensor (last axis fastest) whose capacity is its size. */
static inline baracuda_tensor_t baracuda_tensor_contiguous(void *data, baracuda_dtype_t dtype,
                                                           int32_t rank, const int64_t *shape) {
  baracuda_tensor_t t;
  int64_t stride = 1;
  int32_t d;
  t.data = data;
  t.dtype = dtype;
  t.rank = rank;
  for (d = 0; d < BARACUDA_MAX_RANK; ++d) {
    t.shape[d] = 0;
    t.strides[d] = 0;
  }
  for (d = (rank < BARACUDA_MAX_RANK ? rank : BARACUDA_MAX_RANK) - 1; d >= 0; --d) {
    t.shape[d] = shape[d];
    t.strides[d] = stride;
    stride *= shape[d];
  }
  t.capacity = stride;
  return t;
}

/* ---------------------------------------------------------------- arguments */

/*
 * Tensors reach run() tagged with their role. Which roles an op takes is in
 * its family's header. An optional role is simply left out; an unknown,
 * repeated or missing required role is INVALID_PROBLEM. The order is free.
 */
#define BARACUDA_ARG_X 1
#define BARACUDA_ARG_WEIGHT 2
#define BARACUDA_ARG_BIAS 3
#define BARACUDA_ARG_Y 4
#define BARACUDA_ARG_DY 5
#define BARACUDA_ARG_DX 6
#define BARACUDA_ARG_DW 7
#define BARACUDA_ARG_DB 8
#define BARACUDA_ARG_DEST 9
#define BARACUDA_ARG_SOURCE 10
#define BARACUDA_ARG_SCORES 11
#define BARACUDA_ARG_SLOPES 12
#define BARACUDA_ARG_DSCORES 13
#define BARACUDA_ARG_DSLOPES 14
#define BARACUDA_ARG_Q 15
#define BARACUDA_ARG_K 16
#define BARACUDA_ARG_V 17
#define BARACUDA_ARG_OUT 18
#define BARACUDA_ARG_LSE 19
#define BARACUDA_ARG_DOUT 20
#define BARACUDA_ARG_DQ 21
#define BARACUDA_ARG_DK 22
#define BARACUDA_ARG_DV 23
#define BARACUDA_ARG_STATE 24
#define BARACUDA_ARG_INITIAL_STATES 25
#define BARACUDA_ARG_FINAL_STATES 26
#define BARACUDA_ARG_DINITIAL_STATES 27
#define BARACUDA_ARG_CACHE_SEQLENS 28
#define BARACUDA_ARG_SEQ_IDX 29
#define BARACUDA_ARG_CONV_STATE_INDICES 30
#define BARACUDA_ARG_DFINAL_STATES 31

typedef struct baracuda_arg_t {
  int32_t role;
  baracuda_tensor_t tensor;
} baracuda_arg_t;

/* ---------------------------------------------------------------- descriptors */

/*
 * Every op descriptor begins with this header. struct_size is the
 * sizeof() the caller compiled against: the library accepts any size from the
 * first published one up to its own (fields past the caller's size take their
 * documented defaults), and a larger size when every byte past its own is zero.
 * Each descriptor has an ..._INIT macro that fills the header.
 */
typedef struct baracuda_op_header_t {
  uint32_t struct_size;
  int32_t op;
} baracuda_op_header_t;

/* Op identifiers, fixed forever. */
#define BARACUDA_OP_PAD 1
#define BARACUDA_OP_PAD_BACKWARD 2
#define BARACUDA_OP_WRITE_SLICE 3
#define BARACUDA_OP_CAUSAL_CONV1D 4
#define BARACUDA_OP_CAUSAL_CONV1D_BACKWARD 5
#define BARACUDA_OP_CAUSAL_CONV1D_UPDATE 6
#define BARACUDA_OP_ALIBI 7
#define BARACUDA_OP_ALIBI_BACKWARD 8
#define BARACUDA_OP_SDPA 9
#define BARACUDA_OP_SDPA_BACKWARD 10

/* ---------------------------------------------------------------- selection */

/* Only plans whose results are bitwise repeatable run to run. */
#define BARACUDA_SELECT_DETERMINISTIC 0x1u
/* No vendor library (cuDNN, ...): bespoke kernels only. */
#define BARACUDA_SELECT_BESPOKE_ONLY 0x2u

typedef struct baracuda_select_options_t {
  uint32_t struct_size;
  int32_t device;    /* -1: the current device */
  int32_t target_sm; /* 0: the device's; 80, 89, 90, ...: plan for that arch, touching no GPU */
  uint32_t flags;    /* BARACUDA_SELECT_* */
} baracuda_select_options_t;

#define BARACUDA_SELECT_OPTIONS_INIT {sizeof(baracuda_select_options_t), -1, 0, 0u}

/* ---------------------------------------------------------------- plans */

typedef struct baracuda_plan_s *baracuda_plan_t;

/* The same type as cudaStream_t; NULL is the legacy default stream. */
typedef struct CUstream_st *baracuda_stream_t;

#define BARACUDA_BACKEND_BESPOKE 1
#define BARACUDA_BACKEND_CUDNN 2
#define BARACUDA_BACKEND_CUDA_RUNTIME 3 /* cudaMemcpyAsync and the like */

/* What a plan will do; versioned like a descriptor (set struct_size first). */
typedef struct baracuda_plan_info_t {
  uint32_t struct_size;
  int32_t op;
  baracuda_dtype_t dtype;
  int32_t target_sm;
  int32_t backend;                  /* BARACUDA_BACKEND_* */
  baracuda_dtype_t math_precision;  /* dtype the arithmetic runs in; INVALID (0) when the op only moves data */
  baracuda_dtype_t accumulator;     /* dtype sums are kept in; INVALID (0) when there are none */
  int32_t deterministic;            /* 1: bitwise repeatable run to run */
  int32_t bit_stable;               /* 1: also independent of launch shape, stream and thread count */
  int32_t reserved0;
  uint64_t workspace_bytes;
  char kernel_name[64];             /* NUL-terminated */
} baracuda_plan_info_t;

#define BARACUDA_PLAN_INFO_INIT {sizeof(baracuda_plan_info_t), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0u, {0}}

/*
 * Validates desc and picks a kernel for it. opts may be NULL (defaults).
 * On success *out_plan owns the plan; on failure it is set to NULL.
 */
BARACUDA_API baracuda_status_t baracuda_plan_select(const baracuda_op_header_t *desc,
                                                    const baracuda_select_options_t *opts,
                                                    baracuda_plan_t *out_plan);

/* Device memory the caller must pass to run, in bytes (often 0). */
BARACUDA_API baracuda_status_t baracuda_plan_workspace_size(baracuda_plan_t plan, size_t *bytes);

/* Everything run() checks about the arguments, without launching anything. */
BARACUDA_API baracuda_status_t baracuda_plan_check(baracuda_plan_t plan, const baracuda_arg_t *args,
                                                   int32_t num_args);

/*
 * Enqueues the op on stream. Never allocates device memory, never
 * synchronizes, legal inside CUDA graph capture. A plan may be run from many
 * host threads on many streams at once. Outputs are overwritten.
 */
BARACUDA_API baracuda_status_t baracuda_plan_run(baracuda_plan_t plan, const baracuda_arg_t *args,
                                                 int32_t num_args, void *workspace,
                                                 size_t workspace_bytes, baracuda_stream_t stream);

BARACUDA_API baracuda_status_t baracuda_plan_get_info(baracuda_plan_t plan, baracuda_plan_info_t *info);

/* NULL is fine. */
BARACUDA_API void baracuda_plan_destroy(baracuda_plan_t plan);

/* ---------------------------------------------------------------- errors and introspection */

/* A name for any status, including negated CUDA errors. Never NULL. */
BARACUDA_API const char *baracuda_status_string(int32_t status);

/*
 * A sentence about this thread's last non-zero status, naming the op, the
 * argument, and what was expected against what was found. "" if none yet.
 * A success leaves it as it was; the pointer stays valid until this thread's
 * next failing call.
 */
BARACUDA_API const char *baracuda_last_error_message(void);

/*
 * The version these headers describe. baracuda_version() returns the loaded
 * library's; a binding that reads the headers at run time compares the two.
 */
#define BARACUDA_VERSION_MAJOR 0
#define BARACUDA_VERSION_MINOR 1
#define BARACUDA_VERSION_PATCH 0
#define BARACUDA_VERSION (BARACUDA_VERSION_MAJOR * 10000 + BARACUDA_VERSION_MINOR * 100 + BARACUDA_VERSION_PATCH)

/* The loaded library's version: major * 10000 + minor * 100 + patch. */
BARACUDA_API uint32_t baracuda_version(void);

/* "f32", "bf16", ...; "invalid" for values that name no dtype. Never NULL. */
BARACUDA_API const char *baracuda_dtype_name(baracuda_dtype_t dtype);

/* Bits one element occupies (4 for S4/U4, 1 for BIN); 0 for invalid values. */
BARACUDA_API int32_t baracuda_dtype_bits(baracuda_dtype_t dtype);

/*
 * The op registry. baracuda_op_list writes up to capacity op identifiers
 * (ops may be NULL when capacity is 0) and returns how many there are.
 */
BARACUDA_API int32_t baracuda_op_list(int32_t *ops, int32_t capacity);

/* "pad", "write_slice", ...; NULL for an unknown op. */
BARACUDA_API const char *baracuda_op_name(int32_t op);

/* Bit (1 << dtype) is set for each dtype the op serves; 0 for an unknown op. */
BARACUDA_API uint64_t baracuda_op_dtype_mask(int32_t op);

/* How this library was built; versioned like a descriptor. */
typedef struct baracuda_build_info_t {
  uint32_t struct_size;
  uint32_t version;
  int32_t cudnn_enabled;      /* 1 when built with the cuDNN backend */
  int32_t num_sass_archs;     /* entries used in sass_archs */
  int32_t sass_archs[16];     /* SMs with machine code, e.g. 80, 89, 90 */
  int32_t ptx_arch;           /* SM of the embedded PTX (JIT for newer GPUs); 0 if none */
  int32_t cuda_runtime_version; /* CUDART_VERSION the library was built with */
} baracuda_build_info_t;

#define BARACUDA_BUILD_INFO_INIT {sizeof(baracuda_build_info_t), 0u, 0, 0, {0}, 0, 0}

BARACUDA_API baracuda_status_t baracuda_get_build_info(baracuda_build_info_t *info);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* BARACUDA_CORE_H */
