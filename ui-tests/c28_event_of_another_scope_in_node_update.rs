//! C28.11 event node updates: `set_record_event` and `set_wait_event` take a
//! `ScopedEvent<'u>`, an event the executable graph's payload shares, bound for the update's
//! invariant `'u`: an event bound for another scope (another build's, or a submission's) is
//! refused, so every event a node records is one the executable graph keeps alive, of the
//! context its payload was bound under.
//! Positive twin: `an_event_record_node_updated_in_place_records_the_new_event` in
//! `tests/gpu_graph_exec.rs`.
use custack::ScopedEvent;
use custack::graph::NodeUpdater;

/// An event bound for a scope `'a`, handed to the updater of `'u`.
fn record_another<'a, 'u>(
    u: &'u NodeUpdater<'u>,
    event: &ScopedEvent<'a>,
) -> Result<(), custack::Error> {
    u.set_record_event(u.record_node(0)?, event) //~ ERROR lifetime may not live long enough
}

fn main() {
    let _ = record_another;
}
