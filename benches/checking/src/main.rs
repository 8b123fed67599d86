//! Programs run under the checking driver by `scripts/check-driver.sh`: the contract's
//! P-patterns and the GPU tests' scenarios that need no kernel results (under the double a
//! launch does nothing and a copy moves nothing; the values computed are ignored).
//!
//! `custack-checking PROGRAM` runs one program and exits 0 when it returned `Ok`, 1 when it
//! returned an error (the expected outcome when the driver fails a call), 2 for an unknown name.
//! A panic exits 101 and the harness counts it as a failure. The scenario bodies are copies of
//! `tests/patterns.rs` (which runs them on a GPU and checks the values).
//!
//! Each program is a file of its own under `programs/` (named as the program, opening with what
//! it exercises and the contract rows it backs; every program backs R10, each driver call failed
//! in turn); `run` below is the one list of them. What several programs share is `common.rs`
//! (the fixtures' kernels, a context, the checks), `kernels.rs` (the kernels they declare and the
//! stand-in cubins' declarations) and `double.rs` (what they ask of the checking driver itself:
//! its counters and extensions); `replicas_compare.rs` is the compare kernel's CPU stand-in.
//! `observe.rs` and `differential.rs` are the differential run's dispatches
//! (`scripts/differential.sh`, `docs/validation.md`).

use common::context0;
use custack::{Context, Result};
use double::report_driver_version;
use programs::{
    batch_3d, batch_copies, confinement, context_count, contracts, deadlines, device_info,
    driver_init, events, example, external, external_leaked, fork, fork_in_scope, graph,
    graph_arena, graph_built, graph_capture_forked, graph_capture_forks, graph_capture_into,
    graph_conditional, graph_exec_nodes, graph_host, graph_kept_attack, graph_kept_free,
    graph_kept_routes, graph_mem, graph_shared, green, green_leaked, in_flight, ipc, library,
    managed, memory_kinds, module_globals, named_launches, newer, p1, p2, p3, p4, p8, p9, p11,
    parked_graph, peer, peer_vmm, poisoned_calls, profile_first, redundant_flips, redundant_inject,
    redundant_partitions, restricted_api, restricted_end, restricted_init_retry,
    restricted_redundant, restricted_scope, reuse_after_scope, safety_frame, safety_graph,
    safety_graph_nodes, scoped_alloc, scoped_host, sealed_teardown, stand_ins, stress, submission,
    tensor_map, textures, unwind, vmm, vmm_share,
};
use std::process::ExitCode;

mod common;
mod differential;
mod double;
mod kernels;
mod observe;
mod programs;
mod replicas_compare;

#[path = "../../../examples/22_safety_frame/pipeline.rs"]
#[allow(dead_code, reason = "example 22's module: the programs use part of it")]
mod pipeline;

/// The checking driver's cubin builder (`checkdriver/src/cubin.rs`), compiled into this program
/// rather than linked: the double as a library would bring its own entry points into the
/// program, which must reach the checking driver through libcuda.
#[path = "../../../checkdriver/src/cubin.rs"]
#[allow(
    dead_code,
    unreachable_pub,
    reason = "the double's module, whose public items are the double's API: this program uses \
              part of it"
)]
mod cubin;

