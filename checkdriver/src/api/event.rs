//! Models `cuda.h` "Event Management" (`group__CUDA__EVENT`): events recorded on a stream, queried,
//! waited for and timed.

use super::common::{new_handle, out};
use super::types::{CUDA_ERROR_NOT_READY, CUDA_SUCCESS, Handle};
use crate::check::{self, Kind};
use crate::load::hang_exit;
use core::ffi::c_uint;

entry_points! {
    fn cuEventCreate(event: *mut Handle, flags: c_uint) { new_handle(event, Kind::Event) }
    fn cuEventRecord(event: Handle, stream: Handle) {
        check::used(Kind::Event, event as usize, "cuEventRecord");
        check::used(Kind::Stream, stream as usize, "cuEventRecord");
        check::event_recorded(event as usize, stream as usize);
        CUDA_SUCCESS
    }
    fn cuEventQuery(event: Handle) {
        check::used_from_any_context(Kind::Event, event as usize, "cuEventQuery");
        if check::event_hung(event as usize) {
            return CUDA_ERROR_NOT_READY;
        }
        check::progress();
        // Success says the work before the event is done: it is, from now on.
        check::event_synchronized(event as usize);
        CUDA_SUCCESS
    }
    fn cuEventSynchronize(event: Handle) {
        check::used_from_any_context(Kind::Event, event as usize, "cuEventSynchronize");
        if check::event_hung(event as usize) {
            hang_exit("cuEventSynchronize".to_owned());
        }
        check::event_synchronized(event as usize);
        CUDA_SUCCESS
    }
    fn cuEventDestroy_v2(event: Handle) {
        let _ = check::destroyed(Kind::Event, event as usize, "cuEventDestroy");
        CUDA_SUCCESS
    }
    fn cuEventElapsedTime(ms: *mut f32, start: Handle, end: Handle) { out(ms, 0.001); CUDA_SUCCESS }
    fn cuEventElapsedTime_v2(ms: *mut f32, start: Handle, end: Handle) { out(ms, 0.001); CUDA_SUCCESS }
}
