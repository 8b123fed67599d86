//! The checks of redundant execution and of a known-answer self-test: two runs of one declared
//! kernel compared element by element ([`Replicas`]), and a kernel with a known result checked
//! every Nth frame ([`KnownAnswer`]). A difference is a typed fault naming the kernel, the
//! frame, the first differing element and how many differ
//! ([`ErrorKind::ReplicasDiffer`], [`ErrorKind::SelfTestFailed`]); what follows it, an error
//! returned or the safe state, is chosen once, when the check is made ([`OnMismatch`]).
//!
//! Software-only diverse redundancy (Alcaide et al., IEEE TETC) runs the kernel twice so that
//! the two runs never share a streaming multiprocessor, and compares what each wrote: a
//! transient fault in one SM changes one run's output only. This module is the comparison
//! half: on the host, over the page-locked memory the init phase allocated (it allocates
//! nothing), or on the device by the kernel [`ReplicasCompare`] (CUDA C the program builds into
//! its cubin, [`ReplicasCompare::SOURCE`]), whose verdict it settles the same way; which one is
//! [`CompareOn`], chosen in the init phase. The placement of the two runs in two green-context
//! partitions of the device is [`RedundantKernel`](crate::safety::RedundantKernel).
//!
//! # Examples
//!
//! ```
//! use custack::ErrorKind;
//! use custack::safety::{OnMismatch, Replicas};
//!
//! custack::kernel_contract! {
//!     /// `scale(float* x, unsigned n, float k)`: `x[i] *= k` for `i < n`.
//!     unsafe kernel Scale = "scale"(x: &mut [f32; n], n: u32, k: f32);
//! }
//!
//! let replicas = Replicas::of::<Scale>(OnMismatch::ReturnError);
//! // What each run wrote into its own copy of `x`, copied into page-locked memory.
//! let first = [1.0f32, 2.0, 3.0, 4.0];
//! let mut second = first;
//! replicas.compare(7, "x", &first, &second)?;
//! second[2] = 3.5; // one run's result changed by a fault
//! let e = replicas.compare(8, "x", &first, &second).unwrap_err();
//! assert_eq!(e.kind(), ErrorKind::ReplicasDiffer);
//! assert!(e.to_string().contains("frame 8"));
//! assert!(e.to_string().contains("element 2"));
//! # Ok::<(), custack::Error>(())
//! ```

use crate::error::{Error, ErrorKind, Result};
use crate::kernel::contract::Contract;
use crate::vocabulary::plain::DeviceCopy;
use core::num::NonZeroU64;

/// The host's verdict before each frame compared on the device: `len` elements equal (at most
/// `usize::MAX`, never this) and a first difference at `!u64::MAX`, which no compare writes
/// (`settle_verdict` names it).
pub(crate) const VERDICT_NOT_BACK: [u64; 2] = [u64::MAX, u64::MAX];

/// What a difference between two runs, or a wrong known answer, does: chosen once, when the
/// check is made (in the init phase), never per frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum OnMismatch {
    /// The check returns the typed error; the process goes on (the caller decides, for
    /// example to drop the frame or to switch to a degraded mode).
    ReturnError,
    /// The process takes the one safe state ([`fail_stop`](crate::fail_stop): one line on
    /// stderr, exit status 75): a wrong result is treated as the GPU being unusable.
    FailStop,
}

/// Where the two replicas' outputs of a [`RedundantKernel`](crate::safety::RedundantKernel) are
/// compared: chosen once, in the init phase
/// ([`InitPhase::redundant`](crate::safety::InitPhase::redundant) by the output's size,
/// [`InitPhase::redundant_compared`](crate::safety::InitPhase::redundant_compared) as asked).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CompareOn {
    /// Both outputs copied back to page-locked memory each frame and compared on the host
    /// ([`Replicas::compare`]): no kernel of the program's module is needed, and both replicas'
    /// results are readable on the host. Its cost grows with the output: two copies back and a
    /// host pass over both.
    Host,
    /// Compared on the device by the kernel [`ReplicasCompare`] (`custack_replicas_compare`,
    /// CUDA C the program builds into its module: [`ReplicasCompare::SOURCE`]), ordered after
    /// both replicas; only its verdict (16 bytes) and replica 0's output come back.
    Device,
}

