//! Recovery from a GPU fault is a new process: a supervisor runs the GPU work in a worker
//! process, sees it fail-stop, starts a new worker and finishes the job (R20).
//!
//! `cargo run --release --example 21_supervisor`
//!
//! The job is eight chunks of numbers, each to be added a constant on the GPU. The supervisor
//! (this program, without arguments) never touches CUDA: it starts itself again as a worker
//! (`--worker`), writes the chunks still to do to the worker's stdin and reads each finished
//! chunk from its stdout as soon as the worker prints it, so nothing a worker finished is lost.
//! The first worker is told to fault on purpose at chunk 3 (`--fault-at 3`): it launches a
//! kernel that writes through a bad address, and the scope's end sees the sticky error. A scope
//! cannot return then (a fault does not stop other contexts' work, so its borrows cannot end,
//! R20): it takes custack's one safe state, [`custack::fail_stop`], which prints one line with
//! the error and its origin (what observed it, where, the kernel) and exits with
//! [`custack::FAIL_STOP_STATUS`]; a sticky error that reaches the worker's own code any other way
//! ends it through the same call. The supervisor sees that status, starts a new worker for the
//! chunks left, and checks every result against the CPU.
//! Every wait for a worker is bounded: past its deadline the worker is killed.
//!
//! No `unsafe`: both kernels are declared with `kernel_contract!`, one of them falsely, on
//! purpose (see `IllegalWrite`).
use custack::{Context, ContextFlags, DeviceMemory, Driver, Error, ErrorKind, LaunchConfig, Stack};
use std::collections::BTreeMap;
use std::io::{BufRead, Read, Write};
use std::process::{Command, ExitCode, ExitStatus, Stdio};
use std::time::{Duration, Instant};

const KERNELS: &str = include_str!("../tests/fixtures/kernels.ptx");

custack::kernel_contract! {
    /// `add_u32(unsigned* x, unsigned k, unsigned n)`: `x[i] += k` for `i < n`.
    pub unsafe kernel AddU32 = "add_u32"(x: &mut [u32; n], k: u32, n: u32);

    /// `illegal_write()`: declared as touching nothing, and a lie on purpose: it writes through
    /// address 8, a fault the GPU reports as the sticky `CUDA_ERROR_ILLEGAL_ADDRESS`. Only a
    /// worker told to fault launches it; the fault ends that process's use of CUDA, which is
    /// what this example recovers from.
    pub unsafe kernel IllegalWrite = "illegal_write"();
}

/// One piece of the job: `values[i] + k` for every `i`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    /// Its number in the job.
    pub id: u32,
    /// What is added.
    pub k: u32,
    /// The inputs.
    pub values: Vec<u32>,
}

/// The job: `chunks` chunks of `len` numbers each.
pub fn job(chunks: u32, len: u32) -> Vec<Chunk> {
    (0..chunks)
        .map(|id| Chunk {
            id,
            k: 1000 * (id + 1),
            values: (0..len)
                .map(|i| i.wrapping_mul(2_654_435_761) ^ id)
                .collect(),
        })
        .collect()
}

/// The worker's inputs on its stdin: a line per chunk, `id k v0 v1 ...`.
pub fn encode(chunks: &[&Chunk]) -> String {
    let mut text = String::new();
    for c in chunks {
        text.push_str(&join(&[c.id, c.k]));
        text.push(' ');
        text.push_str(&join(&c.values));
        text.push('\n');
    }
    text
}

/// `numbers` separated by spaces.
pub fn join(numbers: &[u32]) -> String {
    let text: Vec<String> = numbers.iter().map(u32::to_string).collect();
    text.join(" ")
}

/// How a worker's line with a finished chunk starts; its other lines are not read.
pub const DONE: &str = "done ";

/// The numbers of one line.
fn numbers(line: &str) -> Option<Vec<u32>> {
    line.split_ascii_whitespace()
        .map(|w| w.parse().ok())
        .collect()
}

/// The chunks of a worker's input.
///
/// # Errors
///
/// [`ErrorKind::InvalidValue`] for a line that is not `id k values...`.
pub fn decode(text: &str) -> custack::Result<Vec<Chunk>> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| match numbers(line).as_deref() {
            Some([id, k, values @ ..]) => Ok(Chunk {
                id: *id,
                k: *k,
                values: values.to_vec(),
            }),
            _ => Err(Error::new(
                ErrorKind::InvalidValue,
                format!("a worker's input line is not `id k values...`: {line:.40}"),
            )),
        })
        .collect()
}

