//! The program `graph_kept_routes`: every route by which safe code ends a taken kept graph
//! allocation's borrow of its executable graph while the buffer lives (C28), walked under the
//! checking driver. The buffer is parked; moved into a submission that is parked; moved into
//! another graph's payload whose executable graph is parked; moved into a submission that is
//! leaked (`mem::forget`, sound by R11). In each, the program asks for `AUTO_FREE_ON_LAUNCH`
//! (refused before the driver: it gets an executable graph without), writes its own values into
//! the taken memory and launches the graph again: the double, as the driver, refuses that launch
//! while the memory is unfreed (`CUDA_ERROR_INVALID_VALUE`), and the memory still holds the
//! program's values. With the flag granted, the relaunch would free the memory and make it
//! again, which the double reports (memory the program used freed by a relaunch, then freed
//! twice). Then every other way to instantiate such a graph with the flag, or to make it an
//! executable graph's without the record of its allocations (shared, cloned, updated, a child
//! graph), refused by custack before the driver.

use crate::common::{N, unexpected};
use crate::double::checkdriver_extension;
use custack::graph::{Graph, GraphExec, InstantiateFlags};
use custack::{
    Context, DeviceMemory, DeviceMemoryMut, ErrorKind, PushedGuard, Result, Stack, Stream,
};

/// What each launch of `kept_graph` writes into its kept allocation.
const GRAPH_VALUE: u32 = 0x4752_4150;

/// The program's values, written into the taken memory: unlike the graph's anywhere.
fn pattern() -> Vec<u32> {
    (0..N as u32)
        .map(|i| i.wrapping_mul(2_654_435_761) | 1)
        .collect()
}

/// A graph that allocates memory it keeps (no free node) and fills it with `GRAPH_VALUE`.
fn kept_graph<'g>(guard: &'g PushedGuard<'_, '_>) -> Result<Graph<'g, ()>> {
    guard.build_graph((), |b, ()| {
        let (made, mut x) = b.alloc_kept::<u32>(N, &[])?;
        b.fill_u32(&mut x, GRAPH_VALUE, &[made])?;
        Ok(())
    })
}

/// Expects `r` refused by custack before the driver: an `InvalidValue` whose detail says the
/// graph keeps allocations (a driver error has no such detail).
fn refused_here<T>(r: Result<T>, what: &str) -> Result<()> {
    let ours = |e: &custack::Error| e.detail().is_some_and(|d| d.contains("keeps allocations"));
    match r {
        Err(e) if e.kind() == ErrorKind::InvalidValue && ours(&e) => Ok(()),
        Err(e) => Err(e),
        Ok(_) => Err(unexpected(what)),
    }
}

/// The executable graph of `kept_graph` a program gets when it asks for `AUTO_FREE_ON_LAUNCH`:
/// refused by custack, so instantiated without.
fn kept_exec_asking_for_auto_free<'g>(guard: &'g PushedGuard<'_, '_>) -> Result<GraphExec<'g, ()>> {
    let asked = kept_graph(guard)?.instantiate_with(InstantiateFlags::AUTO_FREE_ON_LAUNCH);
    refused_here(
        asked,
        "a graph that keeps allocations instantiated with AUTO_FREE_ON_LAUNCH",
    )?;
    kept_graph(guard)?.instantiate()
}

/// The double's count of driver calls so far (`custackCheckdriverCalls`).
fn driver_calls() -> Result<u64> {
    type Calls = unsafe extern "C" fn() -> u64;
    let pfn = checkdriver_extension(c"custackCheckdriverCalls")?;
    // SAFETY: the double's `custackCheckdriverCalls`, of exactly this signature.
    let calls: Calls = unsafe { core::mem::transmute::<*mut core::ffi::c_void, Calls>(pfn) };
    // SAFETY: takes nothing, reads an atomic counter.
    Ok(unsafe { calls() })
}

/// Launches `exec` on `stream` again, in a scope, expecting the driver's refusal: memory its
/// previous launch kept is unfreed, and it frees nothing on launch. The schedule that fails one
/// call of this relaunch (`NULLDRIVER_FAIL_AT`) can fail `cuGraphLaunch` with the very code the
/// refusal has (its typical one): that failure is the schedule's, and it reaches the program as
/// its error, as any other.
fn relaunch_refused(stream: &Stream<'_>, exec: &mut GraphExec<'_, ()>, route: &str) -> Result<()> {
    let before = driver_calls()?;
    let again = stream.scope(|s| s.launch_graph(&s.bind_graph(exec)))?;
    let after = driver_calls()?;
    let failed_here = std::env::var("NULLDRIVER_FAIL_AT")
        .ok()
        .and_then(|k| k.parse::<u64>().ok())
        .is_some_and(|k| before < k && k <= after);
    match again {
        Err(e) if failed_here => Err(e),
        // custack's own refusal (a launch before the take) would say `take_kept`: not expected,
        // the take cleared its mark.
        Err(e)
            if e.kind() == ErrorKind::InvalidValue
                && !e.detail().is_some_and(|d| d.contains("take_kept")) =>
        {
            // The refused launch made nothing: there is nothing to take.
            match exec.take_kept::<u32>(0) {
                Err(e) if e.kind() == ErrorKind::InvalidValue => Ok(()),
                Err(e) => Err(e),
                Ok(_) => Err(unexpected("a refused launch made its kept allocation")),
            }
        }
        Err(e) => Err(e),
        Ok(()) => Err(custack::Error::new(
            ErrorKind::InvalidValue,
            format!(
                "{route}: the graph was launched again while the memory it kept is the program's"
            ),
        )),
    }
}

