//! The profile's one loading path: a cubin checked for what the safety subset excludes, then
//! `cuModuleLoadData` without options.

use crate::context::stack::PushedGuard;
use crate::error::{Error, ErrorKind, Result};
use crate::ffi;
use crate::kernel::image::{check_elf, u16_at, u32_at, u64_at};
use crate::kernel::module::Module;

/// `e_machine` of a CUDA ELF image.
const EM_CUDA: u16 = 190;
/// `sh_type` of a symbol table.
const SHT_SYMTAB: u32 = 2;
/// The size of an ELF64 symbol.
const SYM_BYTES: usize = 24;

/// The names (prefixes) of the device runtime's entry points that launch or wait from the
/// device (dynamic parallelism, device graph launch): an image referencing one needs the device
/// runtime, which the safety subset excludes (CUDA SAFETY 3.2). `cudaGraphSetConditional`,
/// which a kernel of a graph calls to set a conditional node's condition, is not one of them:
/// it launches nothing, and the driver resolves it when it loads the cubin (nothing is linked).
const DEVICE_RUNTIME: &[&str] = &[
    "cudaLaunchDevice",
    "cudaGetParameterBuffer",
    "cudaGraphLaunch",
    "cudaDeviceSynchronize",
    "cudaStreamCreateWithFlags",
    "__cudaCDP",
];

/// The device-side functions whose first launch makes the driver allocate on the device: the
/// heap of `malloc` and `free` (`CU_LIMIT_MALLOC_HEAP_SIZE`) and the FIFO of `printf`
/// (`vprintf`, `CU_LIMIT_PRINTF_FIFO_SIZE`). A cubin that calls one (an undefined symbol of that
/// exact name) would allocate in the run phase, where nothing is made.
const DEVICE_ALLOCATING: &[&str] = &["malloc", "free", "vprintf"];

fn outside(what: String) -> Error {
    Error::custack(ErrorKind::OutsideProfile, what)
}

/// Refuses what the profile does not load: anything but a cubin (PTX, a fatbin), a cubin that is
/// not for the CUDA machine or lies beyond `image`, a cubin that references the device runtime.
pub(crate) fn check_restricted(image: &[u8]) -> Result<()> {
    if !image.starts_with(b"\x7fELF") {
        let what = if image.get(..4) == Some(&0xBA55_ED50u32.to_le_bytes()[..]) {
            "a fatbin: it may carry PTX that the driver compiles when no cubin matches, and \
             compressed code that cannot be checked; build one cubin per architecture instead \
             (nvcc -cubin -arch=sm_XY, for each device the program runs on) and load the one \
             that Device::compute_capability names"
        } else if image.starts_with(b"//") || image.starts_with(b".version") {
            "PTX, which the driver compiles at load time (JIT); build a cubin ahead of time \
             (nvcc -cubin -arch=sm_XY)"
        } else {
            "not a cubin (no ELF magic)"
        };
        return Err(outside(format!(
            "the restricted profile loads cubins only: {what}"
        )));
    }
    check_elf(image)?;
    let machine = u16_at(image, 0x12).unwrap_or(0);
    if machine != EM_CUDA {
        return Err(outside(format!(
            "an ELF image for machine {machine}, not a cubin (EM_CUDA, {EM_CUDA})"
        )));
    }
    let runtime = |name: &[u8], _: bool| {
        DEVICE_RUNTIME
            .iter()
            .any(|p| name.starts_with(p.as_bytes()))
    };
    if let Some(symbol) = first_symbol(image, runtime) {
        return Err(outside(format!(
            "the cubin references the device runtime's `{symbol}`: a kernel that launches \
             from the device is outside the safety subset"
        )));
    }
    let allocating = |name: &[u8], undefined: bool| {
        undefined && DEVICE_ALLOCATING.iter().any(|f| name == f.as_bytes())
    };
    if let Some(symbol) = first_symbol(image, allocating) {
        return Err(outside(format!(
            "the cubin calls `{symbol}` on the device: the driver allocates device-side \
             malloc's heap and printf's FIFO at the first launch that uses them, which would be \
             in the run phase; build the kernels without device-side malloc, free and printf"
        )));
    }
    Ok(())
}

