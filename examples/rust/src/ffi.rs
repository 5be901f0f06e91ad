//! The C ABI of include/baracuda/*.h, declared by hand.
#![allow(non_camel_case_types)]
use std::ffi::c_void;
use std::os::raw::c_char;

pub const MAX_RANK: usize = 8;
pub const OP_PAD: i32 = 1;
pub const OP_PAD_BACKWARD: i32 = 2;
pub const OP_WRITE_SLICE: i32 = 3;
pub const DTYPE_F32: i32 = 1;
pub const DTYPE_BF16: i32 = 3;
pub const DTYPE_U8: i32 = 10;
pub const PAD_CONSTANT: i32 = 0;
pub const PAD_REFLECT: i32 = 1;
pub const ARG_X: i32 = 1;
pub const ARG_Y: i32 = 4;
pub const ARG_DEST: i32 = 9;
pub const ARG_SOURCE: i32 = 10;
pub const STATUS_INVALID_PROBLEM: i32 = 2;
pub const STATUS_UNSUPPORTED: i32 = 3;

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct baracuda_tensor_t {
    pub data: *mut c_void,
    pub dtype: i32,
    pub rank: i32,
    pub shape: [i64; MAX_RANK],
    pub strides: [i64; MAX_RANK],
    pub capacity: i64,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct baracuda_arg_t {
    pub role: i32,
    pub tensor: baracuda_tensor_t,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct baracuda_op_header_t {
    pub struct_size: u32,
    pub op: i32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct baracuda_select_options_t {
    pub struct_size: u32,
    pub device: i32,
    pub target_sm: i32,
    pub flags: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct baracuda_pad_desc_t {
    pub header: baracuda_op_header_t,
    pub dtype: i32,
    pub mode: i32,
    pub rank: i32,
    pub reserved0: i32,
    pub input_shape: [i64; MAX_RANK],
    pub pad_low: [i64; MAX_RANK],
    pub pad_high: [i64; MAX_RANK],
    pub value: f64,
    pub value_imag: f64,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct baracuda_write_slice_desc_t {
    pub header: baracuda_op_header_t,
    pub dtype: i32,
    pub rank: i32,
    pub dest_shape: [i64; MAX_RANK],
    pub start: [i64; MAX_RANK],
    pub end: [i64; MAX_RANK],
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct baracuda_plan_info_t {
    pub struct_size: u32,
    pub op: i32,
    pub dtype: i32,
    pub target_sm: i32,
    pub backend: i32,
    pub math_precision: i32,
    pub accumulator: i32,
    pub deterministic: i32,
    pub bit_stable: i32,
    pub reserved0: i32,
    pub workspace_bytes: u64,
    pub kernel_name: [c_char; 64],
}

pub type baracuda_plan_t = *mut c_void;

extern "C" {
    pub fn baracuda_plan_select(desc: *const baracuda_op_header_t, opts: *const baracuda_select_options_t,
                                out: *mut baracuda_plan_t) -> i32;
    pub fn baracuda_plan_workspace_size(plan: baracuda_plan_t, bytes: *mut usize) -> i32;
    pub fn baracuda_plan_run(plan: baracuda_plan_t, args: *const baracuda_arg_t, num_args: i32, workspace: *mut c_void,
                             workspace_bytes: usize, stream: *mut c_void) -> i32;
    pub fn baracuda_plan_get_info(plan: baracuda_plan_t, info: *mut baracuda_plan_info_t) -> i32;
    pub fn baracuda_plan_destroy(plan: baracuda_plan_t);
    pub fn baracuda_status_string(status: i32) -> *const c_char;
    pub fn baracuda_last_error_message() -> *const c_char;
    pub fn baracuda_version() -> u32;
}
