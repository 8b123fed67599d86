//! The one deadline of a call: made once from its timeout, the time left until it, and a
//! duration as the messages write it.

use crate::error::{Result, failed};
use std::fmt::Write as _;
use std::time::{Duration, Instant};

/// Now plus `timeout`: the deadline of every wait of one call; an error when it lies beyond what
/// this system's clock can count (`Duration::MAX`, say).
pub(crate) fn checked_deadline(timeout: Duration) -> Result<Instant> {
    Instant::now().checked_add(timeout).ok_or_else(|| {
        failed(format!(
            "a timeout of {} lies beyond what this system's clock can count",
            seconds(timeout)
        ))
    })
}

/// The time left until `deadline`, or `None` when it has passed. Never `Some(0)`: the socket
/// timeouts refuse a zero duration.
pub(crate) fn remaining(deadline: Instant) -> Option<Duration> {
    let left = deadline.checked_duration_since(Instant::now())?;
    (!left.is_zero()).then_some(left)
}

/// `30 s`, `1.5 s`, `250 ms`.
pub(crate) fn seconds(d: Duration) -> String {
    let ms = d.as_millis();
    let mut s = String::new();
    let _ = if ms < 1000 {
        write!(s, "{ms} ms")
    } else if ms % 1000 == 0 {
        write!(s, "{} s", ms / 1000)
    } else {
        write!(s, "{} s", d.as_secs_f64())
    };
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remaining_is_never_zero() {
        assert_eq!(remaining(Instant::now()), None);
        assert!(remaining(Instant::now() + Duration::from_secs(5)).is_some());
    }

    #[test]
    fn durations_read_as_people_write_them() {
        assert_eq!(seconds(Duration::from_secs(30)), "30 s");
        assert_eq!(seconds(Duration::from_millis(1500)), "1.5 s");
        assert_eq!(seconds(Duration::from_millis(250)), "250 ms");
    }
}
