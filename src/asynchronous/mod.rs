//! The asynchronous layer: everything that enqueues work on a stream and decides when the host
//! may touch what that work uses.
//!
//! - [`Stream::scope`](crate::Stream::scope) ([`scope`]): work that *borrows* its memory, with
//!   one `cuStreamSynchronize` at the end of a closure. Scopes nest; they cannot overlap.
//! - [`Stream::submit`](crate::Stream::submit) ([`submission`]): work that *owns* its memory,
//!   moved in and handed back by [`Submission::wait`](crate::Submission::wait), so lifetimes
//!   overlap without nesting (rolling pipelines over several streams); submissions on other
//!   streams take it over with a GPU-side wait.
//!
//! - [`StreamScope::host_fn`](crate::StreamScope::host_fn) ([`host`]): a Rust closure the driver
//!   calls in stream order, its panics caught and reported by the next wait.
//!
//! - [`Stream::capture`](crate::Stream::capture) ([`graph`]): the same work captured into a
//!   graph that owns its payload, instantiated, and launched as a submission or in a scope.
//!
//! All of them enqueue through one type, [`StreamScope`](crate::StreamScope): every asynchronous
//! operation (copies, memsets, stream-ordered allocation, events, launches) is written once and
//! is available to scopes and submissions alike.

pub(crate) mod graph;
pub(crate) mod host;
pub(crate) mod scope;
pub(crate) mod submission;
