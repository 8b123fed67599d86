//! The program `graph_capture_into` (C28): work captured into a graph being built
//! (`GraphBuilder::capture`: the root graph, a WHILE node's body) and conditional nodes added
//! in the middle of a capture (`StreamScope::condition`, `if_then`, `while_loop`).

use crate::common::{KERNELS, N, N32, unexpected};
use crate::double::report_driver_version;
use crate::kernels::{AddU32, CountDown, SetCondition};
use custack::{Context, ErrorKind, LaunchConfig, Result, Stack};

/// Reporting 12.2, both are refused (`DriverTooOld`: the build's graph destroyed, the
/// capture ended and discarded, their payloads dropped); reporting 13.0, a built graph whose
/// root and WHILE body take captured work, and a capture with an IF node and a WHILE node
/// (whose body is captured too) in its middle, each instantiated and launched twice (the
/// WHILE bodies count down, so that the loops end on a GPU: the kernels are
/// tests/fixtures/conditional.cu's, `differential::conditional_cubin`); a
/// stream-ordered allocation in a capture into a graph or in a captured conditional node's body
/// refused, a build whose capture used a
/// graph allocation refused, and a condition asked of a submission's scope, which does not
/// capture.
#[allow(
    clippy::too_many_lines,
    reason = "a checking scenario, its steps read top to bottom"
)]
pub(crate) fn graph_capture_into(ctx: &Context) -> Result<()> {
    report_driver_version(12020)?;
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let stream = guard.stream()?;
    let old = guard.build_graph(guard.alloc::<u32>(N)?, |b, mut x| {
        b.capture(&[], |s| s.fill_u32(&mut x, 1))?;
        Ok(())
    });
    too_old(old.map(drop), "a capture into a graph on driver 12.2")?;
    let old = stream.capture(guard.alloc::<u32>(N)?, |s, mut x| {
        s.fill_u32(&mut x, 1)?;
        let cond = s.condition(1, true)?;
        s.while_loop(cond, |_| Ok(()))
    });
    too_old(
        old.map(drop),
        "a condition made in a capture on driver 12.2",
    )?;

    report_driver_version(13000)?;
    let image = crate::differential::conditional_cubin();
    // SAFETY: a complete cubin (`differential::conditional_cubin`'s: on a GPU
    // tests/fixtures/conditional.cu built for it, whose kernels honour their contracts below;
    // on the double a stand-in whose kernels never run).
    let module = unsafe { guard.load_cubin(&image) }?;
    let kernels = guard.load_ptx(KERNELS)?;
    let payload = || -> Result<_> {
        Ok((
            guard.alloc::<u32>(N)?,
            guard.alloc::<u32>(1)?,
            guard.alloc::<u32>(1)?,
            (
                module.declared::<SetCondition>()?,
                module.declared::<CountDown>()?,
            ),
            kernels.declared::<AddU32>()?,
            vec![0u32; N],
        ))
    };
    let cfg = LaunchConfig::for_elements(N32);
    let one = LaunchConfig::for_elements(1);
    // The WHILE body counts `left` down from 3 (`count_down` sets the condition to whether it
    // is still above 0): it runs three times on a GPU, and the loop ends.
    let built = guard.build_graph(
        payload()?,
        move |b, (mut x, _flag, mut left, (_set, count), add, out)| {
            let started = b.capture(&[], |s| {
                s.fill_u32(&mut x, 0)?;
                s.fill_u32(&mut left, 3)
            })?;
            let again = b.condition(1, true)?;
            let handle = again.handle();
            let looped = b.while_loop(again, &[started], |body| {
                body.capture(&[], |s| {
                    s.run(&add, cfg, (&mut x, 1u32, N32))?;
                    s.run(&count, one, (handle, &mut left))
                })?;
                Ok(())
            })?;
            b.copy_to_host(out, &x, &[looped])?;
            Ok(())
        },
    )?;
    let mut exec = built.instantiate()?;
    for _ in 0..2 {
        exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    }
    drop(exec);

    let captured = stream.capture(
        payload()?,
        move |s, (mut x, mut flag, mut left, (set, count), add, out)| {
            s.fill_u32(&mut x, 0)?;
            s.fill_u32(&mut flag, 1)?;
            s.fill_u32(&mut left, 2)?;
            let cond = s.condition(0, false)?;
            s.run(&set, one, (cond.handle(), &flag))?;
            s.if_then(cond, |then| {
                then.kernel(&add, cfg, (&mut x, 2u32, N32), &[])?;
                Ok(())
            })?;
            let again = s.condition(1, true)?;
            let handle = again.handle();
            s.while_loop(again, |body| {
                body.capture(&[], |c| {
                    c.run(&add, cfg, (&mut x, 1u32, N32))?;
                    c.run(&count, one, (handle, &mut left))
                })?;
                Ok(())
            })?;
            s.copy_to_host(out, &x)
        },
    )?;
    let mut exec = captured.instantiate()?;
    for _ in 0..2 {
        exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    }
    drop(exec);

    let allocating = guard.build_graph(guard.alloc::<u32>(N)?, |b, _x| {
        b.capture(&[], |s| s.alloc::<u32>(N).map(drop))?;
        Ok(())
    });
    match allocating {
        Err(e) if e.kind() == ErrorKind::NotSupported => {}
        Err(e) => return Err(e),
        Ok(_) => {
            return Err(unexpected(
                "an allocation in a capture into a graph was made",
            ));
        }
    }
    // A stream-ordered allocation while a conditional node's body is built: its allocation
    // node would follow the node whose body writes it (the capture's dependencies moved).
    let late = stream.capture((), move |s, ()| {
        let cond = s.condition(1, true)?;
        s.if_then(cond, |then| {
            let mut a = s.alloc::<u32>(N)?;
            then.fill_u32(&mut a, 1, &[])?;
            Ok(())
        })
    });
    match late.map(drop) {
        Err(e) if e.kind() == ErrorKind::NotSupported => {}
        Err(e) => return Err(e),
        Ok(()) => {
            return Err(unexpected(
                "an allocation made after the conditional node whose body uses it",
            ));
        }
    }
    // A graph allocation used by captured work: the driver made those nodes, so the builder
    // cannot order them against the free (here it would not follow the memset): refused.
    let unordered = guard.build_graph((), |b, ()| {
        let (made, mut x) = b.alloc::<u32>(N, &[])?;
        b.capture(&[made], |s| s.fill_u32(&mut x, 1))?;
        b.free(x, &[made])?;
        Ok(())
    });
    match unordered {
        Err(e)
            if e.kind() == ErrorKind::InvalidValue
                && e.detail()
                    .is_some_and(|d| d.contains("GraphBuilder::capture")) => {}
        Err(e) => return Err(e),
        Ok(_) => {
            return Err(unexpected(
                "a graph allocation used by captured work, freed before it",
            ));
        }
    }
    // A submission's scope has the `'static` environment of a capture's, but runs its work.
    let outside = stream.submit((), |s, ()| s.condition(1, true).map(drop));
    match outside.map(drop) {
        Err(e) if e.kind() == ErrorKind::NotSupported => Ok(()),
        Err(e) => Err(e),
        Ok(()) => Err(unexpected(
            "a condition made on a stream that does not capture",
        )),
    }
}

/// `Ok` if `result` is `DriverTooOld`; its error if another; an error naming `what` if `Ok`.
fn too_old(result: Result<()>, what: &str) -> Result<()> {
    match result {
        Err(e) if e.kind() == ErrorKind::DriverTooOld => Ok(()),
        Err(e) => Err(e),
        Ok(()) => Err(unexpected(what)),
    }
}