/// Expects `got` to be the program's values.
fn holds_pattern(got: &[u32], route: &str) -> Result<()> {
    if got == pattern().as_slice() {
        Ok(())
    } else {
        Err(custack::Error::new(
            ErrorKind::InvalidValue,
            format!("{route}: memory the program owns changed by the relaunch"),
        ))
    }
}

/// Launches `exec` and waits for it.
fn launched<'g>(stream: &Stream<'_>, exec: GraphExec<'g, ()>) -> Result<GraphExec<'g, ()>> {
    stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()
}

/// Launches the graph, takes its allocation (checked to hold the graph's value) and writes
/// the program's values into it.
macro_rules! launch_take_and_write {
    ($stream:expr, $exec:ident) => {{
        $exec = launched(&$stream, $exec)?;
        let mut x = $exec.take_kept::<u32>(0)?;
        if x.to_vec()?.iter().any(|&v| v != GRAPH_VALUE) {
            return Err(unexpected("the graph's value in the memory it kept"));
        }
        x.copy_from_host(&pattern())?;
        x
    }};
}

/// The buffer parked: it borrows only the context.
fn parked(guard: &PushedGuard<'_, '_>) -> Result<()> {
    let stream = guard.stream()?;
    let mut exec = kept_exec_asking_for_auto_free(guard)?;
    let x = launch_take_and_write!(stream, exec);
    let parked = guard.park(x);
    relaunch_refused(&stream, &mut exec, "parked")?;
    let x = guard.attach(parked)?;
    holds_pattern(&x.to_vec()?, "parked")?;
    drop(x);
    // Freed by the program: the graph launches again and makes its memory anew.
    exec = launched(&stream, exec)?;
    if exec
        .take_kept::<u32>(0)?
        .to_vec()?
        .iter()
        .any(|&v| v != GRAPH_VALUE)
    {
        return Err(unexpected(
            "the graph's value after the program freed the memory",
        ));
    }
    Ok(())
}

/// The buffer moved into a submission on another stream that reads it, which parks.
fn in_parked_submission(guard: &PushedGuard<'_, '_>) -> Result<()> {
    let stream = guard.stream()?;
    let other = guard.stream()?;
    let mut exec = kept_exec_asking_for_auto_free(guard)?;
    let x = launch_take_and_write!(stream, exec);
    let pending = other.submit((x, vec![0u32; N]), |s, (d, h)| s.copy_to_host(h, &d))?;
    let parked = guard.park_submission(pending);
    let refused = relaunch_refused(&stream, &mut exec, "parked submission");
    // Waited for whatever the relaunch did: the parked submission hands its payload back.
    let (x, read) = parked.wait()?;
    refused?;
    holds_pattern(&read, "read by the parked submission")?;
    let x = guard.attach(x)?;
    holds_pattern(&x.to_vec()?, "parked submission")
}

/// The buffer moved into another graph's payload (a graph that copies it to the host), whose
/// executable graph parks.
fn in_parked_graph(guard: &PushedGuard<'_, '_>) -> Result<()> {
    let stream = guard.stream()?;
    let mut exec = kept_exec_asking_for_auto_free(guard)?;
    let x = launch_take_and_write!(stream, exec);
    let reader = guard
        .build_graph((x, vec![0u32; N]), |b, (d, out)| {
            b.copy_to_host(out, &d, &[])?;
            Ok(())
        })?
        .instantiate()?;
    let parked = guard.park_graph(reader);
    relaunch_refused(&stream, &mut exec, "parked graph")?;
    let reader = guard.attach_graph(parked)?;
    let reader = stream.submit(reader, |s, g| s.launch_graph(&g))?.wait()?;
    let (d, out) = reader.payload();
    holds_pattern(out, "copied out by the parked graph")?;
    holds_pattern(&d.to_vec()?, "parked graph's payload")
}

