//! Selection and errors without a GPU (target_sm), layouts, and a pad and a
//! write_slice on the GPU when one is present.
use baracuda_example::{contiguous, ffi, pad_desc, write_slice_desc, Plan};
use std::ffi::c_void;

extern "C" {
    fn cudaGetDeviceCount(count: *mut i32) -> i32;
    fn cudaMalloc(ptr: *mut *mut c_void, bytes: usize) -> i32;
    fn cudaFree(ptr: *mut c_void) -> i32;
    fn cudaMemcpy(dst: *mut c_void, src: *const c_void, bytes: usize, kind: i32) -> i32;
}
const H2D: i32 = 1;
const D2H: i32 = 2;

fn gpu() -> bool {
    let mut n = 0;
    unsafe { cudaGetDeviceCount(&mut n) == 0 && n > 0 }
}

#[test]
fn structs_have_the_c_layout() {
    assert_eq!(std::mem::size_of::<ffi::baracuda_tensor_t>(), 152);
    assert_eq!(std::mem::size_of::<ffi::baracuda_arg_t>(), 160);
    assert_eq!(std::mem::size_of::<ffi::baracuda_pad_desc_t>(), 232);
    assert_eq!(std::mem::size_of::<ffi::baracuda_write_slice_desc_t>(), 208);
    assert_eq!(std::mem::size_of::<ffi::baracuda_plan_info_t>(), 112);
}

#[test]
fn a_plan_selected_for_sm90_names_its_kernel() {
    let d = pad_desc(ffi::OP_PAD, ffi::DTYPE_BF16, ffi::PAD_REFLECT, &[4, 100], &[0, 3], &[0, 5]);
    let plan = Plan::select(&d, 90).expect("select");
    assert_eq!(plan.kernel_name().unwrap(), "pad_gather_rows_b2_reflect");
    assert_eq!(plan.workspace_size().unwrap(), 0);
}

#[test]
fn a_bad_descriptor_is_an_error_with_the_librarys_message() {
    let d = pad_desc(ffi::OP_PAD, ffi::DTYPE_F32, ffi::PAD_REFLECT, &[4], &[4], &[0]);
    let err = Plan::select(&d, 90).err().expect("reflect pad 4 of 4 must fail");
    assert_eq!(err.status, ffi::STATUS_INVALID_PROBLEM);
    assert!(err.message.contains("reflect needs pad < input extent"), "{}", err.message);
    let d = write_slice_desc(42, &[4], &[0], &[2]);
    assert_eq!(Plan::select(&d, 90).err().unwrap().status, ffi::STATUS_INVALID_PROBLEM);
}

#[test]
fn pad_and_write_slice_on_the_gpu() {
    if !gpu() {
        eprintln!("no CUDA device: GPU part skipped");
        return;
    }
    unsafe {
        let x: Vec<f32> = (0..40).map(|i| i as f32 * 0.5 - 3.0).collect();
        let (mut dx, mut dy) = (std::ptr::null_mut(), std::ptr::null_mut());
        assert_eq!(cudaMalloc(&mut dx, 40 * 4), 0);
        assert_eq!(cudaMalloc(&mut dy, 4 * 15 * 4), 0);
        assert_eq!(cudaMemcpy(dx, x.as_ptr() as *const c_void, 160, H2D), 0);
        let d = pad_desc(ffi::OP_PAD, ffi::DTYPE_F32, ffi::PAD_REFLECT, &[4, 10], &[0, 2], &[0, 3]);
        let plan = Plan::select(&d, 0).expect("select");
        plan.run(&[(ffi::ARG_X, contiguous(dx, ffi::DTYPE_F32, &[4, 10])),
                   (ffi::ARG_Y, contiguous(dy, ffi::DTYPE_F32, &[4, 15]))], std::ptr::null_mut())
            .expect("run");
        let mut y = vec![0f32; 60];
        assert_eq!(cudaMemcpy(y.as_mut_ptr() as *mut c_void, dy, 240, D2H), 0);
        for r in 0..4 {
            for j in 0..15i64 {
                let i = j - 2;
                let src = if i < 0 { -i } else if i >= 10 { 18 - i } else { i };
                assert_eq!(y[(r * 15 + j) as usize], x[(r * 10 + src) as usize]);
            }
        }
        // cache[:, 3:5] = step on a u8 [2, 8] cache
        let (mut dc, mut ds) = (std::ptr::null_mut(), std::ptr::null_mut());
        let cache = [7u8; 16];
        let step = [1u8, 2, 3, 4];
        assert_eq!(cudaMalloc(&mut dc, 16), 0);
        assert_eq!(cudaMalloc(&mut ds, 4), 0);
        assert_eq!(cudaMemcpy(dc, cache.as_ptr() as *const c_void, 16, H2D), 0);
        assert_eq!(cudaMemcpy(ds, step.as_ptr() as *const c_void, 4, H2D), 0);
        let d = write_slice_desc(ffi::DTYPE_U8, &[2, 8], &[0, 3], &[2, 5]);
        Plan::select(&d, 0).unwrap()
            .run(&[(ffi::ARG_DEST, contiguous(dc, ffi::DTYPE_U8, &[2, 8])),
                   (ffi::ARG_SOURCE, contiguous(ds, ffi::DTYPE_U8, &[2, 2]))], std::ptr::null_mut())
            .expect("run");
        let mut out = [0u8; 16];
        assert_eq!(cudaMemcpy(out.as_mut_ptr() as *mut c_void, dc, 16, D2H), 0);
        assert_eq!(out, [7, 7, 7, 1, 2, 7, 7, 7, 7, 7, 7, 3, 4, 7, 7, 7]);
        for p in [dx, dy, dc, ds] {
            cudaFree(p);
        }
    }
    println!("Rust: pad and write_slice ok on the GPU");
}
