//! The program `dnn_handles` (the libraries' handles under the checking driver): cuDNN through
//! custack's safe API, on cuDNN's stand-in (`checkdriver/standins/cudnn`, a `libcudnn.so.9` whose
//! handle and descriptors the double tracks). A convolution plan (`PushedGuard::conv_plan`): its
//! descriptors (`cudnnCreateTensorDescriptor`, ..., their sets), the output's shape
//! (`cudnnGetConvolution2dForwardOutputDim`, which the stand-in computes and custack checks
//! against its own), a handle (`cudnnCreate`), the algorithm
//! (`cudnnGetConvolutionForwardAlgorithm_v7`) and its workspace
//! (`cudnnGetConvolutionForwardWorkspaceSize`, 64 bytes, allocated by the plan); a run in a scope,
//! then one in a scope on another stream. Each run gives the handle its stream (`cudnnSetStream`)
//! and is refused as every computation of the stand-in is (`CUDNN_STATUS_NOT_SUPPORTED`: a typed
//! error, which the program expects); then the plan is dropped (the handle, `cudnnDestroy`, after
//! its stream's work, its workspace and its descriptors). The double checks that the handle is
//! made once in its context, given only live streams of that context, never used after its
//! destruction, destroyed once and not while its stream may still run work, and that every
//! descriptor is set and queried only while live and destroyed once.
//!
//! Then a matmul plan (`PushedGuard::matmul_plan`, the graph API): its tensors, operation, graph,
//! heuristics, engine configurations and execution plan are made (`cudnnBackendCreateDescriptor`),
//! set, finalized and read (the stand-in lists one engine, with 64 bytes of workspace), then the
//! plan is dropped: the double checks that each descriptor, and its handle, is destroyed once (no
//! leak at exit); under the schedules, that a plan failing at any call midway destroys what it
//! made. The matmul's routes (parked, moved, relaunched, threads, destroyed) are `dnn_matmul`.

use custack::dnn::{Conv2d, Matmul};
use custack::{Context, ContextFlags, Driver, ErrorKind, Result, Stack};

/// A run's answer: the stand-in's refusal is expected; any other error (a failed call of a
/// schedule) is the program's, returned.
fn refused(r: Result<()>) -> Result<()> {
    match r {
        Err(e) if e.kind() == ErrorKind::CudnnNotSupported => Ok(()),
        Err(e) => Err(e),
        Ok(()) => panic!("the stand-in computed a convolution"),
    }
}

/// A convolution plan run on two streams, then dropped (see the file's opening).
pub(crate) fn dnn_handles() -> Result<()> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    // Two 3-channel 5 × 7 images, four 3 × 3 filters, padded by 1 and 2, strides 2 and 3:
    // (5 + 2 − 3) / 2 + 1 = 3 and (7 + 4 − 3) / 3 + 1 = 3.
    let conv = Conv2d::new([2, 3, 5, 7], [4, 3, 3])
        .padding(1, 2)
        .stride(2, 3);
    let plan = guard.conv_plan(&conv)?;
    assert_eq!(plan.output_dims(), [2, 4, 3, 3]);
    // The stand-in's workspace query answers 64 bytes, which the plan allocates.
    assert_eq!(plan.workspace_bytes(), 64);
    let x = guard.alloc_zeroed::<f32>(plan.input_len())?;
    let w = guard.alloc_zeroed::<f32>(plan.filter_len())?;
    let bias = guard.alloc_zeroed::<f32>(plan.bias_len())?;
    let mut y = guard.alloc_zeroed::<f32>(plan.output_len())?;
    let (one, two) = (guard.stream()?, guard.stream()?);
    one.scope(|s| {
        refused(plan.run(s, s.bind(&x), s.bind(&w), s.bind(&bias), s.bind_mut(&mut y)))
    })??;
    // The same plan on another stream: the handle is given it (after the first's work).
    two.scope(|t| {
        refused(plan.run(t, t.bind(&x), t.bind(&w), t.bind(&bias), t.bind_mut(&mut y)))
    })??;
    // Dropped, not destroyed: the drop's sequence (wait, destroy, free), its errors recorded.
    drop(plan);
    // A matmul plan made and dropped (see the file's opening) leaks nothing.
    let matmul = guard.matmul_plan(&Matmul::new(2, 3, 5, 4))?;
    assert_eq!(matmul.workspace_bytes(), 64);
    drop(matmul);
    Ok(())
}
