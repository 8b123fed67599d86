//! External resource interoperability (`cuImportExternalMemory`, `cuImportExternalSemaphore`):
//! memory and semaphores another API made (Vulkan, through `VK_KHR_external_memory_fd` and
//! `VK_KHR_external_semaphore_fd`) imported into the current context from a file descriptor.
//!
//! The types carry the order the driver needs:
//!
//! - an import ([`ExternalMemory`], [`ExternalSemaphore`]) is lent by a guard: it borrows the
//!   guard and cannot outlive the context it was imported into (C30);
//! - a buffer mapped onto imported memory ([`MappedBuffer`]) borrows the import exclusively, so
//!   it is freed (`cuMemFree`) before the import is destroyed, and is device memory like any
//!   other ([`DeviceMemory`](crate::DeviceMemory), [`DeviceMemoryMut`](crate::DeviceMemoryMut)):
//!   bound in a scope, passed to kernels and launch contracts, copied, viewed; a mipmapped array
//!   mapped onto it ([`MappedArray`]) is a [`MipmappedArray`](crate::MipmappedArray) that
//!   borrows the import the same way (C30); the import counts the mappings the driver may
//!   still hold, and where one's release fails or it is leaked (`mem::forget`), the import is
//!   left behind rather than destroyed under it (C30); a `MappedArray` never lends
//!   `&mut MipmappedArray`, so safe code cannot swap the mapped array out of it;
//! - the file descriptor is an [`OwnedFd`](std::os::fd::OwnedFd), moved in: the driver owns it
//!   once the import succeeds, custack closes it when the import fails, never both (C30);
//! - a semaphore is waited on or signalled only in a [`StreamScope`](crate::StreamScope), which
//!   borrows it until the scope's end has waited for the stream: the one wait the host makes,
//!   bounded as every scope's is ([`Stream::scope_by`](crate::Stream::scope_by)): a wait for a
//!   value the other API never signals meets the scope's [`Overrun`](crate::Overrun) past the
//!   deadline, as any scope's work does (C31).
//!
//! Linux only (file descriptors). Outside the restricted profile: the memory's other user is
//! outside custack's types, so importing memory is `unsafe`.

mod memory;
mod semaphore;

pub use memory::{ExternalMemory, MappedArray, MappedArrayFlags, MappedBuffer, MemoryHandle};
pub use semaphore::{Binary, ExternalSemaphore, SemaphoreKind, Timeline};
