//! Redundant execution's comparison at its edges, without a GPU: outputs whose elements have no
//! size, where only the number of elements can differ. (`tests/redundancy.rs` injects faults
//! into outputs of `u32`.)

use custack::ErrorKind;
use custack::safety::{KnownAnswer, OnMismatch, Replicas};
use std::num::NonZeroU64;

custack::kernel_contract! {
    /// `marker(unsigned* out, unsigned n)`: a kernel named only for the comparison's messages
    /// (nothing is loaded or launched).
    unsafe kernel Marker = "marker"(out: &mut [u32; n], n: u32);
}

/// An element of no size: plain data whose every value is the same.
type Empty = [u32; 0];

#[test]
fn zero_sized_elements_differ_only_in_their_number() {
    let replicas = Replicas::of::<Marker>(OnMismatch::ReturnError);
    let (three, five): ([Empty; 3], [Empty; 5]) = ([[]; 3], [[]; 5]);
    replicas.compare(7, "out", &three, &three).unwrap();
    replicas.compare(7, "out", &[] as &[Empty], &[]).unwrap();
    let e = replicas.compare(8, "out", &three, &five).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ReplicasDiffer, "{e}");
    let text = e.to_string();
    assert!(
        text.contains("frame 8: the two runs wrote different `out`: element 3 differs first, 2 of 5 elements differ"),
        "{text}"
    );
    let test = KnownAnswer::of::<Marker>(NonZeroU64::MIN, OnMismatch::ReturnError);
    test.check(0, &five, &five).unwrap();
    let e = test.check(1, &five, &three).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::SelfTestFailed, "{e}");
    assert!(
        e.to_string()
            .contains("element 3 is wrong first, 2 of 5 elements are wrong"),
        "{e}"
    );
}
