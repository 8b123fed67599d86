//! [`Declared`]: a kernel looked up with its contract, the contract checked against the kernel
//! at lookup ([`CheckedBy`]), from a module or a library ([`KernelSource`]).

use crate::asynchronous::payload::{Payload, copied_forms, sealed as payload_sealed};
#[cfg(doc)]
use crate::asynchronous::scope::StreamScope;
use crate::error::{Error, ErrorKind, Result};
use crate::kernel::contract::kinds::Contract;
use crate::kernel::launch::{Function, KernelSignature};
use crate::kernel::library::LibraryFunction;
use crate::kernel::module::Module;
use crate::kernel::ptx;
use core::marker::PhantomData;

/// How a [`Declared`] kernel's parameter list was checked against the kernel when it was looked
/// up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CheckedBy {
    /// Against the driver's parameter information (`cuFuncGetParamInfo`, CUDA 12.4+): the
    /// number of parameters, and each one's offset and size.
    ParamInfo,
    /// Against the `.entry`'s `.param` list in the PTX text the module was loaded from, or, for
    /// a program NVRTC compiled, NVRTC's PTX kept beside its cubin (a driver before CUDA 12.4):
    /// the number of parameters, and each one's size and offset.
    Ptx,
    /// Not checked: the driver cannot tell the kernel's parameters, and custack has no PTX of
    /// the module (a cubin, a fatbin, an adopted module). The declaration is
    /// then its author's word alone.
    Unchecked,
}

mod source_sealed {
    pub trait Sealed {}
}

/// Where a [`Declared`] kernel's function comes from: a [`Module`] ([`FromModule`]) or a
/// [`Library`](crate::Library) ([`FromLibrary`]). Sealed.
pub trait KernelSource: source_sealed::Sealed + 'static {}

/// A [`Declared`] kernel of a [`Module`] ([`Module::declared`]): it travels like a
/// [`Function`], as a payload of submissions and graphs, and parks (its module synchronizes
/// before it unloads or lends a global). Never constructed.
#[derive(Debug)]
pub enum FromModule {}
/// A [`Declared`] kernel of a [`Library`](crate::Library) ([`LibraryFunction::declared`]):
/// like the [`LibraryFunction`] it comes from, it launches in borrowing scopes only, not in
/// submissions or graphs, which could carry it past the library's unload (C20). Never
/// constructed.
#[derive(Debug)]
pub enum FromLibrary {}
impl source_sealed::Sealed for FromModule {}
impl KernelSource for FromModule {}
impl source_sealed::Sealed for FromLibrary {}
impl KernelSource for FromLibrary {}

/// A kernel looked up with its [`Contract`]: launched safely with [`StreamScope::run`],
/// [`run_with`](StreamScope::run_with), [`run_cooperative`](StreamScope::run_cooperative) and
/// [`run_clustered`](StreamScope::run_clustered).
///
/// `S` says where its function comes from: a module ([`FromModule`], the default, from
/// [`Module::declared`]), launched in scopes, submissions and graph captures; or a library
/// ([`FromLibrary`], written [`DeclaredLibrary`], from [`LibraryFunction::declared`]), launched
/// in scopes only (C20).
///
/// `Copy`; borrows its module (or library) like [`Function`], so it cannot outlive it (C9),
/// and is lent under the guard it was looked up with, so it is not launched under another
/// context (C23).
pub struct Declared<'m, C: Contract, S: KernelSource = FromModule> {
    /// Launched by the `run*` methods (`run.rs`).
    pub(super) function: Function<'m>,
    checked: CheckedBy,
    _contract: PhantomData<fn() -> (C, S)>,
}

/// A library kernel's function ([`LibraryFunction`]) with its [`Contract`]
/// ([`LibraryFunction::declared`]): a [`Declared`] kernel [`FromLibrary`], launched in
/// borrowing scopes only (C20), under the guard that lent it.
pub type DeclaredLibrary<'a, C> = Declared<'a, C, FromLibrary>;

impl<C: Contract, S: KernelSource> core::fmt::Debug for Declared<'_, C, S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Declared")
            .field("kernel", &C::KERNEL)
            .field("function", &self.function)
            .field("checked", &self.checked)
            .finish()
    }
}
impl<C: Contract, S: KernelSource> Clone for Declared<'_, C, S> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<C: Contract, S: KernelSource> Copy for Declared<'_, C, S> {}