/// Names `handle` (of the double's `kind`) to the double as left behind on purpose
/// (`custackCheckdriverLeftBehind`): the event of a submission the program leaked, and the
/// memory it leaked with it where no wait showed the submission's copy complete.
fn left_behind(kind: &core::ffi::CStr, handle: u64) -> Result<()> {
    type LeftBehind =
        unsafe extern "C" fn(*const core::ffi::c_char, u64, u64) -> custack::ffi::CUresult;
    let pfn = checkdriver_extension(c"custackCheckdriverLeftBehind")?;
    // SAFETY: the double's `custackCheckdriverLeftBehind`, of exactly this signature.
    let left: LeftBehind =
        unsafe { core::mem::transmute::<*mut core::ffi::c_void, LeftBehind>(pfn) };
    // SAFETY: a NUL-terminated kind name and a live handle of that kind.
    match unsafe { left(kind.as_ptr(), handle, 0) } {
        custack::ffi::CUresult::CUDA_SUCCESS => Ok(()),
        _ => Err(unexpected(
            "the double took the leaked handle as left behind",
        )),
    }
}

/// The buffer moved into a submission on another stream that reads it, which is leaked: the
/// buffer is never freed, its borrow ends, and the copy may still read it while the relaunch
/// is attempted.
fn in_leaked_submission(guard: &PushedGuard<'_, '_>) -> Result<()> {
    let stream = guard.stream()?;
    let other = guard.stream()?;
    let mut exec = kept_exec_asking_for_auto_free(guard)?;
    let x = launch_take_and_write!(stream, exec);
    let (ptr, len) = (x.device_ptr(), x.len());
    let pending = other.submit((x, vec![0u32; N]), |s, (d, h)| s.copy_to_host(h, &d))?;
    let event = pending.event_raw();
    core::mem::forget(pending);
    left_behind(c"Event", event as u64)?;
    let refused = relaunch_refused(&stream, &mut exec, "leaked submission");
    // The leaked copy is complete after this; then the memory is adopted back (read, freed).
    // Where the synchronize failed, nothing shows the copy over, whether the error is sticky
    // or not (a device lost, an error the driver keeps answering): the memory stays leaked
    // (R11), named to the double, and is never adopted, so never freed under the copy.
    if let Err(e) = guard.synchronize() {
        left_behind(c"DeviceMemory", ptr)?;
        return Err(e);
    }
    // SAFETY: the graph allocation the leaked buffer owned, which nothing frees (leaked), of
    // this context, which `cuMemFree` frees (graph memory no free node frees); no work uses it:
    // the context is synchronized (above).
    let x = unsafe { guard.buffer_from_raw::<u32>(ptr, len) };
    refused?;
    holds_pattern(&x.to_vec()?, "leaked submission")
}

/// Every other way to instantiate a graph that keeps allocations with the flag, or to make it
/// an executable graph's without the record of its allocations: refused by custack.
fn instantiations(guard: &PushedGuard<'_, '_>) -> Result<()> {
    for flags in [
        InstantiateFlags::AUTO_FREE_ON_LAUNCH | InstantiateFlags::USE_NODE_PRIORITY,
        InstantiateFlags::DEVICE_LAUNCH,
    ] {
        refused_here(
            kept_graph(guard)?.instantiate_with(flags),
            "instantiate_with",
        )?;
    }
    let graph = kept_graph(guard)?;
    refused_here(
        graph.instantiate_shared(InstantiateFlags::AUTO_FREE_ON_LAUNCH),
        "instantiate_shared with AUTO_FREE_ON_LAUNCH",
    )?;
    refused_here(
        graph.instantiate_shared(InstantiateFlags::empty()),
        "instantiate_shared",
    )?;
    refused_here(graph.clone_graph(), "clone_graph")?;
    let plain = guard.build_graph((), |b, ()| {
        let (made, mut x) = b.alloc::<u32>(N, &[])?;
        let set = b.fill_u32(&mut x, 1, &[made])?;
        b.free(x, &[set])?;
        Ok(())
    })?;
    let mut plain = plain.instantiate()?;
    match plain.update(graph) {
        // Refused before the driver: the graph comes back, dropped here.
        Err(e)
            if e.error().kind() == ErrorKind::InvalidValue
                && e.error().detail().is_some()
                && e.graph().is_some() => {}
        Err(e) => return Err(e.into_error()),
        Ok(()) => return Err(unexpected("an update into a graph that keeps allocations")),
    }
    drop(plain);
    let mut kept = kept_graph(guard)?.instantiate()?;
    match kept.update(kept_graph(guard)?) {
        Err(e)
            if e.error().kind() == ErrorKind::InvalidValue
                && e.error().detail().is_some()
                && e.graph().is_some() => {}
        Err(e) => return Err(e.into_error()),
        Ok(()) => return Err(unexpected("an update of a graph that keeps allocations")),
    }
    drop(kept);
    let child = guard.build_graph(kept_graph(guard)?, |b, g| {
        b.child(&g, &[])?;
        Ok(())
    });
    refused_here(child, "a child graph that keeps allocations")
}

/// The routes, then the instantiations refused.
pub(crate) fn graph_kept_routes(ctx: &Context) -> Result<()> {
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    parked(&guard)?;
    in_parked_submission(&guard)?;
    in_parked_graph(&guard)?;
    in_leaked_submission(&guard)?;
    instantiations(&guard)
}
