//! The program `graph_capture_forks` (C28.15): captures forked over more than one other stream
//! (`Stream::capture_forks`): three streams each copying through its own part of one replay
//! arena, launched three times with their values checked; a fork that raw calls join to the capture
//! and never join back; a failing and a panicking branch; a stream forked twice, the origin
//! forked.

use crate::common::{N, Unwind};
use custack::{Context, Error, ErrorKind, Result, Stack, Stream, ffi};

/// Whether the driver says `stream` is capturing.
fn capturing(stream: &Stream<'_>) -> Result<bool> {
    let mut status = ffi::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_ACTIVE;
    // SAFETY: a live stream of the current context; a valid out-pointer.
    let r = unsafe { ffi::cuStreamIsCapturing(stream.as_raw(), &raw mut status) };
    if r != ffi::CUresult::CUDA_SUCCESS {
        return Err(Error::from_kind(ErrorKind::Unknown));
    }
    Ok(status != ffi::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE)
}

/// `Err` unless `r` is success (a call the double failed on purpose).
fn ok(r: ffi::CUresult) -> Result<()> {
    if r == ffi::CUresult::CUDA_SUCCESS {
        Ok(())
    } else {
        Err(Error::from_kind(ErrorKind::Unknown))
    }
}

/// Expects `got` to have failed with `want`; another error is the program's (a call the double
/// failed on purpose), and success is a defect.
fn expect_err<T>(got: Result<T>, want: ErrorKind, what: &str) -> Result<()> {
    match got {
        Err(e) if e.kind() == want => Ok(()),
        Err(e) => Err(e),
        Ok(_) => panic!("{what}"),
    }
}

/// A stream, an event and memory that custack does not know of, made by raw calls.
struct Stray {
    stream: ffi::CUstream,
    event: ffi::CUevent,
    mem: ffi::CUdeviceptr,
}

impl Stray {
    /// Makes the three, or none.
    fn new() -> Result<Self> {
        let mut stray = Stray {
            stream: core::ptr::null_mut(),
            event: core::ptr::null_mut(),
            mem: 0,
        };
        // SAFETY: valid out-pointers; the current context is the caller's guard's.
        let mut made = ok(unsafe { ffi::cuStreamCreate(&raw mut stray.stream, 1) });
        if made.is_ok() {
            // SAFETY: as above.
            made = ok(unsafe { ffi::cuEventCreate(&raw mut stray.event, 2) });
        }
        if made.is_ok() {
            // SAFETY: as above.
            made = ok(unsafe { ffi::cuMemAlloc_v2(&raw mut stray.mem, N * 4) });
        }
        match made {
            Ok(()) => Ok(stray),
            Err(e) => {
                let _ = stray.close();
                Err(e)
            }
        }
    }

    /// Destroys what was made: the first refusal, after trying every destroy.
    fn close(self) -> Result<()> {
        let mut closed = Ok(());
        let mut keep = |r: Result<()>| {
            if closed.is_ok() {
                closed = r;
            }
        };
        if !self.stream.is_null() {
            // SAFETY: a stream made by `new`, in no capture now; the context is current.
            keep(ok(unsafe { ffi::cuStreamSynchronize(self.stream) }));
            // SAFETY: as above, destroyed once.
            keep(ok(unsafe { ffi::cuStreamDestroy_v2(self.stream) }));
        }
        if !self.event.is_null() {
            // SAFETY: an event made by `new`, destroyed once.
            keep(ok(unsafe { ffi::cuEventDestroy_v2(self.event) }));
        }
        if self.mem != 0 {
            // SAFETY: memory made by `new`, no longer used by pending work (synchronized).
            keep(ok(unsafe { ffi::cuMemFree_v2(self.mem) }));
        }
        closed
    }
}

