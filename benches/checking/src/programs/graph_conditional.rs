//! The program `graph_conditional` (C28): conditional nodes of a built graph, refused at 12.5
//! (`DriverTooOld`), at 13.0 a WHILE node with a nested IF, an IF/ELSE and a SWITCH node launched
//! twice; a body's kernel node past its buffer's extent refused.

use crate::common::{KERNELS, N, N32, unexpected};
use crate::double::report_driver_version;
use crate::kernels::{AddU32, CONDITIONAL_PTX, SetCondition};
use custack::{Context, LaunchConfig, Result, Stack};

/// Conditional nodes of a built graph (C28): reporting 12.5, an IF/ELSE node is refused
/// (`DriverTooOld`, the graph destroyed, its payload dropped); reporting 13.0, a graph with a
/// WHILE node (its body: kernel nodes, one setting the loop's condition, and a nested IF),
/// an IF/ELSE and a SWITCH node, instantiated and launched twice; then a body's kernel node
/// past its buffer's extent, refused, the whole graph destroyed.
pub(crate) fn graph_conditional(ctx: &Context) -> Result<()> {
    use custack::ErrorKind;
    // 12.5: WHILE and IF nodes (12.3), but no IF/ELSE (12.8): the build is refused after its
    // WHILE node, the graph destroyed.
    report_driver_version(12050)?;
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let old = guard.build_graph(guard.alloc::<u32>(N)?, |b, mut x| {
        let set = b.fill_u32(&mut x, 1, &[])?;
        let cond = b.condition(1, true)?;
        let looped = b.while_loop(cond, &[set], |_| Ok(()))?;
        let branch = b.condition(1, true)?;
        b.if_else(branch, &[looped], |_, _| Ok(()))?;
        Ok(())
    });
    match old {
        Err(e) if e.kind() == ErrorKind::DriverTooOld => {}
        Err(e) => return Err(e),
        Ok(_) => return Err(unexpected("an IF/ELSE node made on driver 12.5")),
    }
    report_driver_version(13000)?;
    let module = guard.load_ptx(CONDITIONAL_PTX)?;
    let kernels = guard.load_ptx(KERNELS)?;
    let payload = (
        guard.alloc::<u32>(N)?,
        guard.alloc::<u32>(1)?,
        module.declared::<SetCondition>()?,
        kernels.declared::<AddU32>()?,
        vec![0u32; N],
    );
    let graph = guard.build_graph(payload, |b, (mut x, mut flag, set, add, out)| {
        let cfg = LaunchConfig::for_elements(N32);
        let one = LaunchConfig::for_elements(1);
        let flagged = b.fill_u32(&mut flag, 2, &[])?;
        let again = b.condition(1, true)?;
        let again_handle = again.handle();
        let looped = b.while_loop(again, &[flagged], |body| {
            let added = body.kernel(&add, cfg, (&mut x, 1u32, N32), &[])?;
            let set_again = body.kernel(&set, one, (again_handle, &flag), &[added])?;
            let inner = body.condition(0, true)?;
            let set_inner = body.kernel(&set, one, (inner.handle(), &flag), &[set_again])?;
            body.if_then(inner, &[set_inner], |then| {
                then.fill_u32(&mut x, 5, &[])?;
                Ok(())
            })?;
            Ok(())
        })?;
        let branch = b.condition(0, false)?;
        let set_branch = b.kernel(&set, one, (branch.handle(), &flag), &[looped])?;
        let branched = b.if_else(branch, &[set_branch], |then, otherwise| {
            then.fill_u32(&mut x, 7, &[])?;
            otherwise.kernel(&add, cfg, (&mut x, 2u32, N32), &[])?;
            Ok(())
        })?;
        let which = b.condition(1, true)?;
        let switched = b.switch(which, &[branched], 3, |n, case| {
            case.fill_u32(&mut x, n, &[])?;
            Ok(())
        })?;
        b.copy_to_host(out, &x, &[switched])?;
        Ok(())
    })?;
    let mut exec = graph.instantiate()?;
    let stream = guard.stream()?;
    for _ in 0..2 {
        exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    }
    drop(exec);
    let short = (guard.alloc::<u32>(8)?, kernels.declared::<AddU32>()?);
    let refused = guard.build_graph(short, |b, (mut x, add)| {
        let cond = b.condition(1, true)?;
        b.while_loop(cond, &[], |body| {
            body.kernel(
                &add,
                LaunchConfig::for_elements(N32),
                (&mut x, 1u32, N32),
                &[],
            )?;
            Ok(())
        })?;
        Ok(())
    });
    match refused {
        Err(e) if e.kind() == ErrorKind::BufferTooShort => Ok(()),
        Err(e) => Err(e),
        Ok(_) => Err(unexpected(
            "a body's kernel node past its buffer's extent was made",
        )),
    }
}