static_assertions::assert_not_impl_any!(Declared<'static, NoContract>: Send, Sync);
static_assertions::assert_not_impl_any!(DeclaredLibrary<'static, NoContract>: Send, Sync);

/// A contract for the static assertions above.
#[cfg_attr(not(test), allow(dead_code))]
struct NoContract;
// SAFETY: never launched: only named by a static assertion.
unsafe impl Contract for NoContract {
    const KERNEL: &'static str = "";
    const PARAMS: &'static [&'static str] = &[];
    type Signature = ();
}

impl<C: Contract, S: KernelSource> Declared<'_, C, S> {
    /// How the declaration was checked against the kernel at lookup: by the driver's parameter
    /// information, the PTX `.entry` (a module loaded from PTX), or not at all.
    pub fn checked_by(&self) -> CheckedBy {
        self.checked
    }

    /// Checks `C` against `function` and declares it: against the driver's parameter
    /// information, asking for `count` parameters where the driver cannot count them (the
    /// kernel's own `.entry` says so), or where the driver cannot tell at all, against
    /// `from_ptx`, the `.entry` of the PTX its module was loaded from.
    fn check(
        function: Function<'_>,
        from_ptx: Option<Vec<ptx::PtxParam>>,
        count: Option<usize>,
    ) -> Result<Self> {
        let checked = match function.param_layout_of(count) {
            Ok(layout) => {
                compare::<C>("the driver's parameter information", &layout)?;
                CheckedBy::ParamInfo
            }
            Err(e) if e.kind() == ErrorKind::DriverTooOld => match from_ptx {
                Some(params) => {
                    compare::<C>("the PTX .entry", &c_layout(&params))?;
                    CheckedBy::Ptx
                }
                None => CheckedBy::Unchecked,
            },
            Err(e) => return Err(e),
        };
        Ok(Self {
            // SAFETY: the same function; the caller ties the result's lifetime to its module or
            // library.
            function: unsafe { Function::from_raw(function.as_raw()) },
            checked,
            _contract: PhantomData,
        })
    }
}

impl<'m, C: Contract> Declared<'m, C> {
    /// The kernel as an unchecked [`Function`] (for the `unsafe` launches, or its attributes).
    /// Only for a module's kernel: a library's function is not a payload (C20).
    pub fn function(&self) -> Function<'m> {
        self.function
    }

    /// The raw `CUfunction`.
    pub fn as_raw(&self) -> crate::ffi::CUfunction {
        self.function.as_raw()
    }
}

impl Module<'_> {
    /// `cuModuleGetFunction`, `cuFuncGetParamInfo`—The kernel of the contract `C`
    /// ([`kernel_contract!`](crate::kernel_contract)), its parameter list checked against the
    /// kernel once, here: against the driver's parameter information where the driver has it
    /// (CUDA 12.4, looked up), otherwise against the PTX `.entry` if this module was loaded from
    /// PTX by custack ([`load_ptx`](crate::PushedGuard::load_ptx),
    /// [`load_ptx_with`](crate::PushedGuard::load_ptx_with)) or compiled by NVRTC
    /// (`load_compiled`, feature `nvrtc`). Where neither can tell (a cubin
    /// on an older driver), the contract is not checked: [`Declared::checked_by`] says which.
    ///
    /// The check compares the number of parameters and each one's size and offset; it cannot
    /// tell `u32` from `f32`, a pointer from a `u64`, or what the kernel does with its buffers:
    /// that is the declaration's promise.
    ///
    /// No driver call of the check fails, so tools that report API errors (compute-sanitizer
    /// by default) stay quiet: the driver is asked about exactly as many parameters as the
    /// kernel has, counted by the driver (`cuFuncGetParamCount`, CUDA 13.2, looked up) or, on
    /// an older driver, by the PTX `.entry` of a module loaded from PTX. Only a module that is
    /// not (a cubin, a fatbin, an adopted module) on a driver before 13.2 is probed one index
    /// past its last parameter, which the driver refuses with `CUDA_ERROR_INVALID_VALUE` (its
    /// answer, not an error of the program; such a tool shows it).
    ///
    /// # Errors
    ///
    /// As [`function`](Self::function);
    /// [`ErrorKind::KernelSignatureMismatch`] naming the first parameter that differs (R13).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EXEC.html>
    #[doc(alias = "cuFuncGetParamInfo")]
    #[doc(alias = "cuFuncGetParamCount")]
    pub fn declared<C: Contract>(&self) -> Result<Declared<'_, C>> {
        let function = self.function(C::KERNEL)?;
        // The PTX's own parameter list, if custack loaded the module from PTX: where the driver
        // cannot count parameters, it says how many to ask for (so that no query fails).
        let from_ptx = self
            .ptx()
            .and_then(|ptx| ptx::entry_params(ptx, self.symbol(C::KERNEL)));
        let count = from_ptx.as_ref().map(Vec::len);
        Declared::check(function, from_ptx, count)
    }
}