/// The worker: adds each chunk's constant on the GPU and prints the chunk (`done id r0 r1 ...`)
/// as soon as it is done; at chunk `fault_at` it also launches the faulting kernel.
///
/// # Errors
///
/// custack's errors; the fault's is sticky.
pub fn worker(input: &str, fault_at: Option<u32>, out: &mut impl Write) -> custack::Result<()> {
    let chunks = decode(input)?;
    let ctx = Context::new(
        Driver::init()?.device(0)?,
        ContextFlags::SCHED_BLOCKING_SYNC,
    )?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let module = guard.load_ptx(KERNELS)?;
    let add = module.declared::<AddU32>()?;
    let fault = module.declared::<IllegalWrite>()?;
    let stream = guard.stream()?;
    let io = |e: std::io::Error| Error::new(ErrorKind::Io, "writing a result").with_source(e);
    for chunk in &chunks {
        let mut x = guard.alloc_from(&chunk.values)?;
        let n = u32::try_from(chunk.values.len())
            .map_err(|_| Error::new(ErrorKind::SizeOverflow, "a chunk of over 2^32 numbers"))?;
        stream.scope(|s| -> custack::Result<()> {
            let mut dx = s.bind_mut(&mut x);
            s.run(&add, LaunchConfig::for_elements(n), (&mut dx, chunk.k, n))?;
            if fault_at == Some(chunk.id) {
                s.run(&fault, LaunchConfig::for_elements(1), ())?;
            }
            Ok(())
        })??; // the fault surfaces here, at the scope's end: the safe state, status 75
        let line = format!("{DONE}{} {}", chunk.id, join(&x.to_vec()?));
        writeln!(out, "{line}").map_err(io)?;
        out.flush().map_err(io)?; // a finished chunk reaches the supervisor before the next starts
    }
    Ok(())
}

/// The worker process: reads its chunks from stdin, runs [`worker`], and exits: 0 when done,
/// [`custack::FAIL_STOP_STATUS`] after a GPU fault (through [`custack::fail_stop`]), 1 on any
/// other error (said in one line on stderr).
pub fn worker_main(fault_at: Option<u32>) -> ExitCode {
    let mut input = String::new();
    if let Err(e) = std::io::stdin().read_to_string(&mut input) {
        eprintln!("21_supervisor: the worker could not read its input: {e}");
        return ExitCode::FAILURE;
    }
    match worker(&input, fault_at, &mut std::io::stdout().lock()) {
        Ok(()) => ExitCode::SUCCESS,
        // The process can no longer use CUDA: end it, with the error and its origin on stderr,
        // and a status that asks the supervisor for a new process.
        Err(e) if e.is_sticky() => custack::fail_stop(&e),
        Err(e) => {
            eprintln!("21_supervisor: no GPU work done: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Why the supervisor gave up.
#[derive(Debug)]
pub enum Gave {
    /// A worker failed without a GPU fault (no GPU, a bad input) and said why on stderr.
    Up(ExitStatus),
    /// Anything else, said here.
    Because(String),
}

/// How long one worker may take before it is killed.
pub const WORKER_DEADLINE: Duration = Duration::from_secs(120);
/// How many workers the supervisor starts at most.
pub const MAX_WORKERS: u32 = 3;

/// Runs one worker on `input`: its exit status and what it printed, its wait bounded by
/// `deadline` (the worker is killed past it).
fn run_worker(
    mut command: Command,
    input: String,
    deadline: Duration,
) -> Result<(ExitStatus, String), Gave> {
    let failed = |what: &str, e: std::io::Error| Gave::Because(format!("{what}: {e}"));
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| failed("starting a worker", e))?;
    let (Some(mut stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        return Err(Gave::Because("a worker without pipes".into()));
    };
    // Both pipes on threads of their own, so that neither a full pipe nor a silent worker holds
    // the supervisor: only the deadline below decides how long it waits.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes()); // a worker that dies early closes its end
    });
    let reader = std::thread::spawn(move || {
        let mut lines = String::new();
        for line in std::io::BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            lines.push_str(&line);
            lines.push('\n');
        }
        lines
    });
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() < deadline => {
                std::thread::sleep(Duration::from_millis(20));
            }
            Ok(None) => {
                let _ = child.kill();
                // A worker blocked inside the driver (in the kernel, uninterruptible) dies only
                // when the driver lets it go: reap it within a grace period, and otherwise give
                // up on it rather than wait for ever (the supervisor's own bound; the process is
                // reaped by the system once it ends).
                let reaped = Instant::now();
                while reaped.elapsed() < REAP_GRACE {
                    if !matches!(child.try_wait(), Ok(None)) {
                        break;
                    }
                    std::thread::sleep(Duration::from_millis(10));
                }
                let reaped = !matches!(child.try_wait(), Ok(None));
                return Err(Gave::Because(format!(
                    "a worker ran past {deadline:?}: killed{}",
                    if reaped {
                        ""
                    } else {
                        ", and not yet ended after the grace period (blocked in the kernel?)"
                    }
                )));
            }
            Err(e) => return Err(failed("waiting for a worker", e)),
        }
    };
    let _ = writer.join();
    let printed = reader
        .join()
        .map_err(|_| Gave::Because("the reader of a worker's output panicked".into()))?;
    Ok((status, printed))
}