impl CompareOn {
    /// The output size, in bytes, from which [`InitPhase::redundant`] compares on the device:
    /// 256 KiB. Below it the host's comparison is as fast or faster (a copy back of a few
    /// kilobytes and a `memcmp` cost less than the compare kernel's launch, its memset and its
    /// verdict's copy); above it the host's second copy back and its pass over both outputs grow
    /// with the output while the device's stay a fraction of the kernel's own time
    /// (`tests/gpu_redundancy.rs` times both).
    ///
    /// [`InitPhase::redundant`]: crate::safety::InitPhase::redundant
    pub const DEVICE_FROM_BYTES: usize = 256 << 10;

    /// Where an output of `bytes` bytes is compared by default: on the device from
    /// [`DEVICE_FROM_BYTES`](Self::DEVICE_FROM_BYTES), on the host below it.
    pub const fn for_bytes(bytes: usize) -> Self {
        if bytes >= Self::DEVICE_FROM_BYTES {
            Self::Device
        } else {
            Self::Host
        }
    }
}

/// The comparison of two replicas on the device: `custack_replicas_compare(const unsigned char*
/// first, const unsigned char* second, unsigned long long len, unsigned long long size, unsigned
/// long long* verdict)` compares `len` elements of `size` bytes, bit for bit, and adds the number
/// found equal to `verdict[0]` and `~i` of the first differing element `i` into `verdict[1]` (an
/// `atomicMax`; custack zeroes the verdict first): a frame passes only when all `len` were found
/// equal and none differs, so a kernel that did not compare them all (a stub, one built from an
/// older copy of the source, which counted the differing elements) fails it (found by review: a
/// zero count of differences passed). A grid-stride loop, in blocks of whole warps.
///
/// The restricted profile loads cubins only, so custack ships the kernel as CUDA C
/// ([`SOURCE`](Self::SOURCE), the file `src/safety/replicas_compare.cu` of the crate) and the
/// program builds it into its own cubin ahead of time, beside the kernel it runs redundantly
/// (`#include "replicas_compare.cu"` in that kernel's `.cu` file), where
/// [`InitPhase::redundant`](crate::safety::InitPhase::redundant) looks it up in the init phase,
/// counted as one kernel lookup.
///
/// Not a [`Contract`](crate::Contract) a program can declare: a contract promises what every
/// kernel of its name does, in whatever module it is declared on, and custack cannot keep that
/// promise for a module a program loads through the safe full API (`load_ptx` of its own
/// `custack_replicas_compare`, writing anywhere, would launch under it). custack declares it
/// only on the cubin of the program's init phase, whose `unsafe`
/// [`load_cubin`](crate::safety::InitPhase::load_cubin) carries the promise that its kernels
/// honour their contracts. A program that launches the kernel itself declares a contract of its
/// own (`kernel_contract!`), with the parameters [`KERNEL`](Self::KERNEL) names.
#[derive(Clone, Copy, Debug)]
pub struct ReplicasCompare;

impl ReplicasCompare {
    /// The kernel's CUDA C source (`src/safety/replicas_compare.cu`), for a build script that
    /// writes it beside the program's own kernels before nvcc builds their cubin.
    pub const SOURCE: &'static str = include_str!("replicas_compare.cu");

    /// The kernel's name in the cubin.
    pub const KERNEL: &'static str = "custack_replicas_compare";
}

crate::kernel_contract! {
    /// The contract of [`ReplicasCompare`]'s kernel, custack's alone (see there why it is not
    /// public).
    pub(crate) unsafe kernel CompareContract = "custack_replicas_compare"(
        first: &[u8; len * size],
        second: &[u8; len * size],
        len: u64,
        size: u64,
        verdict: &mut [u64; 2],
    ) requires(block_x % 32 == 0, block_y == 1, block_z == 1);
}

/// Where two byte images of `T`s first differ, and in how many elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Difference {
    first: usize,
    count: usize,
    len: usize,
}

