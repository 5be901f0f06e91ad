// Links libbaracuda_kernels from BARACUDA_LIB_DIR (default: the repository's
// build/ folder) and the CUDA runtime the tests allocate with.
fn main() {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").unwrap();
    let lib_dir = std::env::var("BARACUDA_LIB_DIR").unwrap_or(format!("{manifest}/../../build"));
    let cuda = std::env::var("CUDA_HOME").unwrap_or("/usr/local/cuda".into());
    println!("cargo:rustc-link-search=native={lib_dir}");
    println!("cargo:rustc-link-search=native={cuda}/lib64");
    println!("cargo:rustc-link-lib=dylib=baracuda_kernels");
    println!("cargo:rustc-link-lib=dylib=cudart");
    println!("cargo:rustc-link-arg=-Wl,-rpath,{lib_dir}");
    println!("cargo:rustc-link-arg=-Wl,-rpath,{cuda}/lib64");
    println!("cargo:rerun-if-env-changed=BARACUDA_LIB_DIR");
}