/// How long the supervisor waits for a killed worker to end before it gives up on it.
const REAP_GRACE: Duration = Duration::from_secs(5);

/// Runs `chunks` in workers that `spawn` makes (given the chunk the worker is to fault at), the
/// first told to fault at `fault_first_at`; starts a new worker for what is left after a
/// fail-stop, at most [`MAX_WORKERS`], each killed past `deadline`. Returns every chunk's
/// results, by id, and how many workers it took.
///
/// # Errors
///
/// [`Gave::Up`] when a worker failed without a GPU fault; [`Gave::Because`] when a worker
/// printed something that is not a result of its chunks, ran past `deadline`, or the workers
/// ran out.
pub fn supervise(
    chunks: &[Chunk],
    spawn: &dyn Fn(Option<u32>) -> Command,
    fault_first_at: Option<u32>,
    deadline: Duration,
) -> Result<(BTreeMap<u32, Vec<u32>>, u32), Gave> {
    let mut results: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    let mut workers = 0;
    for attempt in 0..MAX_WORKERS {
        let left: Vec<&Chunk> = chunks
            .iter()
            .filter(|c| !results.contains_key(&c.id))
            .collect();
        if left.is_empty() {
            break;
        }
        let fault_at = if attempt == 0 { fault_first_at } else { None };
        workers += 1;
        let (status, printed) = run_worker(spawn(fault_at), encode(&left), deadline)?;
        for line in printed.lines().filter_map(|l| l.strip_prefix(DONE)) {
            let parsed = numbers(line);
            let Some([id, values @ ..]) = parsed.as_deref() else {
                return Err(Gave::Because(format!("a worker printed {line:.40}")));
            };
            match left.iter().find(|c| c.id == *id) {
                Some(c) if c.values.len() == values.len() => {
                    results.insert(*id, values.to_vec());
                }
                _ => {
                    return Err(Gave::Because(format!(
                        "a worker printed chunk {id}, not one of its own"
                    )));
                }
            }
        }
        let done = left.iter().filter(|c| results.contains_key(&c.id)).count();
        match status.code() {
            Some(0) if done == left.len() => {
                println!("worker {attempt}: finished its {done} chunks");
            }
            Some(custack::FAIL_STOP_STATUS) => println!(
                "worker {attempt}: fail-stopped after {done} of its {} chunks (GPU fault); starting a new worker",
                left.len()
            ),
            Some(1) => return Err(Gave::Up(status)),
            _ => {
                return Err(Gave::Because(format!(
                    "worker {attempt} ended with {status}, {done} of {} chunks done",
                    left.len()
                )));
            }
        }
    }
    if results.len() == chunks.len() {
        Ok((results, workers))
    } else {
        Err(Gave::Because(format!(
            "{MAX_WORKERS} workers ended without finishing the job"
        )))
    }
}

/// The chunks whose results differ from the CPU's.
pub fn wrong(chunks: &[Chunk], results: &BTreeMap<u32, Vec<u32>>) -> usize {
    chunks
        .iter()
        .filter(|c| {
            let expected: Vec<u32> = c.values.iter().map(|v| v.wrapping_add(c.k)).collect();
            results.get(&c.id) != Some(&expected)
        })
        .count()
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--worker") {
        let fault_at = match args.get(1..) {
            Some([flag, n]) if flag == "--fault-at" => n.parse().ok(),
            _ => None,
        };
        return worker_main(fault_at);
    }
    let Ok(me) = std::env::current_exe() else {
        eprintln!("21_supervisor: cannot find this program's own executable");
        return ExitCode::FAILURE;
    };
    let spawn = |fault_at: Option<u32>| {
        let mut command = Command::new(&me);
        command.arg("--worker");
        if let Some(n) = fault_at {
            command.args(["--fault-at", &n.to_string()]);
        }
        command
    };
    let chunks = job(8, 1 << 16);
    match supervise(&chunks, &spawn, Some(3), WORKER_DEADLINE) {
        Ok((results, workers)) => match wrong(&chunks, &results) {
            0 => {
                println!(
                    "21_supervisor: {} chunks of {} numbers done by {workers} workers, every \
                     result equal to the CPU's",
                    chunks.len(),
                    1 << 16
                );
                ExitCode::SUCCESS
            }
            n => {
                eprintln!("21_supervisor: {n} chunks differ from the CPU's results");
                ExitCode::FAILURE
            }
        },
        // The worker said why (e.g. no GPU) in one line.
        Err(Gave::Up(_)) => ExitCode::FAILURE,
        Err(Gave::Because(why)) => {
            eprintln!("21_supervisor: {why}");
            ExitCode::FAILURE
        }
    }
}
