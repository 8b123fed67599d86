//! The restricted safety profile without a GPU (R22): a process forked after `Profile::init`
//! refuses in the child, whether or not the parent found a driver.

use custack::safety::Budget;
#[cfg(unix)]
use custack::{ErrorKind, safety::Profile};

/// CUDA-1.6: the child of a fork must exec before any CUDA call; custack refuses until then.
/// `Profile::init` registers the fork handler before it asks the driver, so this holds on a
/// machine without a GPU (where the parent's init fails) and with one.
#[test]
#[cfg(unix)]
fn a_child_forked_after_profile_init_is_refused() {
    let parent = Profile::init(1);
    if let Err(e) = &parent {
        assert_ne!(
            e.kind(),
            ErrorKind::ForkedProcess,
            "the parent is not refused: {e}"
        );
    }
    // SAFETY: the child only calls `Profile::init`, which refuses before any driver call, and
    // `_exit`s.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork failed");
    if pid == 0 {
        let refused = matches!(Profile::init(1), Err(e) if e.kind() == ErrorKind::ForkedProcess);
        // SAFETY: ends the child at once, running nothing of the parent's.
        unsafe { libc::_exit(i32::from(!refused)) };
    }
    let mut status = 0;
    // SAFETY: waits for the child just forked; `status` is a valid out-pointer.
    assert_eq!(unsafe { libc::waitpid(pid, &raw mut status, 0) }, pid);
    assert!(libc::WIFEXITED(status), "the child did not exit: {status}");
    assert_eq!(
        libc::WEXITSTATUS(status),
        0,
        "the forked child was not refused"
    );
    // And the parent still is not.
    if let Err(e) = Profile::init(1) {
        assert_ne!(e.kind(), ErrorKind::ForkedProcess, "{e}");
    }
}

#[test]
fn a_budget_states_its_page_locked_bytes() {
    assert_eq!(Budget::page_locked(3 << 20).page_locked_bytes(), 3 << 20);
    assert_ne!(Budget::page_locked(1), Budget::page_locked(2));
}
