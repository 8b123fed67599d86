//! Synthetic cubins, for tests without a GPU: [`cubin`] builds a minimal, well-formed ELF image
//! of the shape nvcc writes (a CUDA ELF64 with a symbol table naming its kernels, and undefined
//! symbols where a relocatable cubin references the device runtime), and [`function_names`]
//! reads the kernels' names back, which is what the checking mode uses to answer
//! `cuModuleGetFunction` for a module loaded from a cubin. [`stand_in_cubin`] adds the kernels'
//! PTX declarations in a section of their own, [`DECLARATIONS_SECTION`], which [`declarations`]
//! reads back: the checking mode then knows their parameters, and runs their CPU stand-ins.
//!
//! The layout, offsets from the start of the image:
//!
//! ```text
//! 0      ELF64 header (64 bytes): little-endian, ET_EXEC, EM_CUDA, no program headers
//! 64     .shstrtab   section names
//!        .strtab     symbol names
//!        .symtab     (8-aligned) a null symbol, one STT_FUNC/STB_GLOBAL kernel (STO_CUDA_ENTRY)
//!                    per function, in its own .text.<name>, then one undefined
//!                    STT_NOTYPE/STB_GLOBAL per extra symbol
//!        .text.<name> (16-aligned) 16 zero bytes per function: never run, the double runs no
//!                    kernel
//!        .custack.ptx (stand_in_cubin only) the PTX declarations, as given
//!        section headers (8-aligned, 64 bytes each): null, .shstrtab, .strtab, .symtab, then
//!                    each .text.<name>, then .custack.ptx
//! ```

/// `EM_CUDA`, the ELF machine of NVIDIA's cubins.
pub const EM_CUDA: u16 = 190;
/// `ET_EXEC`: a cubin linked for loading (`nvcc -cubin` without `-rdc`).
const ET_EXEC: u16 = 2;
/// `ELFOSABI_CUDA` and `ELFABIVERSION_CUDA_V1`, as nvcc writes them in `e_ident`.
const OSABI_CUDA: u8 = 51;
const ABIVERSION_CUDA_V1: u8 = 7;
/// `e_flags` of an `sm_90` cubin: `EF_CUDA_SM90 | EF_CUDA_TEXMODE_UNIFIED |
/// EF_CUDA_64BIT_ADDRESS | EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)` (what the double's device, an
/// H100, runs).
const FLAGS_SM90: u32 = 0x5a | 0x100 | 0x400 | (0x5a << 16);

const SHT_PROGBITS: u32 = 1;
const SHT_SYMTAB: u32 = 2;
const SHT_STRTAB: u32 = 3;
const SHT_NOBITS: u32 = 8;
const SHF_ALLOC: u64 = 0x2;
const SHF_EXECINSTR: u64 = 0x4;
const STB_GLOBAL: u8 = 1;
const STT_NOTYPE: u8 = 0;
const STT_FUNC: u8 = 2;
/// `STO_CUDA_ENTRY`: the `st_other` bit nvcc sets on a kernel (a `__global__` function), which
/// is what `cuModuleGetFunction` finds; a device function has no such bit.
const STO_CUDA_ENTRY: u8 = 0x10;

const HEADER: usize = 64;
const SECTION_HEADER: usize = 64;
const SYMBOL: usize = 24;
const TEXT_BYTES: usize = 16;

/// A string table: NUL-separated names after a leading NUL; `add` returns a name's offset.
struct Strings(Vec<u8>);

impl Strings {
    fn new() -> Self {
        Self(vec![0])
    }

    fn add(&mut self, name: &str) -> u32 {
        let at = self.0.len();
        self.0.extend_from_slice(name.as_bytes());
        self.0.push(0);
        u32::try_from(at).unwrap_or(u32::MAX)
    }
}

