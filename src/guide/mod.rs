//! A guided tour of custack: the model, chapter by chapter, with examples.
//!
//! This module holds no code; it is documentation only. Read it in order the first time:
//!
//! | chapter | what it covers |
//! | --- | --- |
//! | [`stack`] | The driver's per-thread context stack; [`Context`](crate::Context), [`Stack`](crate::Stack) and [`PushedGuard`](crate::PushedGuard); what a guard lends; what fails to compile, and why |
//! | [`scopes`] | Asynchronous work: stream scopes that *borrow* memory, submissions that *own* it, graphs captured once and launched many times; which to pick |
//! | [`parking`] | Handles that outlive a guard: parking and attaching; two contexts on one thread; one context on many threads; a library type with its own context; copies between contexts |
//! | [`in_flight`] | Several contexts from one thread: when to use a thread per context and when one thread; parked submissions in flight on every GPU; GPU-side ordering across contexts; what synchronizes |
//! | [`faults`] | Errors: the raw code and the kind, errors of earlier asynchronous work, sticky errors, errors that `Drop` records, and what happens when a kernel faults |
//! | [`testing`] | Testing GPU code without a GPU: the checking driver, every driver call failed once and made sticky once, CPU stand-ins for kernels |
//! | [`profile`] | The restricted safety profile: NVIDIA's safety subset as the whole API, the process confined to it, the facade crate, every resource stated up front, the init and run phases, bounded waits, the shutdown |
//! | [`platforms`] | Linux x86_64 and aarch64 (Jetson, Grace), Windows, QNX: how the driver is found on each, cross builds, what CI checks, and what differs on an integrated GPU |
//!
//! # The two-minute picture
//!
//! The CUDA driver API acts, on each OS thread, on the context at the top of that thread's
//! context stack. In C nothing ties a stream, a buffer or a module to the context it was made
//! in; using one while another context is current, after its context was popped, or on a
//! thread where its context is not current is a bug that the driver may or may not report.
//! custack turns the stack into borrows:
//!
//! ```text
//! Driver::init() ─> Device ─> Context::new / Context::primary     (owned, Send + Sync, floating)
//! Stack::new()                                                     (this thread's stack, !Send)
//! stack.push(&ctx) ─> PushedGuard                                  (pops on drop, !Send)
//!                       ├─ stream(), alloc(), load_ptx(), event()  (lent: borrow the guard)
//!                       ├─ with_pushed(&other, |inner| …)          (nesting: the outer guard is frozen)
//!                       ├─ park(buf) / attach(parked)              (carry memory across pushes)
//!                       └─ park_submission(sub) ─> ParkedSubmission (work in flight across pushes)
//! stream.scope(|s| …)            async work that borrows memory; one stream sync at the end
//! stream.submit(payload, |s, p| …) ─> Submission ─> wait() ─> payload   (owns its memory)
//! stream.capture(payload, |s, p| …) ─> Graph ─> GraphExec                (owns its memory)
//! ```
//!
//! Every misuse of that picture that the compiler can see is a compile error: the invariant
//! catalogue (`docs/invariants.md` in the repository) lists each one with the trybuild test in
//! `ui-tests/` that pins its exact error. The rest (a second stack on a thread, a parked buffer attached to the wrong context,
//! a kernel that faults) is a run-time [`Error`](crate::Error), never a panic.
//!
//! # Reading a compile error
//!
//! Where a misuse fails a trait bound, custack's traits carry the fix in the error's `note`s
//! (`#[diagnostic::on_unimplemented]`; `ui-tests/hint_*` pin them). Where it fails the borrow
//! checker or is a plain type mismatch, rustc prints only its own words: it lets no library add
//! a hint to `E0502`, `E0499`, `E0505`, `E0382` or `E0308`. What those mean here, most often:
//!
//! | error, where | what it means | what to write |
//! | --- | --- | --- |
//! | `E0502` at `with_pushed`, naming a buffer, stream or module of the outer guard | a handle of one context is used while another is pushed on top of it (C4) | park it before the push and attach it after ([`parking`]), or use it only outside the closure |
//! | `E0502`/`E0499` at `stream.scope` or inside it, naming memory | the memory is bound to a scope (or written by it) and used beside it (C10, C14) | use it after the scope ends, or through its binding inside |
//! | `E0505` at a `drop`, `free` or `pop` | something lent by the guard, or bound to pending work, still lives (C1, C5, C10) | end the borrow first: drop the handle, wait for the submission |
//! | `E0277` "`…` cannot be sent between threads safely" | a guard or something it lent crossed a thread (C6, C7) | send the `Context`, push it on the other thread ([`stack`]) |
//! | `E0308` "expected `GraphNode<'_, BodyGraph<'_>>`, found `GraphNode<'_>`" inside a conditional body | a node of the graph around the body named as a dependency in it (C28.2): a body's nodes follow only nodes of their body | make the conditional node depend on the outer node (its `&deps`); the body's first nodes then follow it |
//! | `E0382` "use of moved value" naming a `Condition`, a `GraphAlloc` or a `graph::Branch` | a handle a graph takes once was used again: a condition controls one node, a graph allocation is freed once, a fork's branch runs once (C28.2, C28.8, C28.15) | make another condition or allocation; put all of a fork's work in its one `run` |
//! | `E0277` "`launch_graph` takes the executable graph bound to the scope" | an executable graph launched by reference (C18); this one has a note | `stream.submit(exec, \|s, g\| s.launch_graph(&g))`, or `let g = s.bind_graph(&mut exec)` in a scope |
//! | a `kernel_contract!` message | the declaration holds what its checked arithmetic cannot evaluate, or a name that is not a scalar parameter (C23) | the message names the form to write |
//!
//! # Conventions in these docs
//!
//! - Every wrapper names its driver function first, e.g. "`cuMemAlloc`—Allocates …", carries
//!   that name as a search alias (type `cuMemAlloc` into the search box), and links NVIDIA's
//!   page for the function's group under *References*.
//! - Examples that need a GPU are marked `no_run`: `cargo test --doc` compiles them but does
//!   not run them. The `compile_fail` examples of this guide are compiled and must fail;
//!   rustdoc does not check *which* error they fail with on stable Rust, so each one is the
//!   correct example beside it with one line changed, and names the ui-test that pins the
//!   error message.
//! - The kernels come from `tests/fixtures/kernels.ptx` (hand-written PTX):
//!   `add_u32(unsigned* x, unsigned k, unsigned n)` adds `k` to `x[0..n)`.

pub mod faults;
pub mod in_flight;
pub mod parking;
pub mod platforms;
pub mod profile;
pub mod scopes;
pub mod stack;
pub mod testing;