/// The bytes of plain data: `DeviceCopy` has no padding, so every byte is initialized.
fn bytes_of<T: DeviceCopy>(values: &[T]) -> &[u8] {
    // SAFETY: `T: DeviceCopy` has no padding bytes (its safety contract), so all
    // `size_of_val(values)` bytes behind the slice are initialized; `u8` has alignment 1; the
    // view borrows `values` for its whole life.
    unsafe {
        core::slice::from_raw_parts(values.as_ptr().cast::<u8>(), core::mem::size_of_val(values))
    }
}

/// Compares `a` and `b` element by element, bit for bit (a float NaN equals the same NaN; `-0.0`
/// differs from `0.0`: a replica must reproduce the bits). Lengths that differ count every
/// element past the shorter one as differing.
fn difference<T: DeviceCopy>(a: &[T], b: &[T]) -> Option<Difference> {
    let size = size_of::<T>();
    let (ab, bb) = (bytes_of(a), bytes_of(b));
    let mut first = None;
    let mut count = 0usize;
    let common = a.len().min(b.len());
    if size == 0 {
        return (a.len() != b.len()).then(|| Difference {
            first: common,
            count: a.len().abs_diff(b.len()),
            len: a.len().max(b.len()),
        });
    }
    // The common case, equal images, at the speed of `memcmp`; the element-wise pass below
    // runs only where they differ.
    if ab == bb {
        return None;
    }
    for (i, (x, y)) in ab.chunks_exact(size).zip(bb.chunks_exact(size)).enumerate() {
        if x != y {
            first.get_or_insert(i);
            // At most one per element: never past `usize::MAX`.
            count = count.saturating_add(1);
        }
    }
    if a.len() != b.len() {
        first.get_or_insert(common);
        count = count.saturating_add(a.len().abs_diff(b.len()));
    }
    first.map(|first| Difference {
        first,
        count,
        len: a.len().max(b.len()),
    })
}

/// Settles a check's error as `policy` says.
fn settle(policy: OnMismatch, error: Error) -> Result<()> {
    match policy {
        OnMismatch::ReturnError => Err(error),
        OnMismatch::FailStop => crate::error::fail_stop(&error),
    }
}

/// The comparison of two runs of the declared kernel `C`: each written parameter's two copies
/// compared bit for bit after both runs completed. Plain data, made once (in the init phase);
/// a comparison allocates nothing unless it finds a difference (the error's text).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Replicas {
    kernel: &'static str,
    on_mismatch: OnMismatch,
}

impl Replicas {
    /// The comparison for the kernel of contract `C`, and what a difference does.
    pub const fn of<C: Contract>(on_mismatch: OnMismatch) -> Self {
        Self {
            kernel: C::KERNEL,
            on_mismatch,
        }
    }

    /// The kernel's name, as its contract declares it.
    pub const fn kernel(&self) -> &'static str {
        self.kernel
    }

    /// What a difference does.
    pub const fn on_mismatch(&self) -> OnMismatch {
        self.on_mismatch
    }

    /// Compares what the two runs of launch `frame` wrote into their copies of the written
    /// parameter `param`: bit for bit, every element.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::ReplicasDiffer`] naming the kernel, `param`, `frame`, the first differing
    /// element and the number of differing elements, if any element differs (or the lengths
    /// do), under [`OnMismatch::ReturnError`]; under [`OnMismatch::FailStop`] the process
    /// ends instead.
    pub fn compare<T: DeviceCopy>(
        &self,
        frame: u64,
        param: &str,
        first: &[T],
        second: &[T],
    ) -> Result<()> {
        let Some(d) = difference(first, second) else {
            return Ok(());
        };
        let error = Error::custack(
            ErrorKind::ReplicasDiffer,
            format!(
                "kernel `{}`, frame {frame}: the two runs wrote different `{param}`: element {} \
                 differs first, {} of {} elements differ",
                self.kernel, d.first, d.count, d.len
            ),
        );
        settle(self.on_mismatch, error)
    }
}