/// The first symbol of the image's symbol tables that `wanted` picks, given its name and
/// whether it is undefined (`st_shndx` 0: a function the cubin calls but does not hold). The
/// image passed `check_elf`, so its section table and every section lie within it; every read
/// here is bounds-checked anyway, and a table that does not parse holds no symbol.
fn first_symbol(image: &[u8], wanted: impl Fn(&[u8], bool) -> bool) -> Option<String> {
    let shoff = usize::try_from(u64_at(image, 0x28)?).ok()?;
    let shentsize = usize::from(u16_at(image, 0x3a)?);
    let shnum = usize::from(u16_at(image, 0x3c)?);
    let section = |k: usize| -> Option<(u32, usize, usize, usize)> {
        let at = shoff.checked_add(k.checked_mul(shentsize)?)?;
        Some((
            u32_at(image, at.checked_add(4)?)?,
            usize::try_from(u64_at(image, at.checked_add(0x18)?)?).ok()?,
            usize::try_from(u64_at(image, at.checked_add(0x20)?)?).ok()?,
            usize::try_from(u32_at(image, at.checked_add(0x28)?)?).ok()?,
        ))
    };
    for k in 0..shnum {
        let Some((SHT_SYMTAB, offset, size, link)) = section(k) else {
            continue;
        };
        let (_, str_offset, str_size, _) = section(link)?;
        let strings = image.get(str_offset..str_offset.checked_add(str_size)?)?;
        let symbols = image.get(offset..offset.checked_add(size)?)?;
        for symbol in symbols.chunks_exact(SYM_BYTES) {
            let name_at = usize::try_from(u32_at(symbol, 0)?).ok()?;
            let name = strings.get(name_at..)?;
            let name = name.get(..name.iter().position(|&b| b == 0)?)?;
            let undefined = u16_at(symbol, 6)? == 0;
            if wanted(name, undefined) {
                return Some(String::from_utf8_lossy(name).into_owned());
            }
        }
    }
    None
}

