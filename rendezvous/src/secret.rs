//! The job's shared secret: the variable it comes from, its cap, and the comparison rank 0
//! makes in time that depends only on the secret's length. The secret travels in the clear
//! (see the crate's docs): it authenticates ranks to rank 0, it is not encryption.

use crate::wire;

/// The longest secret a job may carry, in bytes.
pub const MAX_SECRET_LEN: usize = wire::MAX_SECRET;
/// The variable [`Job::from_env`] reads the job's secret from.
///
/// [`Job::from_env`]: crate::Job::from_env
pub const SECRET_VAR: &str = "CUSTACK_RENDEZVOUS_SECRET";

/// Whether `given` is `secret`, in time that depends on `secret`'s length only: every byte is
/// compared, whatever differs first (a wrong guess cannot be timed closer byte by byte).
pub(crate) fn secret_matches(secret: &[u8], given: &[u8]) -> bool {
    let mut diff = usize::from(secret.len() != given.len());
    for (i, &s) in secret.iter().enumerate() {
        let g = given.get(i).copied().unwrap_or(!s);
        diff |= usize::from(std::hint::black_box(s ^ g));
    }
    std::hint::black_box(diff) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_matches_only_itself() {
        assert!(secret_matches(b"sesame", b"sesame"));
        for other in [
            &b"sesamE"[..],
            b"Sesame",
            b"sesam",
            b"sesame!",
            b"",
            b"\0\0\0\0\0\0",
        ] {
            assert!(
                !secret_matches(b"sesame", other),
                "{}",
                other.escape_ascii()
            );
        }
    }
}