/// One section header's fields (`sh_addr` and `sh_flags` aside, which `flags` covers).
struct Section {
    name: u32,
    kind: u32,
    flags: u64,
    offset: usize,
    size: usize,
    link: u32,
    info: u32,
    align: u64,
    entsize: u64,
}

fn pad_to(image: &mut Vec<u8>, align: usize) {
    image.resize(image.len().next_multiple_of(align), 0);
}

fn usize_u64(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

fn usize_u16(n: usize) -> u16 {
    u16::try_from(n).unwrap_or(u16::MAX)
}

/// A minimal, well-formed little-endian ELF64 cubin (`e_machine` [`EM_CUDA`], `ET_EXEC`, no
/// program headers) defining `functions`, each a kernel (a global function symbol marked
/// `STO_CUDA_ENTRY`, as nvcc marks a `__global__` function) in its own `.text.<name>` section
/// of 16 bytes, and referencing `extra_symbols` as undefined global symbols (`st_shndx` 0), as
/// a relocatable cubin that launches kernels from the device references `cudaLaunchDeviceV2`.
/// Every section lies within the image; the section table has 64-byte entries and
/// `e_shstrndx` names `.shstrtab`, so custack's structural check of a cubin passes it. The
/// module-level documentation gives the layout.
///
/// The checking driver's `cuModuleGetFunction` on a module loaded from such an image (in the
/// checking mode) finds exactly `functions`, and answers `CUDA_ERROR_NOT_FOUND` for any
/// other name.
#[must_use]
pub fn cubin(functions: &[&str], extra_symbols: &[&str]) -> Vec<u8> {
    image(functions, extra_symbols, None)
}

/// A **stand-in cubin**: the cubin [`cubin`] builds, with one more section, named
/// [`DECLARATIONS_SECTION`] (`.custack.ptx`), holding `declarations`, the PTX declarations of
/// its kernels (`.visible .entry name(.param .u64 a, …) { ret; }`, after a `.version`,
/// `.target` and `.address_size` header, as a PTX module writes them).
///
/// It is for a program that may load cubins only (custack's restricted profile refuses PTX)
/// and runs under the checking driver with CPU stand-ins for its kernels: a stand-in reads its
/// launch's arguments by the sizes the kernel's parameter list gives, which a cubin's symbol
/// table does not carry. The checking driver, loading such an image, reads the section as it
/// reads a module loaded from PTX text ([`declarations`]), so `cuModuleGetFunction` finds the
/// entries declared there, `cuFuncGetParamInfo` answers their parameters, and each launch runs
/// the kernel's stand-in with its arguments. Declare every function of `functions`: the
/// declarations, not the symbol table, say which names the module has. `extra_symbols` are
/// undefined references, as for [`cubin`]; custack's restricted profile refuses a cubin that
/// references the device runtime (`cudaLaunchDeviceV2`, …), so a stand-in cubin for it has
/// none. The image is otherwise a well-formed cubin, which custack's structural check and the
/// profile's checks pass; its kernels have no code, so it is for the checking driver only.
///
/// ```
/// let declarations = ".version 7.0\n.target sm_90\n.address_size 64\n\
///     .visible .entry frame_gain(.param .u64 data, .param .f32 gain, .param .u32 n) { ret; }\n";
/// let image = cuda::stand_in_cubin(&["frame_gain"], &[], declarations);
/// assert_eq!(cuda::declarations(&image), Some(declarations.as_bytes()));
/// assert_eq!(cuda::function_names(&image), Some(vec!["frame_gain".to_owned()]));
/// ```
#[must_use]
pub fn stand_in_cubin(functions: &[&str], extra_symbols: &[&str], declarations: &str) -> Vec<u8> {
    image(functions, extra_symbols, Some(declarations.as_bytes()))
}

/// The image of [`cubin`], with a [`DECLARATIONS_SECTION`] holding `declarations` after the
/// `.text.<name>` sections where it has some ([`stand_in_cubin`]). Without, the bytes are
/// exactly those of the layout the module documentation gives.
#[allow(
    clippy::too_many_lines,
    reason = "the ELF image written section by section, in the layout the module documents"
)]
fn image(functions: &[&str], extra_symbols: &[&str], declarations: Option<&[u8]>) -> Vec<u8> {
    let mut shstrtab = Strings::new();
    let mut strtab = Strings::new();
    let names = [
        shstrtab.add(".shstrtab"),
        shstrtab.add(".strtab"),
        shstrtab.add(".symtab"),
    ];
    let text_names: Vec<u32> = functions
        .iter()
        .map(|f| shstrtab.add(&format!(".text.{f}")))
        .collect();
    let declarations_name = declarations.map(|_| shstrtab.add(DECLARATIONS_SECTION));
    let first_text = 4usize;

    // The symbol table: the null symbol, the functions, the undefined references.
    let mut symtab = vec![0u8; SYMBOL];
    let mut symbol = |name: u32, info: u8, other: u8, shndx: u16, size: u64| {
        symtab.extend_from_slice(&name.to_le_bytes());
        symtab.push(info);
        symtab.push(other);
        symtab.extend_from_slice(&shndx.to_le_bytes());
        symtab.extend_from_slice(&0u64.to_le_bytes()); // st_value: the section's start
        symtab.extend_from_slice(&size.to_le_bytes());
    };
    for (k, f) in functions.iter().enumerate() {
        let name = strtab.add(f);
        symbol(
            name,
            (STB_GLOBAL << 4) | STT_FUNC,
            STO_CUDA_ENTRY,
            usize_u16(first_text + k),
            usize_u64(TEXT_BYTES),
        );
    }
    for s in extra_symbols {
        let name = strtab.add(s);
        symbol(name, (STB_GLOBAL << 4) | STT_NOTYPE, 0, 0, 0);
    }

    let mut image = vec![0u8; HEADER];
    let mut sections = Vec::new();
    let place = |image: &mut Vec<u8>, bytes: &[u8], align: usize| {
        pad_to(image, align);
        let offset = image.len();
        image.extend_from_slice(bytes);
        offset
    };
    let at = place(&mut image, &shstrtab.0, 1);
    sections.push(Section {
        name: names[0],
        kind: SHT_STRTAB,
        flags: 0,
        offset: at,
        size: shstrtab.0.len(),
        link: 0,
        info: 0,
        align: 1,
        entsize: 0,
    });
    let at = place(&mut image, &strtab.0, 1);
    sections.push(Section {
        name: names[1],
        kind: SHT_STRTAB,
        flags: 0,
        offset: at,
        size: strtab.0.len(),
        link: 0,
        info: 0,
        align: 1,
        entsize: 0,
    });
    let at = place(&mut image, &symtab, 8);
    sections.push(Section {
        name: names[2],
        kind: SHT_SYMTAB,
        flags: 0,
        offset: at,
        size: symtab.len(),
        // sh_link: .strtab; sh_info: the first global symbol (all but the null one are).
        link: 2,
        info: 1,
        align: 8,
        entsize: usize_u64(SYMBOL),
    });
    for name in text_names {
        let at = place(&mut image, &[0; TEXT_BYTES], 16);
        sections.push(Section {
            name,
            kind: SHT_PROGBITS,
            flags: SHF_ALLOC | SHF_EXECINSTR,
            offset: at,
            size: TEXT_BYTES,
            link: 0,
            info: 0,
            align: 16,
            entsize: 0,
        });
    }
    if let (Some(name), Some(bytes)) = (declarations_name, declarations) {
        let at = place(&mut image, bytes, 1);
        sections.push(Section {
            name,
            kind: SHT_PROGBITS,
            flags: 0,
            offset: at,
            size: bytes.len(),
            link: 0,
            info: 0,
            align: 1,
            entsize: 0,
        });
    }

    pad_to(&mut image, 8);
    let shoff = image.len();
    image.extend_from_slice(&[0; SECTION_HEADER]); // the null section
    for s in &sections {
        image.extend_from_slice(&s.name.to_le_bytes());
        image.extend_from_slice(&s.kind.to_le_bytes());
        image.extend_from_slice(&s.flags.to_le_bytes());
        image.extend_from_slice(&0u64.to_le_bytes()); // sh_addr
        image.extend_from_slice(&usize_u64(s.offset).to_le_bytes());
        image.extend_from_slice(&usize_u64(s.size).to_le_bytes());
        image.extend_from_slice(&s.link.to_le_bytes());
        image.extend_from_slice(&s.info.to_le_bytes());
        image.extend_from_slice(&s.align.to_le_bytes());
        image.extend_from_slice(&s.entsize.to_le_bytes());
    }

    let header = &mut image[..HEADER];
    header[..4].copy_from_slice(b"\x7fELF");
    header[4] = 2; // ELFCLASS64
    header[5] = 1; // ELFDATA2LSB
    header[6] = 1; // EV_CURRENT
    header[7] = OSABI_CUDA;
    header[8] = ABIVERSION_CUDA_V1;
    header[0x10..0x12].copy_from_slice(&ET_EXEC.to_le_bytes());
    header[0x12..0x14].copy_from_slice(&EM_CUDA.to_le_bytes());
    header[0x14..0x18].copy_from_slice(&1u32.to_le_bytes()); // e_version
    // e_entry and e_phoff stay 0: no entry point, no program headers.
    header[0x28..0x30].copy_from_slice(&usize_u64(shoff).to_le_bytes());
    header[0x30..0x34].copy_from_slice(&FLAGS_SM90.to_le_bytes());
    header[0x34..0x36].copy_from_slice(&usize_u16(HEADER).to_le_bytes()); // e_ehsize
    header[0x36..0x38].copy_from_slice(&56u16.to_le_bytes()); // e_phentsize (none follow)
    // e_phnum stays 0.
    header[0x3a..0x3c].copy_from_slice(&usize_u16(SECTION_HEADER).to_le_bytes());
    header[0x3c..0x3e].copy_from_slice(&usize_u16(sections.len() + 1).to_le_bytes());
    header[0x3e..0x40].copy_from_slice(&1u16.to_le_bytes()); // e_shstrndx: .shstrtab
    image
}

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(
        b.get(at..at.checked_add(2)?)?.try_into().ok()?,
    ))
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(
        b.get(at..at.checked_add(4)?)?.try_into().ok()?,
    ))
}

