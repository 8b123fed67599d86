//! custack: the CUDA driver API with the context stack in the type system.
#![cfg_attr(docsrs, feature(doc_cfg))]

#[path = "../ffi/mod.rs"]
#[allow(missing_docs, unreachable_pub)]
pub mod ffi;

mod error;
pub use error::{Error, ErrorKind, Result, take_drop_errors};
