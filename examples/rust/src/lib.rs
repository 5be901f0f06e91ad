//! A small safe layer over baracuda-kernels: a `Plan` that destroys itself on
//! drop, and `Result`s that carry the status and the library's message.
pub mod ffi;

use std::ffi::{c_void, CStr};
use std::fmt;

/// A non-zero status and the library's sentence about it.
#[derive(Debug, Clone, PartialEq)]
pub struct Error {
    pub status: i32,
    pub message: String,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = unsafe { CStr::from_ptr(ffi::baracuda_status_string(self.status)) };
        write!(f, "{} ({}): {}", name.to_string_lossy(), self.status, self.message)
    }
}

impl std::error::Error for Error {}

fn check(status: i32) -> Result<(), Error> {
    if status == 0 {
        return Ok(());
    }
    let message = unsafe { CStr::from_ptr(ffi::baracuda_last_error_message()) }.to_string_lossy().into_owned();
    Err(Error { status, message })
}

/// A descriptor struct: every one begins with `baracuda_op_header_t`.
pub trait Descriptor {
    fn header(&self) -> *const ffi::baracuda_op_header_t;
}

impl Descriptor for ffi::baracuda_pad_desc_t {
    fn header(&self) -> *const ffi::baracuda_op_header_t {
        &self.header
    }
}

impl Descriptor for ffi::baracuda_write_slice_desc_t {
    fn header(&self) -> *const ffi::baracuda_op_header_t {
        &self.header
    }
}

/// A pad descriptor (forward, or backward with `op = OP_PAD_BACKWARD`).
pub fn pad_desc(op: i32, dtype: i32, mode: i32, input_shape: &[i64], low: &[i64], high: &[i64]) -> ffi::baracuda_pad_desc_t {
    let mut d = ffi::baracuda_pad_desc_t {
        header: ffi::baracuda_op_header_t { struct_size: std::mem::size_of::<ffi::baracuda_pad_desc_t>() as u32, op },
        dtype,
        mode,
        rank: input_shape.len() as i32,
        reserved0: 0,
        input_shape: [0; ffi::MAX_RANK],
        pad_low: [0; ffi::MAX_RANK],
        pad_high: [0; ffi::MAX_RANK],
        value: 0.0,
        value_imag: 0.0,
    };
    d.input_shape[..input_shape.len()].copy_from_slice(input_shape);
    d.pad_low[..low.len()].copy_from_slice(low);
    d.pad_high[..high.len()].copy_from_slice(high);
    d
}

/// `dest[start..end] = source`.
pub fn write_slice_desc(dtype: i32, dest_shape: &[i64], start: &[i64], end: &[i64]) -> ffi::baracuda_write_slice_desc_t {
    let mut d = ffi::baracuda_write_slice_desc_t {
        header: ffi::baracuda_op_header_t {
            struct_size: std::mem::size_of::<ffi::baracuda_write_slice_desc_t>() as u32,
            op: ffi::OP_WRITE_SLICE,
        },
        dtype,
        rank: dest_shape.len() as i32,
        dest_shape: [0; ffi::MAX_RANK],
        start: [0; ffi::MAX_RANK],
        end: [0; ffi::MAX_RANK],
    };
    d.dest_shape[..dest_shape.len()].copy_from_slice(dest_shape);
    d.start[..start.len()].copy_from_slice(start);
    d.end[..end.len()].copy_from_slice(end);
    d
}

/// A dense row-major tensor view of device memory.
pub fn contiguous(data: *mut c_void, dtype: i32, shape: &[i64]) -> ffi::baracuda_tensor_t {
    let mut t = ffi::baracuda_tensor_t {
        data,
        dtype,
        rank: shape.len() as i32,
        shape: [0; ffi::MAX_RANK],
        strides: [0; ffi::MAX_RANK],
        capacity: 0,
    };
    let mut stride = 1i64;
    for d in (0..shape.len()).rev() {
        t.shape[d] = shape[d];
        t.strides[d] = stride;
        stride *= shape[d];
    }
    t.capacity = stride;
    t
}

/// A selected plan; immutable, shareable across threads, destroyed on drop.
pub struct Plan(ffi::baracuda_plan_t);

unsafe impl Send for Plan {}
unsafe impl Sync for Plan {}

impl Plan {
    /// `target_sm` 0 plans for the current GPU; 80, 89, 90 ... plan without one.
    pub fn select(desc: &impl Descriptor, target_sm: i32) -> Result<Plan, Error> {
        let opts = ffi::baracuda_select_options_t {
            struct_size: std::mem::size_of::<ffi::baracuda_select_options_t>() as u32,
            device: -1,
            target_sm,
            flags: 0,
        };
        let mut plan: ffi::baracuda_plan_t = std::ptr::null_mut();
        check(unsafe { ffi::baracuda_plan_select(desc.header(), &opts, &mut plan) })?;
        Ok(Plan(plan))
    }

    pub fn workspace_size(&self) -> Result<usize, Error> {
        let mut bytes = 0usize;
        check(unsafe { ffi::baracuda_plan_workspace_size(self.0, &mut bytes) })?;
        Ok(bytes)
    }

    /// Enqueues on `stream` (a cudaStream_t; null for the legacy default stream).
    pub fn run(&self, args: &[(i32, ffi::baracuda_tensor_t)], stream: *mut c_void) -> Result<(), Error> {
        let args: Vec<ffi::baracuda_arg_t> = args.iter().map(|&(role, tensor)| ffi::baracuda_arg_t { role, tensor }).collect();
        check(unsafe { ffi::baracuda_plan_run(self.0, args.as_ptr(), args.len() as i32, std::ptr::null_mut(), 0, stream) })
    }

    pub fn kernel_name(&self) -> Result<String, Error> {
        let mut info: ffi::baracuda_plan_info_t = unsafe { std::mem::zeroed() };
        info.struct_size = std::mem::size_of::<ffi::baracuda_plan_info_t>() as u32;
        check(unsafe { ffi::baracuda_plan_get_info(self.0, &mut info) })?;
        Ok(unsafe { CStr::from_ptr(info.kernel_name.as_ptr()) }.to_string_lossy().into_owned())
    }
}

impl Drop for Plan {
    fn drop(&mut self) {
        unsafe { ffi::baracuda_plan_destroy(self.0) }
    }
}