fn u64_at(b: &[u8], at: usize) -> Option<usize> {
    usize::try_from(u64::from_le_bytes(
        b.get(at..at.checked_add(8)?)?.try_into().ok()?,
    ))
    .ok()
}

/// Where the section table lies, from a little-endian ELF64 header: its offset, entry size and
/// entry count. `None` for anything else (not ELF64 LE, or 64-byte entries missing).
pub(crate) fn section_table(header: &[u8]) -> Option<(usize, usize, usize)> {
    if header.get(..4)? != b"\x7fELF" || *header.get(4)? != 2 || *header.get(5)? != 1 {
        return None;
    }
    let shoff = u64_at(header, 0x28)?;
    let shentsize = usize::from(u16_at(header, 0x3a)?);
    let shnum = usize::from(u16_at(header, 0x3c)?);
    (shnum == 0 || shentsize >= SECTION_HEADER).then_some((shoff, shentsize, shnum))
}

/// The bytes an image's sections occupy, to the end of the last one (or of the section
/// table, if it lies after them), from its section table (`table`, `shentsize`-byte entries).
/// `SHT_NOBITS` sections occupy none.
pub(crate) fn extent(shoff: usize, shentsize: usize, table: &[u8]) -> Option<usize> {
    let mut end = shoff.checked_add(table.len())?;
    for entry in table.chunks_exact(shentsize) {
        if u32_at(entry, 4)? != SHT_NOBITS {
            end = end.max(u64_at(entry, 0x18)?.checked_add(u64_at(entry, 0x20)?)?);
        }
    }
    Some(end)
}

