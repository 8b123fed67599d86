//! Redundant execution's comparison and the known-answer self-test, without a GPU: faults
//! injected into one replica's output (1, 8 or 64 bits flipped at random, or its launch dropped
//! so that it holds the previous frame's result) are every one detected, with the first
//! differing element and the count the injection made. The figures are in docs/reliability.md.

use custack::ErrorKind;
use custack::safety::{KnownAnswer, OnMismatch, Replicas};
use std::collections::BTreeSet;
use std::num::NonZeroU64;

custack::kernel_contract! {
    /// `frame_kernel(unsigned* out, unsigned n, unsigned frame)`: a small kernel whose result
    /// depends on the frame.
    unsafe kernel FrameKernel = "frame_kernel"(out: &mut [u32; n], n: u32, frame: u32);
}

/// Elements of the small kernel's output.
const N: usize = 64;

/// The small kernel's result for `frame`, as both replicas compute it.
fn result(frame: u64, out: &mut [u32]) {
    for (i, x) in out.iter_mut().enumerate() {
        let v = (i as u64)
            .wrapping_mul(0x9E37_79B9)
            .wrapping_add(frame.wrapping_mul(0x85EB_CA6B));
        *x = (v ^ (v >> 13)) as u32;
    }
}

/// xorshift64*: the injections' random bits (seeded, so a failure repeats).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

/// What an injection did to the replica.
#[derive(Clone, Copy, Debug)]
enum Injection {
    /// `n` distinct random bits flipped.
    Flip(usize),
    /// The replica's launch dropped: its output is still the previous frame's.
    Drop,
}

#[test]
fn every_injected_fault_in_one_replica_is_detected_with_its_first_element_and_count() {
    let replicas = Replicas::of::<FrameKernel>(OnMismatch::ReturnError);
    let kinds = [
        Injection::Flip(1),
        Injection::Flip(8),
        Injection::Flip(64),
        Injection::Drop,
    ];
    let injections = 100_000u64;
    let mut rng = Rng(0x005E_ED0F_FA17);
    let (mut first, mut second, mut previous) = (vec![0u32; N], vec![0u32; N], vec![0u32; N]);
    let mut detected = [0u64; 4];
    let started = std::time::Instant::now();
    for frame in 0..injections {
        // A clean frame first: the two runs agree.
        result(frame, &mut first);
        result(frame, &mut second);
        replicas.compare(frame, "out", &first, &second).unwrap();
        let k = (frame % 4) as usize;
        let mut touched = BTreeSet::new();
        match kinds[k] {
            Injection::Flip(bits) => {
                let mut flipped = BTreeSet::new();
                while flipped.len() < bits {
                    flipped.insert(rng.next() % (N as u64 * 32));
                }
                for bit in flipped {
                    let i = (bit / 32) as usize;
                    second[i] ^= 1 << (bit % 32);
                    touched.insert(i);
                }
            }
            Injection::Drop => {
                second.copy_from_slice(&previous);
                touched.extend((0..N).filter(|&i| first[i] != previous[i]));
                assert!(!touched.is_empty(), "frame {frame} equals the one before");
            }
        }
        let e = replicas
            .compare(frame, "out", &first, &second)
            .expect_err("an injected fault went undetected");
        assert_eq!(e.kind(), ErrorKind::ReplicasDiffer);
        let text = e.to_string();
        let want = format!(
            "frame {frame}: the two runs wrote different `out`: element {} differs first, {} of \
             {N} elements differ",
            touched.first().unwrap(),
            touched.len()
        );
        assert!(text.contains(&want), "{text}\nwanted: {want}");
        assert!(text.contains("frame_kernel"), "{text}");
        detected[k] += 1;
        previous.copy_from_slice(&first);
    }
    let elapsed = started.elapsed();
    eprintln!(
        "redundancy: {injections} injections ({detected:?} of 1, 8, 64 bits flipped, dropped) \
         detected in {elapsed:?}"
    );
    assert_eq!(detected.iter().sum::<u64>(), injections);
    assert!(detected.iter().all(|&d| d == injections / 4));
}

#[test]
fn the_known_answer_test_runs_every_nth_frame_and_names_a_wrong_answer() {
    let every = NonZeroU64::new(60).unwrap();
    let test = KnownAnswer::of::<FrameKernel>(every, OnMismatch::ReturnError);
    let due: Vec<u64> = (0..200).filter(|&f| test.due(f)).collect();
    assert_eq!(due, [0, 60, 120, 180]);
    assert_eq!(test.every(), every);
    let mut known = vec![0u32; N];
    result(42, &mut known);
    test.check(120, &known, &known).unwrap();
    let mut got = known.clone();
    got[40] ^= 1;
    got[41] ^= 1 << 31;
    let e = test.check(180, &known, &got).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::SelfTestFailed);
    let text = e.to_string();
    assert!(
        text.contains("frame_kernel`, frame 180: element 40 is wrong first, 2 of 64"),
        "{text}"
    );
    // A short result is wrong in every element it lacks.
    let e = test.check(0, &known, &known[..60]).unwrap_err();
    assert!(
        e.to_string().contains("element 60 is wrong first, 4 of 64"),
        "{e}"
    );
}

#[test]
fn the_policy_is_the_one_chosen_when_the_check_was_made() {
    let r = Replicas::of::<FrameKernel>(OnMismatch::FailStop);
    assert_eq!(r.on_mismatch(), OnMismatch::FailStop);
    assert_eq!(r.kernel(), "frame_kernel");
    // Equal results return under either policy; the fail-stop one is not reached.
    r.compare(0, "out", &[1u32, 2], &[1, 2]).unwrap();
}