/// `cuModuleLoadData` of a checked cubin; an image for another architecture names the
/// device's.
///
/// # Safety
///
/// `image` is a complete, well-formed cubin (the caller's promise to
/// [`InitPhase::load_cubin`](crate::safety::InitPhase::load_cubin)), and `guard`'s context is current.
pub(crate) unsafe fn load_module<'g>(
    guard: &'g PushedGuard<'g, 'g>,
    image: &[u8],
) -> Result<Module<'g>> {
    let mut raw = core::ptr::null_mut();
    // SAFETY: `raw` is a valid out-pointer; `image` is a well-formed cubin (the caller), whose
    // sections lie within the slice (checked); the guard's context is current.
    let loaded = unsafe { ffi::cuModuleLoadData(&raw mut raw, image.as_ptr().cast()) }.result();
    match loaded {
        Ok(()) => {
            let _ = guard;
            // SAFETY: a module just loaded into the current context, owned by nobody else.
            Ok(unsafe { Module::from_raw(raw) })
        }
        Err(e) if e.code() == Some(ffi::CUresult::CUDA_ERROR_NO_BINARY_FOR_GPU) => {
            let device = guard
                .device()
                .and_then(crate::driver::Device::compute_capability);
            Err(e.with_detail(match device {
                Ok(cc) => {
                    let sm = format!("sm_{}{}", cc.major, cc.minor);
                    format!(
                        "the cubin holds no code for {sm}: build it for this device \
                         (nvcc -cubin -arch={sm})"
                    )
                }
                // The query's own failure is said, not lost.
                Err(query) => format!(
                    "the cubin holds no code for this device: build it for its architecture \
                     (nvcc -cubin -arch=sm_XY); reading the device's compute capability failed \
                     too: {query}"
                ),
            }))
        }
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A minimal cubin: ELF64 header, `.shstrtab`, `.strtab`, `.symtab` with the names given.
    fn cubin(machine: u16, names: &[&str]) -> Vec<u8> {
        let mut strtab = vec![0u8];
        let mut offsets = Vec::new();
        for name in names {
            offsets.push(u32::try_from(strtab.len()).unwrap());
            strtab.extend_from_slice(name.as_bytes());
            strtab.push(0);
        }
        let shstrtab = b"\0.shstrtab\0.strtab\0.symtab\0".to_vec();
        let mut symtab = vec![0u8; SYM_BYTES];
        for offset in &offsets {
            let mut sym = [0u8; SYM_BYTES];
            sym[..4].copy_from_slice(&offset.to_le_bytes());
            sym[4] = 0x10; // STB_GLOBAL, STT_NOTYPE: undefined
            symtab.extend_from_slice(&sym);
        }
        let mut image = vec![0u8; 64];
        image[..4].copy_from_slice(b"\x7fELF");
        image[4] = 2; // ELFCLASS64
        image[5] = 1; // little-endian
        image[6] = 1;
        image[0x10..0x12].copy_from_slice(&2u16.to_le_bytes());
        image[0x12..0x14].copy_from_slice(&machine.to_le_bytes());
        let place = |bytes: &[u8], image: &mut Vec<u8>| {
            let at = image.len();
            image.extend_from_slice(bytes);
            at
        };
        let shstr_at = place(&shstrtab, &mut image);
        let str_at = place(&strtab, &mut image);
        let sym_at = place(&symtab, &mut image);
        let shoff = image.len();
        let header = |name: u32, kind: u32, offset: usize, size: usize, link: u32| {
            let mut h = [0u8; 64];
            h[..4].copy_from_slice(&name.to_le_bytes());
            h[4..8].copy_from_slice(&kind.to_le_bytes());
            h[0x18..0x20].copy_from_slice(&(offset as u64).to_le_bytes());
            h[0x20..0x28].copy_from_slice(&(size as u64).to_le_bytes());
            h[0x28..0x2c].copy_from_slice(&link.to_le_bytes());
            h[0x38..0x40].copy_from_slice(
                &(if kind == SHT_SYMTAB { SYM_BYTES } else { 0 } as u64).to_le_bytes(),
            );
            h
        };
        image.extend_from_slice(&[0u8; 64]);
        image.extend_from_slice(&header(1, 3, shstr_at, shstrtab.len(), 0));
        image.extend_from_slice(&header(11, 3, str_at, strtab.len(), 0));
        image.extend_from_slice(&header(19, SHT_SYMTAB, sym_at, symtab.len(), 2));
        image[0x28..0x30].copy_from_slice(&(shoff as u64).to_le_bytes());
        image[0x3a..0x3c].copy_from_slice(&64u16.to_le_bytes());
        image[0x3c..0x3e].copy_from_slice(&4u16.to_le_bytes());
        image[0x3e..0x40].copy_from_slice(&1u16.to_le_bytes());
        image
    }

    #[test]
    fn a_plain_cubin_passes() {
        check_restricted(&cubin(EM_CUDA, &["frame_blur", "__cudart_table"])).unwrap();
    }

    #[test]
    fn a_cubin_that_launches_from_the_device_is_refused() {
        let e = check_restricted(&cubin(EM_CUDA, &["parent", "cudaLaunchDeviceV2"])).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::OutsideProfile);
        assert!(e.to_string().contains("cudaLaunchDeviceV2"), "{e}");
        let e = check_restricted(&cubin(EM_CUDA, &["cudaGetParameterBufferV2"])).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::OutsideProfile);
        // Every entry of the denylist, each alone (a mutant that drops one survives nothing):
        // the names nvcc's device runtime references, graph launch from the device included.
        for symbol in [
            "cudaLaunchDevice_ptsz",
            "cudaGetParameterBuffer",
            "cudaGraphLaunch",
            "cudaGraphLaunch_ptsz",
            "cudaDeviceSynchronize",
            "cudaStreamCreateWithFlags",
            "__cudaCDP2LaunchDevice",
        ] {
            let e = check_restricted(&cubin(EM_CUDA, &["kernel", symbol])).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::OutsideProfile, "{symbol}");
            assert!(e.to_string().contains(symbol), "{symbol}: {e}");
        }
        assert_eq!(DEVICE_RUNTIME.len(), 6, "a new entry gets a symbol above");
    }

    #[test]
    fn a_cubin_that_sets_a_graph_condition_passes_and_one_that_launches_a_graph_does_not() {
        // tests/fixtures/conditional.cu's kernels: `cudaGraphSetConditional` is their one
        // undefined symbol, which the driver resolves at load.
        let kernels = ["jacobi_check", "set_condition", "count_down"];
        let mut symbols = kernels.to_vec();
        symbols.push("cudaGraphSetConditional");
        check_restricted(&cubin(EM_CUDA, &symbols)).unwrap();
        // Device graph launch beside it stays refused.
        symbols.push("cudaGraphLaunch");
        let e = check_restricted(&cubin(EM_CUDA, &symbols)).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::OutsideProfile);
        assert!(e.to_string().contains("`cudaGraphLaunch`"), "{e}");
    }

    #[test]
    fn a_cubin_that_calls_device_malloc_or_printf_is_refused() {
        for f in ["malloc", "free", "vprintf"] {
            let e = check_restricted(&cubin(EM_CUDA, &["kernel", f])).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::OutsideProfile, "{f}");
            assert!(e.to_string().contains(&format!("calls `{f}`")), "{e}");
        }
        // Exact names only: a symbol that merely starts with one is another function.
        check_restricted(&cubin(
            EM_CUDA,
            &["freeze_frame", "mallocator", "vprintf_table"],
        ))
        .unwrap();
    }

    #[test]
    fn ptx_fatbins_and_other_machines_are_refused() {
        let ptx = b".version 6.0\n.target sm_50\n.address_size 64\n";
        let e = check_restricted(ptx).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::OutsideProfile);
        assert!(e.to_string().contains("PTX"), "{e}");
        let mut fatbin = 0xBA55_ED50u32.to_le_bytes().to_vec();
        fatbin.extend_from_slice(&[0; 12]);
        let e = check_restricted(&fatbin).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::OutsideProfile);
        assert!(e.to_string().contains("fatbin"), "{e}");
        // The refusal names the fix: a cubin per architecture, chosen by the device.
        assert!(e.to_string().contains("nvcc -cubin -arch=sm_"), "{e}");
        assert!(e.to_string().contains("compute_capability"), "{e}");
        let e = check_restricted(&cubin(62, &["f"])).unwrap_err();
        assert!(e.to_string().contains("machine 62"), "{e}");
        // PTX as nvcc writes it, opening with a comment; and what is neither.
        let e = check_restricted(b"//\n// Generated by NVIDIA NVVM Compiler\n").unwrap_err();
        assert!(
            e.to_string().contains("PTX, which the driver compiles"),
            "{e}"
        );
        for image in [&b"MZ\x90\0"[..], b"", b"\x7fEL"] {
            let e = check_restricted(image).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::OutsideProfile);
            assert!(e.to_string().contains("not a cubin (no ELF magic)"), "{e}");
        }
    }

    #[test]
    fn a_truncated_cubin_is_invalid_not_read_past() {
        let image = cubin(EM_CUDA, &["f"]);
        let e = check_restricted(&image[..image.len() - 8]).unwrap_err();
        assert_eq!(e.code(), Some(ffi::CUresult::CUDA_ERROR_INVALID_IMAGE));
    }
}