impl Replicas {
    /// Settles the verdict of the comparison on the device ([`ReplicasCompare`]) of launch
    /// `frame`'s two copies of `param`, of `len` elements: `verdict[0]` elements were found
    /// equal, the first differing one is `!verdict[1]` where that is not 0. Fails closed: only
    /// a verdict of two words that counts all `len` elements equal and none differing passes;
    /// any other is a mismatch (one that compared fewer, a stub's zeroes among them, says so;
    /// one of other than two words, which the 16 bytes the init phase allocated never are,
    /// names its length).
    pub(crate) fn settle_verdict(
        &self,
        frame: u64,
        param: &str,
        verdict: &[u64],
        len: usize,
    ) -> Result<()> {
        let len_words = u64::try_from(len).unwrap_or(u64::MAX);
        let found = match *verdict {
            [same, 0] if same == len_words => return Ok(()),
            [u64::MAX, u64::MAX] => {
                "the compare's verdict did not reach the host (its copy back never \
                         ran): nothing says the elements are equal"
                    .to_owned()
            }
            [same, first] if first != 0 => format!(
                "element {} differs first, {} of {len} elements differ",
                !first,
                len_words.saturating_sub(same)
            ),
            [same, _] => format!(
                "the compare kernel found {same} of {len} elements equal and none different: it \
                 did not compare them all (is custack_replicas_compare built from this \
                 custack's replicas_compare.cu?)"
            ),
            _ => format!(
                "the verdict has {} words, not 2, and says nothing of the {len} elements",
                verdict.len()
            ),
        };
        let error = Error::custack(
            ErrorKind::ReplicasDiffer,
            format!(
                "kernel `{}`, frame {frame}: the two runs wrote different `{param}`: {found} \
                 (compared on the device)",
                self.kernel
            ),
        );
        settle(self.on_mismatch, error)
    }
}

/// A known-answer self-test: a kernel whose result is known, run every Nth frame of the run
/// phase (within the frame's bound) and checked against that result. Plain data, made once (in
/// the init phase).
///
/// # Examples
///
/// ```
/// use custack::ErrorKind;
/// use custack::safety::{KnownAnswer, OnMismatch};
/// use core::num::NonZeroU64;
///
/// custack::kernel_contract! {
///     /// `known_answer(unsigned* out, unsigned n)`: `out[i] = i * i + 1` for `i < n`.
///     unsafe kernel KnownAnswerKernel = "known_answer"(out: &mut [u32; n], n: u32);
/// }
///
/// let every = NonZeroU64::new(100).unwrap();
/// let test = KnownAnswer::of::<KnownAnswerKernel>(every, OnMismatch::ReturnError);
/// assert!(test.due(0) && test.due(300) && !test.due(301));
/// let expected: Vec<u32> = (0..8).map(|i| i * i + 1).collect();
/// test.check(300, &expected, &expected)?;
/// let mut wrong = expected.clone();
/// wrong[5] ^= 1 << 31;
/// let e = test.check(400, &expected, &wrong).unwrap_err();
/// assert_eq!(e.kind(), ErrorKind::SelfTestFailed);
/// # Ok::<(), custack::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KnownAnswer {
    kernel: &'static str,
    every: NonZeroU64,
    on_mismatch: OnMismatch,
}

impl KnownAnswer {
    /// The self-test with the kernel of contract `C`, due every `every` frames (frame 0, then
    /// `every`, `2 * every`, …), and what a wrong answer does.
    pub const fn of<C: Contract>(every: NonZeroU64, on_mismatch: OnMismatch) -> Self {
        Self {
            kernel: C::KERNEL,
            every,
            on_mismatch,
        }
    }

    /// Whether the self-test runs in frame `frame`.
    pub const fn due(&self, frame: u64) -> bool {
        // `every` is not zero, so the remainder always exists.
        matches!(frame.checked_rem(self.every.get()), Some(0))
    }

    /// The rate: one frame in `every`.
    pub const fn every(&self) -> NonZeroU64 {
        self.every
    }

