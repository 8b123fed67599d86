//! The facade compiles the safety-frame program: example 22's pipeline
//! (`examples/22_safety_frame/pipeline.rs`, that file, not a copy) builds against
//! custack-safety's re-exports alone, and runs on a GPU with `CUSTACK_FRAME_CUBIN` set
//! (`examples/kernels/frame.cu` built by nvcc for the device, as `scripts/gpu-bundle.sh` does).

// Every `custack` path of this test crate means the facade: this `extern crate` at the crate
// root shadows the `custack` cargo passes (custack is a dependency of this package), so each
// `custack::…` the pipeline writes resolves in custack-safety, and a name the facade does not
// re-export fails to compile here, as in a program that depends on custack-safety only.
extern crate custack_safety as custack;

#[path = "../../examples/22_safety_frame/pipeline.rs"]
#[allow(dead_code)]
mod pipeline;

#[test]
#[ignore = "needs a CUDA device"]
fn the_frame_pipeline_runs_through_the_facade() {
    let path = std::env::var("CUSTACK_FRAME_CUBIN")
        .expect("CUSTACK_FRAME_CUBIN: the path of examples/kernels/frame.cu built by nvcc -cubin");
    let cubin = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let profile = custack::Profile::init(1).unwrap();
    let frames = pipeline::run(profile, &cubin, |_, frame| {
        for _ in 0..20 {
            frame()?;
        }
        Ok(20)
    })
    .unwrap();
    assert_eq!(frames, 20);
}