/// Checks `C` against the `.entry` of `symbol` in `ptx` (NVRTC's output, before any module is
/// loaded): [`ErrorKind::NotFound`] if there is no such entry.
#[cfg_attr(not(feature = "nvrtc"), allow(dead_code))]
pub(crate) fn check_ptx<C: Contract>(ptx: &[u8], symbol: &str) -> Result<()> {
    let params = ptx::entry_params(ptx, symbol).ok_or_else(|| {
        Error::custack(
            ErrorKind::NotFound,
            format!("kernel {:?}: no .entry {symbol:?} in the PTX", C::KERNEL),
        )
    })?;
    compare::<C>("the PTX .entry", &c_layout(&params))
}

/// PTX parameters laid out as C lays out a parameter list: `(offset, size)`.
fn c_layout(params: &[ptx::PtxParam]) -> Vec<(usize, usize)> {
    let mut end = 0usize;
    params
        .iter()
        .map(|p| {
            // An alignment of 0 or an overflow (from a malformed PTX) gives an offset no kernel
            // has, so the comparison reports a mismatch instead of panicking.
            let offset = end.checked_next_multiple_of(p.align).unwrap_or(usize::MAX);
            end = offset.saturating_add(p.size);
            (offset, p.size)
        })
        .collect()
}

/// Compares the kernel's `(offset, size)` list, read from `source`, with `C`'s declaration.
fn compare<C: Contract>(source: &str, kernel: &[(usize, usize)]) -> Result<()> {
    let declared = <C::Signature as KernelSignature>::LAYOUT;
    let mismatch = |detail: String| {
        Err(Error::custack(
            ErrorKind::KernelSignatureMismatch,
            format!(
                "kernel {:?} does not match its contract ({source}): {detail}",
                C::KERNEL
            ),
        ))
    };
    if kernel.len() != declared.len() {
        return mismatch(format!(
            "the kernel takes {} parameters, the contract declares {} ({})",
            kernel.len(),
            declared.len(),
            C::PARAMS.join(", ")
        ));
    }
    let types = <C::Signature as KernelSignature>::names();
    // The driver gives each offset in the device's parameter bank, whose start the
    // architecture chooses: on Hopper (sm_90) it is 0x210 bytes into constant bank 0, so a
    // 64-byte-aligned first parameter (a `CUtensorMap`) sits 112 bytes into the list, and every
    // later one as far along (measured on the H100, driver 580). The list is compared by sizes
    // and by offsets from where its first parameter sits: the kernel's order, sizes and gaps
    // must be the contract's. The launch passes each argument by pointer (`kernelParams`), the
    // driver placing it, so the shift never reaches a copy. A list whose padding the bank's
    // start changes in the middle (a 64-byte-aligned parameter after others) is refused here,
    // never passed wrongly.
    let shift = match (kernel.first(), declared.first()) {
        (Some(k), Some(d)) if k.0 >= d.0 => k.0 - d.0,
        _ => 0,
    };
    for (i, (k, d)) in kernel.iter().zip(declared).enumerate() {
        if (k.0.wrapping_sub(shift), k.1) != *d {
            let name = C::PARAMS.get(i).copied().unwrap_or("?");
            let ty = types.get(i).copied().unwrap_or("?");
            return mismatch(format!(
                "parameter {i} `{name}` is declared `{ty}`, {} bytes at offset {}, but the \
                 kernel's is {} bytes at offset {}",
                d.1, d.0, k.1, k.0
            ));
        }
    }
    Ok(())
}