    /// Checks what the self-test kernel wrote in frame `frame` against the known answer, bit
    /// for bit.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::SelfTestFailed`] naming the kernel, `frame`, the first wrong element and
    /// the number of wrong elements, under [`OnMismatch::ReturnError`]; under
    /// [`OnMismatch::FailStop`] the process ends instead.
    pub fn check<T: DeviceCopy>(&self, frame: u64, expected: &[T], got: &[T]) -> Result<()> {
        let Some(d) = difference(expected, got) else {
            return Ok(());
        };
        let error = Error::custack(
            ErrorKind::SelfTestFailed,
            format!(
                "known-answer self-test `{}`, frame {frame}: element {} is wrong first, {} of \
                 {} elements are wrong",
                self.kernel, d.first, d.count, d.len
            ),
        );
        settle(self.on_mismatch, error)
    }
}

#[cfg(test)]
mod tests {
    use super::{CompareOn, Difference, OnMismatch, Replicas, VERDICT_NOT_BACK, difference};
    use crate::error::ErrorKind;
    use crate::vocabulary::plain::DeviceCopy;

    #[test]
    fn outputs_from_256_kib_are_compared_on_the_device_by_default() {
        let from = CompareOn::DEVICE_FROM_BYTES;
        assert_eq!(from, 256 * 1024);
        assert_eq!(CompareOn::for_bytes(0), CompareOn::Host);
        assert_eq!(CompareOn::for_bytes(from - 1), CompareOn::Host);
        assert_eq!(CompareOn::for_bytes(from), CompareOn::Device);
        assert_eq!(CompareOn::for_bytes(usize::MAX), CompareOn::Device);
    }

    /// The verdict `custack_replicas_compare` leaves for two outputs
    /// (`src/safety/replicas_compare.cu`): the number of elements found equal, and the largest
    /// `!i` over the differing elements `i` (an `atomicMax` over a verdict zeroed first).
    fn device_verdict(a: &[u32], b: &[u32]) -> [u64; 2] {
        a.iter()
            .zip(b)
            .zip(0u64..)
            .fold([0, 0], |[same, first], ((x, y), i)| {
                if x == y {
                    [same.saturating_add(1), first]
                } else {
                    [same, first.max(!i)]
                }
            })
    }

    #[test]
    fn a_device_verdict_is_settled_as_the_host_comparison_of_the_same_outputs() {
        let replicas = Replicas {
            kernel: "mix",
            on_mismatch: OnMismatch::ReturnError,
        };
        let a: Vec<u32> = (0..100).collect();
        let mut b = a.clone();
        // Equal outputs: all 100 found equal, none different, passes.
        assert!(
            replicas
                .settle_verdict(4, "out", &device_verdict(&a, &b), 100)
                .is_ok()
        );
        // A kernel that compared nothing (the zeroed verdict), or only part, or a stale one that
        // counted differences (0 of them, here): a mismatch saying so, never a pass (found by
        // review: a zero count passed).
        for verdict in [[0, 0], [99, 0], [0, !7]] {
            let e = replicas
                .settle_verdict(4, "out", &verdict, 100)
                .unwrap_err();
            assert_eq!(e.kind(), ErrorKind::ReplicasDiffer);
            if verdict[1] == 0 {
                let said = format!(
                    "found {} of 100 elements equal and none different",
                    verdict[0]
                );
                assert!(e.to_string().contains(&said), "{e}");
            }
        }
        b[90] ^= 1 << 31;
        b[17] ^= 1;
        b[63] ^= 8;
        let on_host = replicas.compare(4, "out", &a, &b).unwrap_err();
        let on_device = replicas
            .settle_verdict(4, "out", &device_verdict(&a, &b), 100)
            .unwrap_err();
        assert_eq!(on_device.kind(), ErrorKind::ReplicasDiffer);
        assert_eq!(on_host.kind(), ErrorKind::ReplicasDiffer);
        let text = on_device.to_string();
        assert!(
            text.contains("kernel `mix`, frame 4")
                && text.contains("`out`")
                && text.contains("element 17 differs first, 3 of 100 elements differ")
                && text.contains("(compared on the device)"),
            "{text}"
        );
        assert!(
            on_host
                .to_string()
                .contains("element 17 differs first, 3 of 100 elements differ"),
            "{on_host}"
        );
    }

