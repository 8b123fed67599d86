//! The driver's own words for a failed call (CUDA 12.9's error log management; looked up):
//! the messages an [`Error`](crate::Error) takes as its detail.
//!
//! [`Driver::init`](crate::Driver::init) registers, once per process, this module's callback for the
//! driver's log messages (`cuLogsRegisterCallback`). It runs only when the driver logs, which it
//! does when a call fails: it keeps the messages on the calling thread. The error of the next
//! failed call on that thread takes them as its detail, so "invalid value" reads "invalid
//! value: … block size …". Nothing is read or kept on the hot path; on drivers before 12.9
//! errors have no driver log.

use crate::ffi;
use core::cell::RefCell;
use core::ffi::{c_char, c_void};
use std::sync::OnceLock;

/// Whether the callback is registered (set once, by the first successful `Driver::init`).
pub(crate) static REGISTERED: OnceLock<bool> = OnceLock::new();
/// Held while the callback is being registered, so that it is registered once.
pub(crate) static REGISTERING: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// At most this many messages wait on a thread for the next error; older ones are dropped.
const KEPT: usize = 8;

thread_local! {
    static PENDING: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

/// The callback the driver calls with each log message, on the thread whose call logged it.
///
/// # Safety
///
/// `message` must be valid for reads of `length` bytes (the driver's contract).
pub(crate) unsafe extern "C" fn on_log(
    _data: *mut c_void,
    _level: ffi::CUlogLevel,
    message: *mut c_char,
    length: usize,
) {
    if message.is_null() {
        return;
    }
    // SAFETY: the driver passes `length` readable bytes at `message`.
    let bytes = unsafe { core::slice::from_raw_parts(message.cast::<u8>(), length) };
    let text = String::from_utf8_lossy(bytes)
        .trim_end_matches(['\0', '\n'])
        .to_owned();
    // Never unwind into the driver; a thread being torn down just loses the message.
    let _ = std::panic::catch_unwind(move || {
        let _ = PENDING.try_with(|p| {
            let mut p = p.borrow_mut();
            if p.len() == KEPT {
                p.remove(0);
            }
            p.push(text);
        });
    });
}

/// The driver's messages since this thread's last failed call, joined; `None` if there are
/// none (or no callback is registered).
pub(crate) fn take() -> Option<String> {
    if !REGISTERED.get().copied().unwrap_or(false) {
        return None;
    }
    PENDING
        .try_with(|p| {
            let lines = core::mem::take(&mut *p.borrow_mut());
            (!lines.is_empty()).then(|| lines.join("; "))
        })
        .ok()
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::{KEPT, PENDING, on_log};
    use crate::ffi;

    fn log(text: &[u8]) {
        // SAFETY: `text` is readable for its length across the call, as the driver promises.
        unsafe {
            on_log(
                core::ptr::null_mut(),
                ffi::CU_LOG_LEVEL_ERROR,
                text.as_ptr().cast_mut().cast(),
                text.len(),
            );
        }
    }

    /// The callback, with this test in the driver's place: each message is kept on the calling
    /// thread without its trailing NUL or newline, the newest `KEPT` of them.
    #[test]
    fn the_log_callback_keeps_the_newest_messages_on_its_thread() {
        PENDING.with(|p| p.borrow_mut().clear());
        log(b"invalid block size\n\0");
        // SAFETY: a null message is ignored before anything is read.
        unsafe { on_log(core::ptr::null_mut(), 0, core::ptr::null_mut(), 5) };
        assert_eq!(PENDING.with(|p| p.borrow().clone()), ["invalid block size"]);
        for i in 0..KEPT + 2 {
            log(format!("message {i}").as_bytes());
        }
        let kept = PENDING.with(|p| p.borrow().clone());
        assert_eq!(kept.len(), KEPT);
        assert_eq!(kept.first().map(String::as_str), Some("message 2"));
        let other = std::thread::spawn(|| PENDING.with(|p| p.borrow().len()));
        assert_eq!(
            other.join().ok(),
            Some(0),
            "another thread's messages are its own"
        );
    }
}