/// An ELF64 image's section table: its headers, and the bytes each one names, bounds-checked.
struct Sections<'a> {
    image: &'a [u8],
    offset: usize,
    entry_size: usize,
    count: usize,
}

impl<'a> Sections<'a> {
    fn of(image: &'a [u8]) -> Option<Self> {
        let (offset, entry_size, count) = section_table(image)?;
        Some(Self {
            image,
            offset,
            entry_size,
            count,
        })
    }

    /// Section `k`'s header.
    fn header(&self, k: usize) -> Option<&'a [u8]> {
        self.image
            .get(k.checked_mul(self.entry_size)?.checked_add(self.offset)?..)?
            .get(..self.entry_size)
    }

    /// The bytes a section header names, if they lie within the image.
    fn bytes(&self, header: &[u8]) -> Option<&'a [u8]> {
        let offset = u64_at(header, 0x18)?;
        self.image
            .get(offset..offset.checked_add(u64_at(header, 0x20)?)?)
    }
}

/// The names of the kernels an ELF64 image defines: the `STT_FUNC` symbols of its `.symtab`
/// that have a section (`st_shndx` not 0) and are marked `STO_CUDA_ENTRY` in `st_other` (a
/// device function, or a reference to one, is not a kernel). `None` when the image has no
/// symbol table, or when a table or a name lies beyond the image: then nothing is known of
/// its functions.
pub fn function_names(image: &[u8]) -> Option<Vec<String>> {
    let elf = Sections::of(image)?;
    let symtab = (0..elf.count).find_map(|k| {
        let entry = elf.header(k)?;
        (u32_at(entry, 4)? == SHT_SYMTAB).then_some(entry)
    })?;
    let strtab = elf.bytes(elf.header(usize::try_from(u32_at(symtab, 0x28)?).ok()?)?)?;
    let entsize = u64_at(symtab, 0x38)?.max(SYMBOL);
    let mut names = Vec::new();
    for sym in elf.bytes(symtab)?.chunks_exact(entsize).skip(1) {
        let (info, other) = (*sym.get(4)?, *sym.get(5)?);
        if info & 0xf == STT_FUNC && other & STO_CUDA_ENTRY != 0 && u16_at(sym, 6)? != 0 {
            let from = usize::try_from(u32_at(sym, 0)?).ok()?;
            let name = strtab.get(from..)?;
            let len = name.iter().position(|&b| b == 0)?;
            names.push(String::from_utf8_lossy(name.get(..len)?).into_owned());
        }
    }
    Some(names)
}

/// The name of a section a cubin made for tests may carry: the PTX declarations of its kernels
/// (`.visible .entry name(.param .u64 a, …)`), so that the double knows their parameters and
/// can run their stand-ins, as it does for a module loaded from PTX. nvcc never writes it.
pub const DECLARATIONS_SECTION: &str = ".custack.ptx";

/// The bytes of the section named [`DECLARATIONS_SECTION`] of an ELF64 image, if it has one
/// within the image.
pub fn declarations(image: &[u8]) -> Option<&[u8]> {
    let elf = Sections::of(image)?;
    let names = elf.bytes(elf.header(u16_at(image, 0x3e)?.into())?)?;
    (0..elf.count).find_map(|k| {
        let entry = elf.header(k)?;
        let from = usize::try_from(u32_at(entry, 0)?).ok()?;
        let name = names.get(from..)?;
        let name = name.get(..name.iter().position(|&b| b == 0)?)?;
        (name == DECLARATIONS_SECTION.as_bytes())
            .then(|| elf.bytes(entry))
            .flatten()
    })
}