    /// Outputs of `len` elements of `T` (`T` plain data of `N` bytes), a pattern of bytes.
    fn outputs<T: DeviceCopy + Copy, const N: usize>(
        len: usize,
        from_bytes: fn([u8; N]) -> T,
    ) -> Vec<T> {
        (0..len)
            .map(|i| {
                let mut bytes = [0u8; N];
                for (k, b) in bytes.iter_mut().enumerate() {
                    // A byte pattern of the element's index and the byte's (wrapping: u8).
                    *b = (i.wrapping_mul(31).wrapping_add(k.wrapping_mul(7)) & 0xff) as u8;
                }
                from_bytes(bytes)
            })
            .collect()
    }

    /// One bit flipped in one element anywhere (the first, a middle, the last; its first byte
    /// and its last) is one differing element, named, for elements of 1 to 24 bytes and
    /// lengths on both sides of every word, warp and block size: on the host
    /// ([`Replicas::compare`], [`KnownAnswer::check`](super::KnownAnswer::check)) and as the
    /// device's verdict is settled ([`Replicas::settle_verdict`] of the kernel's verdict).
    fn one_flip_anywhere<T: DeviceCopy + Copy, const N: usize>(
        from_bytes: fn([u8; N]) -> T,
        to_bytes: fn(T) -> [u8; N],
    ) {
        let replicas = Replicas {
            kernel: "k",
            on_mismatch: OnMismatch::ReturnError,
        };
        let known = super::KnownAnswer {
            kernel: "k",
            every: core::num::NonZeroU64::MIN,
            on_mismatch: OnMismatch::ReturnError,
        };
        // Under Miri (`scripts/miri.sh` runs the unit tests), one length whose first, middle
        // and last elements differ (the byte views of every element size are the same code).
        let lengths: &[usize] = if cfg!(miri) {
            &[9]
        } else {
            &[
                1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 65, 255, 256, 257,
            ]
        };
        for &len in lengths {
            let first = outputs(len, from_bytes);
            assert_eq!(difference(&first, &first), None);
            let last = len.checked_sub(1).unwrap();
            for at in [0, len.checked_div(2).unwrap(), last] {
                for byte in [0, N.checked_sub(1).unwrap()] {
                    let mut second = first.clone();
                    let mut bytes = to_bytes(second[at]);
                    bytes[byte] ^= 0x40;
                    second[at] = from_bytes(bytes);
                    let what = format!("{N}-byte elements, {len} of them, byte {byte} of {at}");
                    assert_eq!(
                        difference(&first, &second),
                        Some(Difference {
                            first: at,
                            count: 1,
                            len
                        }),
                        "{what}"
                    );
                    let named = format!("element {at} differs first, 1 of {len} elements differ");
                    let e = replicas.compare(9, "out", &first, &second).unwrap_err();
                    assert!(e.to_string().contains(&named), "{what}: {e}");
                    let e = known.check(9, &first, &second).unwrap_err();
                    let wrong = format!("element {at} is wrong first, 1 of {len} elements");
                    assert!(e.to_string().contains(&wrong), "{what}: {e}");
                    let as_bytes =
                        |v: &[T]| v.iter().flat_map(|&x| to_bytes(x)).collect::<Vec<_>>();
                    let verdict = byte_verdict(&as_bytes(&first), &as_bytes(&second), N);
                    let e = replicas
                        .settle_verdict(9, "out", &verdict, len)
                        .unwrap_err();
                    assert!(e.to_string().contains(&named), "{what}: {e}");
                }
            }
        }
    }

    /// The verdict of the kernel over byte images of `size`-byte elements.
    fn byte_verdict(a: &[u8], b: &[u8], size: usize) -> [u64; 2] {
        a.chunks_exact(size)
            .zip(b.chunks_exact(size))
            .zip(0u64..)
            .fold([0, 0], |[same, first], ((x, y), i)| {
                if x == y {
                    [same.saturating_add(1), first]
                } else {
                    [same, first.max(!i)]
                }
            })
    }