#[allow(
    clippy::too_many_lines,
    reason = "the one list of the programs, one arm each, read top to bottom"
)]
fn run(program: &str) -> Option<Result<()>> {
    let two = || -> Result<(Context, Context)> { Ok((context0()?, context0()?)) };
    Some(match program {
        "example" => example::example(),
        "stand_ins" => stand_ins::stand_ins(),
        #[cfg(feature = "cusolver")]
        "solver_handles" => programs::solver_handles::solver_handles(),
        #[cfg(feature = "cusparse")]
        "sparse_handles" => programs::sparse_handles::sparse_handles(),
        #[cfg(feature = "cublas")]
        "blas_handles" => programs::blas_handles::blas_handles(),
        #[cfg(feature = "cublaslt")]
        "blaslt_handles" => programs::blaslt_handles::blaslt_handles(),
        #[cfg(feature = "nccl")]
        "nccl_parked" => programs::nccl_parked::nccl_parked(),
        #[cfg(feature = "cudnn")]
        "dnn_handles" => programs::dnn_handles::dnn_handles(),
        #[cfg(feature = "cudnn")]
        "dnn_matmul" => programs::dnn_matmul::dnn_matmul(),
        "p1" => context0().and_then(|c| p1::p1_one_guard_many_handles(&c).map(drop)),
        "p2" => two().and_then(|(a, b)| p2::p2_push_pop_push(&a, &b).map(drop)),
        "p3" => two().and_then(|(a, b)| p3::p3_nested_push(&a, &b).map(drop)),
        "p4" => context0().and_then(|c| p4::p4_shared_context(&c, 3).map(drop)),
        "p9" => two().and_then(|(a, b)| p9::p9_two_contexts_in_flight(&a, &b).map(drop)),
        "in_flight" => two().and_then(|(a, b)| in_flight::in_flight(&a, &b)),
        "parked_graph" => two().and_then(|(a, b)| parked_graph::parked_graph(&a, &b).map(drop)),
        "p11" => two().and_then(|(a, b)| p11::p11_staging_through_pinned(&a, &b).map(drop)),
        "p8" => two().and_then(|(a, b)| p8::p8_alternating_contexts(&a, &b, 2).map(drop)),
        "scoped_alloc" => {
            context0().and_then(|c| scoped_alloc::c10_stream_ordered_alloc_in_scope(&c).map(drop))
        }
        "unwind" => context0().and_then(|c| unwind::unwind(&c)),
        "events" => context0().and_then(|c| events::events(&c).map(drop)),
        "submission" => context0().and_then(|c| submission::submission(&c).map(drop)),
        "graph" => context0().and_then(|c| graph::graph(&c).map(drop)),
        "graph_built" => context0().and_then(|c| graph_built::graph_built(&c).map(drop)),
        "graph_conditional" => context0().and_then(|c| graph_conditional::graph_conditional(&c)),
        "graph_capture_into" => context0().and_then(|c| graph_capture_into::graph_capture_into(&c)),
        "graph_shared" => context0().and_then(|c| graph_shared::graph_shared(&c).map(drop)),
        "graph_arena" => context0().and_then(|c| graph_arena::graph_arena(&c)),
        "graph_host" => context0().and_then(|c| graph_host::graph_host(&c)),
        "graph_exec_nodes" => context0().and_then(|c| graph_exec_nodes::graph_exec_nodes(&c)),
        "graph_capture_forked" => {
            context0().and_then(|c| graph_capture_forked::graph_capture_forked(&c))
        }
        "graph_capture_forks" => {
            context0().and_then(|c| graph_capture_forks::graph_capture_forks(&c))
        }
        "graph_mem" => context0().and_then(|c| graph_mem::graph_mem(&c)),
        "graph_update_attack" => {
            context0().and_then(|c| programs::graph_update_attack::graph_update_attack(&c))
        }
        "batch_copies" => report_driver_version(12080)
            .and_then(|()| context0())
            .and_then(|c| batch_copies::batch_copies(&c)),
        "batch_copies_old" => report_driver_version(12070)
            .and_then(|()| context0())
            .and_then(|c| batch_copies::batch_copies_old(&c)),
        "batch_3d" => batch_3d::run("batch_3d"),
        "batch_3d_old" => batch_3d::run("batch_3d_old"),
        "managed_batches" => batch_3d::run("managed_batches"),
        "graph_kept_routes" => context0().and_then(|c| graph_kept_routes::graph_kept_routes(&c)),
        "graph_kept_free" => context0().and_then(|c| graph_kept_free::graph_kept_free(&c)),
        "graph_kept_attack" => context0().and_then(|c| graph_kept_attack::graph_kept_attack(&c)),
        "device_info" => device_info::device_info(),
        "module_globals" => context0().and_then(|c| {
            module_globals::module_globals(&c)?;
            module_globals::borrowed_function(&c).map(drop)
        }),
        "memory_kinds" => context0().and_then(|c| memory_kinds::memory_kinds(&c).map(drop)),
        "peer" => two().and_then(|(a, b)| peer::peer(&a, &b).map(drop)),
        "ipc" => context0().and_then(|c| ipc::ipc(&c).map(drop)),
        "external" => context0().and_then(|c| external::external(&c).map(drop)),
        "fork_in_scope" => {
            report_driver_version(13000).and_then(|()| fork_in_scope::fork_in_scope())
        }
        "external_leaked" => context0().and_then(|c| external_leaked::external_leaked(&c)),
        "stress" => context0().and_then(|c| stress::stress(&c)),
        "vmm" => context0().and_then(|c| vmm::vmm(&c).map(drop)),
        "vmm_share" => context0().and_then(|c| vmm_share::vmm_share(&c).map(drop)),
        "managed" => context0().and_then(|c| managed::managed(&c).map(drop)),
        "library" => two().and_then(|(a, b)| library::library(&a, &b)),
        "contracts" => context0().and_then(|c| contracts::contracts(&c).map(drop)),
        "scoped_host" => context0().and_then(|c| scoped_host::scoped_host(&c).map(drop)),
        "textures" => context0().and_then(|c| textures::textures(&c).map(drop)),
        "tensor_map" => context0().and_then(|c| tensor_map::tensor_map(&c)),
        "peer_vmm" => context0().and_then(|c| peer_vmm::peer_vmm(&c).map(drop)),
        "newer" => report_driver_version(13000)
            .and_then(|()| context0())
            .and_then(|c| newer::newer(&c)),
        "green" => report_driver_version(13020)
            .and_then(|()| green::green())
            .and_then(|()| context0())
            .and_then(|c| green::counted_params(&c)),
        "poisoned_calls" => report_driver_version(13000)
            .and_then(|()| context0())
            .and_then(|c| poisoned_calls::poisoned_calls(&c)),
        "green_leaked" => report_driver_version(13020).and_then(|()| green_leaked::green_leaked()),
        "deadlines" => report_driver_version(13000)
            .and_then(|()| context0())
            .and_then(|c| deadlines::deadlines(&c)),
        "safety_frame" => safety_frame::safety_frame(),
        "restricted_scope" => {
            report_driver_version(13000).and_then(|()| restricted_scope::restricted_scope())
        }
        "driver_init" => report_driver_version(13000).and_then(|()| driver_init::driver_init()),
        "redundant_partitions" => {
            report_driver_version(13020).and_then(|()| redundant_partitions::redundant_partitions())
        }
        "redundant_inject" => redundant_inject::redundant_inject(),
        "redundant_flips" => {
            report_driver_version(13020).and_then(|()| redundant_flips::redundant_flips())
        }
        "safety_graph" => safety_graph::safety_graph(),
        "safety_graph_nodes" => safety_graph_nodes::safety_graph_nodes(),
        "fork" => fork::fork(),
        "confinement" => confinement::confinement(),
        "profile_first" => profile_first::profile_first(),
        "context_count" => context_count::context_count(),
        "restricted_end" => restricted_end::restricted_end(),
        "sealed_teardown" => sealed_teardown::sealed_teardown(),
        "restricted_init_retry" => restricted_init_retry::restricted_init_retry(),
        "named_launches" => named_launches::named_launches(),
        "restricted_redundant" => {
            report_driver_version(13000).and_then(|()| restricted_redundant::restricted_redundant())
        }
        "restricted_api" => {
            report_driver_version(13000).and_then(|()| restricted_api::restricted_api())
        }
        "reuse_after_scope" => context0()
            .and_then(|c| reuse_after_scope::c10_c11_memory_reused_after_scope(&c).map(drop)),
        _ => return None,
    })
}