impl<'a> LibraryFunction<'a> {
    /// `cuFuncGetParamInfo`—This function with the contract `C`, its parameter list checked
    /// against the kernel where the driver can tell (CUDA 12.4, looked up); unchecked before
    /// ([`DeclaredLibrary::checked_by`]). A contract is a promise about the kernel it names
    /// (`C::KERNEL`): the function's kernel must have been looked up by that name
    /// ([`Library::kernel`](crate::Library::kernel)), checked before the driver, so that one
    /// kernel's promise never launches another kernel of the library.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::KernelSignatureMismatch`] if the function's kernel is not `C::KERNEL` (or
    /// its name is not in the library's PTX), or naming the first parameter that differs;
    /// driver errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EXEC.html>
    #[doc(alias = "cuFuncGetParamInfo")]
    pub fn declared<C: Contract>(&self) -> Result<DeclaredLibrary<'a, C>> {
        // The contract's promise is about the kernel it names; the function may be any kernel
        // of the library, whose parameters may even lay out alike (and before driver 12.4
        // nothing is compared), so its name is.
        if self.kernel_name() != Some(C::KERNEL) {
            return Err(Error::custack(
                ErrorKind::KernelSignatureMismatch,
                format!(
                    "the contract declares kernel {:?}, but this library function is kernel {}: \
                     a contract holds only for the kernel it names",
                    C::KERNEL,
                    self.kernel_name().map_or_else(
                        || "whose name is not in the library's PTX".to_owned(),
                        |n| format!("{n:?}")
                    )
                ),
            ));
        }
        // SAFETY: the same function, for the same lifetime: its library outlives `'a`.
        let function = unsafe { Function::from_raw(self.as_raw()) };
        // Not checked against the PTX (an older driver leaves it unchecked), but its `.entry`
        // in the library's PTX, found by the name the kernel was looked up with, says how many
        // parameters to ask the driver for.
        Declared::check(function, None, self.entry_param_count())
    }
}

impl<C: Contract> payload_sealed::Sealed for Declared<'_, C> {}
impl<'f, C: Contract> Payload for Declared<'f, C> {
    type Bound<'scope> = Declared<'scope, C>;
    copied_forms!(Declared<'f, C>);
    #[inline]
    unsafe fn bind<'scope>(held: &mut Self) -> Declared<'scope, C> {
        Declared {
            // SAFETY: as for `Function`: the submission or graph holds the declared kernel, and
            // so the borrow of its module, until its work is complete.
            function: unsafe { Function::from_raw(held.function.as_raw()) },
            checked: held.checked,
            _contract: PhantomData,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::compare;
    use crate::error::ErrorKind;
    use crate::kernel::contract::kinds::Contract;

    crate::kernel_contract! {
        /// For the tests.
        unsafe kernel AddU32 = "add_u32"(x: &mut [u32; n], k: u32, n: u32);
        /// No parameters.
        unsafe kernel Empty = "empty"();
    }

    #[test]
    fn a_declaration_that_disagrees_is_named() {
        assert_eq!(AddU32::KERNEL, "add_u32");
        assert_eq!(AddU32::PARAMS, ["x", "k", "n"]);
        assert!(compare::<Empty>("t", &[]).is_ok());
        assert!(compare::<AddU32>("t", &[(0, 8), (8, 4), (12, 4)]).is_ok());
        let e = compare::<AddU32>("t", &[(0, 8), (8, 8), (16, 4)]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::KernelSignatureMismatch);
        assert!(
            e.to_string().contains("parameter 1 `k` is declared `u32`"),
            "{e}"
        );
        // Shifted as a whole (the parameter bank's start), the list is the contract's; shifted
        // in part, it is not.
        assert!(compare::<AddU32>("t", &[(112, 8), (120, 4), (124, 4)]).is_ok());
        let e = compare::<AddU32>("t", &[(112, 8), (124, 4), (128, 4)]).unwrap_err();
        assert!(
            e.to_string().contains("parameter 1 `k` is declared `u32`"),
            "{e}"
        );
        let e = compare::<AddU32>("t", &[(0, 8), (8, 4)]).unwrap_err();
        assert!(
            e.to_string()
                .contains("the kernel takes 2 parameters, the contract declares 3 (x, k, n)"),
            "{e}"
        );
    }
}