    #[test]
    fn one_differing_element_anywhere_is_a_mismatch_naming_it() {
        one_flip_anywhere::<u8, 1>(u8::from_le_bytes, u8::to_le_bytes);
        one_flip_anywhere::<u16, 2>(u16::from_le_bytes, u16::to_le_bytes);
        one_flip_anywhere::<[u8; 3], 3>(|b| b, |b| b);
        one_flip_anywhere::<f32, 4>(f32::from_le_bytes, f32::to_le_bytes);
        one_flip_anywhere::<u64, 8>(u64::from_le_bytes, u64::to_le_bytes);
        one_flip_anywhere::<[u32; 3], 12>(
            |b| {
                let word = |k: usize| u32::from_le_bytes([b[k], b[k + 1], b[k + 2], b[k + 3]]);
                [word(0), word(4), word(8)]
            },
            |w| {
                let mut b = [0u8; 12];
                for (chunk, x) in b.chunks_exact_mut(4).zip(w) {
                    chunk.copy_from_slice(&x.to_le_bytes());
                }
                b
            },
        );
        one_flip_anywhere::<[u64; 3], 24>(
            |b| {
                let word = |k: usize| u64::from_le_bytes(b[k..k + 8].try_into().unwrap());
                [word(0), word(8), word(16)]
            },
            |w| {
                let mut b = [0u8; 24];
                for (chunk, x) in b.chunks_exact_mut(8).zip(w) {
                    chunk.copy_from_slice(&x.to_le_bytes());
                }
                b
            },
        );
    }

    /// A verdict of other than two words, which never comes back from the 16 bytes the init
    /// phase allocates, is a mismatch, not a pass; all elements equal and none different passes.
    #[test]
    fn a_verdict_that_cannot_be_read_is_a_mismatch() {
        let replicas = Replicas {
            kernel: "k",
            on_mismatch: OnMismatch::ReturnError,
        };
        for verdict in [&[][..], &[10], &[10, 0, 0]] {
            let e = replicas.settle_verdict(1, "out", verdict, 10).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::ReplicasDiffer);
            assert!(
                e.to_string()
                    .contains(&format!("the verdict has {} words, not 2", verdict.len())),
                "{e}"
            );
        }
        replicas.settle_verdict(1, "out", &[10, 0], 10).unwrap();
    }

    /// The verdict the host holds before a frame (its copy back not landed) is a mismatch that
    /// says so, for every length, the empty one too.
    #[test]
    fn a_verdict_whose_copy_back_never_ran_is_a_mismatch() {
        let replicas = Replicas {
            kernel: "k",
            on_mismatch: OnMismatch::ReturnError,
        };
        for len in [0, 1, 10, usize::MAX] {
            let e = replicas
                .settle_verdict(1, "out", &VERDICT_NOT_BACK, len)
                .unwrap_err();
            assert_eq!(e.kind(), ErrorKind::ReplicasDiffer);
            assert!(e.to_string().contains("did not reach the host"), "{e}");
        }
    }

    #[test]
    fn equal_images_have_no_difference() {
        assert_eq!(difference::<u32>(&[], &[]), None);
        assert_eq!(difference(&[1u32, 2, 3], &[1, 2, 3]), None);
        assert_eq!(difference(&[f32::NAN], &[f32::NAN]), None);
    }

    #[test]
    fn the_first_differing_element_and_the_count_are_found() {
        let a = [0u64; 100];
        let mut b = a;
        b[17] = 1;
        b[90] = 1 << 63;
        assert_eq!(
            difference(&a, &b),
            Some(Difference {
                first: 17,
                count: 2,
                len: 100
            })
        );
        // Bit for bit: 0.0 and -0.0 differ.
        assert_eq!(difference(&[0.0f32], &[-0.0]).map(|d| d.count), Some(1));
    }

    #[test]
    fn a_length_difference_counts_the_missing_elements() {
        assert_eq!(
            difference(&[1u8, 2, 3], &[1, 2]),
            Some(Difference {
                first: 2,
                count: 1,
                len: 3
            })
        );
        assert_eq!(
            difference(&[9u16, 2], &[1, 2, 3, 4]),
            Some(Difference {
                first: 0,
                count: 3,
                len: 4
            })
        );
        assert_eq!(
            difference::<[u8; 0]>(&[[], []], &[[]]).map(|d| d.count),
            Some(1)
        );
    }
}