/// The program: see the file's documentation.
#[allow(
    clippy::too_many_lines,
    reason = "a checking scenario, its steps read top to bottom"
)]
pub(crate) fn graph_capture_forks(ctx: &Context) -> Result<()> {
    let quiet = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !info.payload().is::<Unwind>() {
            quiet(info);
        }
    }));
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let (stream, a, b) = (guard.stream()?, guard.stream()?, guard.stream()?);
    let arena = guard.replay_arena(4 * N * 4)?;
    let branch = || -> Result<_> { Ok((vec![0u32; N], arena.buffer::<u32>(N)?, vec![0u32; N])) };
    let (p, qa, qb) = (branch()?, branch()?, branch()?);
    // Each stream copies its input into its own part of the arena and back out (the double
    // runs no kernel, so the values are the copies'); a kernel over the part in between on
    // the GPU is `tests/gpu_graph_capture_forks.rs`'s.
    let graph = stream.capture_forks(
        ((&a, qa), (&b, qb)),
        p,
        |s, (input, mut dev, out), (ba, bb)| {
            s.copy_to_device(&mut dev, input)?;
            s.copy_to_host(out, &dev)?;
            ba.run(|t, (input, mut dev, out)| {
                t.copy_to_device(&mut dev, input)?;
                t.copy_to_host(out, &dev)
            })?;
            bb.run(|t, (input, mut dev, out)| {
                t.copy_to_device(&mut dev, input)?;
                t.copy_to_host(out, &dev)
            })
        },
    )?;
    assert_eq!(graph.node_count()?, 6, "two nodes a branch");
    let mut exec = graph.instantiate()?;
    for round in 0..3u32 {
        {
            let ((input, _, _), ((input_a, _, _), (input_b, _, _))) = exec.payload_mut();
            input.fill(round * 1000);
            input_a.fill(round * 1000 + 1);
            input_b.fill(round * 1000 + 2);
        }
        exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
        let ((_, _, out), ((_, _, out_a), (_, _, out_b))) = exec.payload();
        assert!(out.iter().all(|&v| v == round * 1000), "round {round}");
        assert!(
            out_a.iter().all(|&v| v == round * 1000 + 1),
            "round {round}"
        );
        assert!(
            out_b.iter().all(|&v| v == round * 1000 + 2),
            "round {round}"
        );
    }
    drop(exec);

    // A stray stream the closure's raw calls join to the capture and never join back.
    let fork_buf = guard.alloc::<u32>(N)?;
    let stray = Stray::new()?;
    let (extra, event, mem) = (stray.stream, stray.event, stray.mem);
    let unjoined = stream.capture_forks((&a, fork_buf), (), move |s, (), br| {
        br.run(|t, mut d| t.fill_u32(&mut d, 1))?;
        // SAFETY: live handles of the current context; the stray stream joins the capture by
        // waiting for an event recorded on the capturing stream.
        ok(unsafe { ffi::cuEventRecord(event, s.as_raw()) })?;
        // SAFETY: as above.
        ok(unsafe { ffi::cuStreamWaitEvent(extra, event, 0) })?;
        // SAFETY: as above; `mem` holds N words.
        ok(unsafe { ffi::cuMemsetD32Async(mem, 7, N, extra) })
    });
    let unjoined = expect_err(
        unjoined,
        ErrorKind::StreamCaptureUnjoined,
        "a capture with a fork not joined back made a graph",
    );
    let closed = stray.close();
    unjoined?;
    closed?;
    assert!(!capturing(&stream)? && !capturing(&a)?, "left the capture");

    // A branch that fails, and one that panics: the capture ends, every stream leaves it.
    let failed = stream.capture_forks(
        ((&a, guard.alloc::<u32>(N)?), (&b, guard.alloc::<u32>(N)?)),
        (),
        |_, (), (ba, bb)| {
            ba.run(|t, mut d| t.fill_u32(&mut d, 2))?;
            bb.run(|t, mut d| {
                t.fill_u32(&mut d, 3)?;
                Err(Error::from_kind(ErrorKind::Unknown))
            })
        },
    );
    expect_err(
        failed,
        ErrorKind::Unknown,
        "a failed branch's capture made a graph",
    )?;
    let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        stream.capture_forks(
            ((&a, guard.alloc::<u32>(N)?), (&b, ())),
            (),
            |_, (), (ba, _bb)| {
                ba.run(|t, mut d| {
                    t.fill_u32(&mut d, 3)?;
                    std::panic::panic_any(Unwind)
                })
            },
        )
    }));
    if let Ok(r) = panicked {
        r?;
        panic!("a panicking branch's capture made a graph");
    }
    // A capture whose end the double refused during the unwind leaves its stream capturing;
    // the refusal is recorded, and is this run's error.
    if let Some(e) = custack::take_drop_errors().into_iter().next() {
        return Err(e);
    }
    for st in [&stream, &a, &b] {
        assert!(!capturing(st)?, "a stream left in a capture");
    }
    let mut dev = guard.alloc::<u32>(N)?;
    for st in [&stream, &a, &b] {
        st.scope(|s| s.fill_u32(s.bind_mut(&mut dev), 4))??;
    }

    // A stream forked twice, the origin forked: refused before any capture begins.
    let twice = stream.capture_forks(((&a, ()), (&a, ())), (), |_, (), _| Ok(()));
    expect_err(twice, ErrorKind::InvalidValue, "a stream forked twice")?;
    let origin = stream.capture_forks(((&a, ()), (&stream, ())), (), |_, (), _| Ok(()));
    expect_err(origin, ErrorKind::InvalidValue, "the origin forked")?;
    match custack::take_drop_errors().into_iter().next() {
        None => Ok(()),
        Some(e) => Err(e),
    }
}