fn main() -> ExitCode {
    let program = std::env::args().nth(1).unwrap_or_default();
    // Under Miri the double is linked in and the environment is isolated: checking is turned on
    // from here, and a schedule comes as a second argument, `fail-at=K`, `sticky-at=K` or
    // `hang-at=K`.
    #[cfg(miri)]
    {
        let schedule = std::env::args().nth(2).unwrap_or_default();
        let at = |prefix: &str| {
            schedule
                .strip_prefix(prefix)
                .and_then(|k| k.parse().ok())
                .unwrap_or(0)
        };
        match at("hang-at=") {
            0 => checkdriver::start_checking(at("fail-at="), at("sticky-at=")),
            k => checkdriver::start_hanging(k),
        }
    }
    // The differential run's dispatch first (`observe.rs`: only with CUSTACK_OBSERVE=1;
    // `differential.rs`: its own programs), then the programs of scripts/check-driver.sh.
    let outcome = observe::run(&program)
        .or_else(|| differential::run(&program))
        .or_else(|| ipc::as_child(&program))
        .or_else(|| run(&program));
    // This thread's, and those recorded inside driver callbacks or by threads that ended.
    let mut drop_errors = custack::take_drop_errors();
    drop_errors.extend(custack::take_orphaned_drop_errors());
    #[cfg(miri)]
    {
        // The report a loaded driver writes at exit; here any violation, leak or non-empty
        // stack fails the run.
        // (With a call failed, only violations count: scripts/check-driver.sh judges the rest.)
        let report = checkdriver::report();
        if std::env::args().nth(2).as_deref() == Some("count") {
            print!("{report}");
        }
        let clean = report.lines().any(|l| l == "failed -");
        let bad = report.lines().any(|l| {
            let mut w = l.split_whitespace();
            let key = w.next();
            (key == Some("violations")
                || clean && matches!(key, Some("leaks" | "stacks" | "orphans")))
                && w.next() != Some("0")
        });
        if bad {
            eprintln!("{program}: the checking driver reports:\n{report}");
            return ExitCode::from(3);
        }
    }
    match outcome {
        None => {
            eprintln!("custack-checking: unknown program {program:?}");
            ExitCode::from(2)
        }
        Some(Ok(())) => {
            println!("{program}: ok ({} drop errors)", drop_errors.len());
            ExitCode::SUCCESS
        }
        Some(Err(e)) => {
            println!(
                "{program}: error {:?}: {e} ({} drop errors)",
                e.kind(),
                drop_errors.len()
            );
            ExitCode::FAILURE
        }
    }
}
