//! The profile's one loading path: a cubin read whole and checked for what the safety subset
//! excludes, then `cuModuleLoadData` without options.
//!
//! The check reads the image with a reader of its own ([`read`]), which is total and fails
//! closed: it parses every header and every symbol into a value or refuses the image naming
//! what it could not read, and never skips what it cannot read (a symbol table that does not
//! parse is a refusal, not an image without symbols). Every offset and count is checked
//! arithmetic, and nothing panics.

use crate::context::stack::PushedGuard;
use crate::error::{Error, ErrorKind, Result};
use crate::ffi;
use crate::kernel::image::{check_elf, u16_at, u32_at, u64_at};
use crate::kernel::module::Module;
use core::ops::Range;

/// `e_machine` of a CUDA ELF image.
const EM_CUDA: u16 = 190;
/// `e_type` of a relocatable image (`nvcc -cubin -rdc=true`), which the driver links at load.
const ET_REL: u16 = 1;
/// `e_type` of an executable image: what `nvcc -cubin` writes without `-rdc`.
const ET_EXEC: u16 = 2;
/// `sh_type`s the reader knows.
const SHT_SYMTAB: u32 = 2;
const SHT_STRTAB: u32 = 3;
const SHT_RELA: u32 = 4;
const SHT_NOBITS: u32 = 8;
const SHT_REL: u32 = 9;
const SHT_DYNSYM: u32 = 11;
const SHT_SYMTAB_SHNDX: u32 = 18;
/// The first reserved section index: a section count or index from here on is an escape
/// (extended numbering, `SHN_ABS`, …), not a section.
const SHN_LORESERVE: u16 = 0xff00;
/// `st_shndx` of an absolute symbol and of a common one: neither is in a section.
const SHN_ABS: u16 = 0xfff1;
const SHN_COMMON: u16 = 0xfff2;
/// `e_phnum` of an image whose segment count is kept elsewhere (in section 0).
const PN_XNUM: u16 = 0xffff;
/// The sizes of an ELF64 header, section header, program header, symbol, and relocation.
const HEADER_BYTES: usize = 64;
const SECTION_BYTES: usize = 64;
const SEGMENT_BYTES: usize = 56;
const SYM_BYTES: usize = 24;
const REL_BYTES: usize = 16;
const RELA_BYTES: usize = 24;
/// The alignment of the tables the reader reads as records (ELF64's `Elf64_Xword`).
const RECORD_ALIGN: usize = 8;

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
/// not for the CUDA machine or lies beyond `image`, a cubin the profile's reader cannot read
/// whole ([`read`]), a cubin that references the device runtime or calls device-side `malloc`,
/// `free` or `vprintf`, and a cubin that is not linked (`ET_REL`, `nvcc -rdc`).
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
    let cubin = read(image).map_err(|what| {
        outside(format!(
            "the restricted profile loads only a cubin it reads whole, and cannot read this \
             one: {what}"
        ))
    })?;
    let runtime = |s: &Symbol<'_>| {
        DEVICE_RUNTIME
            .iter()
            .any(|p| s.name.starts_with(p.as_bytes()))
    };
    if let Some(symbol) = cubin.symbols.iter().find(|s| runtime(s)) {
        return Err(outside(format!(
            "the cubin references the device runtime's `{}`: a kernel that launches from the \
             device is outside the safety subset",
            String::from_utf8_lossy(symbol.name)
        )));
    }
    let allocating =
        |s: &Symbol<'_>| !s.defined && DEVICE_ALLOCATING.iter().any(|f| s.name == f.as_bytes());
    if let Some(symbol) = cubin.symbols.iter().find(|s| allocating(s)) {
        return Err(outside(format!(
            "the cubin calls `{}` on the device: the driver allocates device-side malloc's \
             heap and printf's FIFO at the first launch that uses them, which would be in the \
             run phase; build the kernels without device-side malloc, free and printf",
            String::from_utf8_lossy(symbol.name)
        )));
    }
    match cubin.kind {
        ET_EXEC => Ok(()),
        ET_REL => Err(outside(
            "a relocatable cubin (ET_REL, nvcc -rdc=true): the driver links it when it loads \
             it; build it linked (nvcc -cubin -arch=sm_XY, without -rdc)"
                .to_owned(),
        )),
        kind => Err(outside(format!(
            "an ELF image of type {kind}, not a linked cubin (ET_EXEC, {ET_EXEC})"
        ))),
    }
}

/// One section header, as the reader parsed it (`sh_flags` and `sh_addr` aside: the reader
/// uses neither).
#[derive(Clone, Copy, Debug)]
struct Section {
    name: u32,
    kind: u32,
    offset: u64,
    size: u64,
    link: u32,
    info: u32,
    align: u64,
    entsize: u64,
}

impl Section {
    /// The fields of a 64-byte section header.
    fn parse(header: &[u8]) -> Option<Self> {
        Some(Self {
            name: u32_at(header, 0)?,
            kind: u32_at(header, 4)?,
            offset: u64_at(header, 0x18)?,
            size: u64_at(header, 0x20)?,
            link: u32_at(header, 0x28)?,
            info: u32_at(header, 0x2c)?,
            align: u64_at(header, 0x30)?,
            entsize: u64_at(header, 0x38)?,
        })
    }
}

/// A symbol of the image's symbol table: its name (without the NUL), and whether a section of
/// the image holds it (`st_shndx` a section's index: not undefined, absolute or common).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Symbol<'a> {
    name: &'a [u8],
    defined: bool,
}

/// An image the reader read whole: its type (`e_type`) and every symbol of its one symbol
/// table, the null symbol included.
#[derive(Debug)]
struct Cubin<'a> {
    kind: u16,
    symbols: Vec<Symbol<'a>>,
}

/// What a part of the image is, for a refusal that names two that overlap.
#[derive(Clone, Copy, Debug)]
enum Part {
    Header,
    SectionTable,
    ProgramHeaders,
    Section(usize),
}

impl core::fmt::Display for Part {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Header => f.write_str("the ELF header"),
            Self::SectionTable => f.write_str("the section table"),
            Self::ProgramHeaders => f.write_str("the program header table"),
            Self::Section(k) => write!(f, "section {k}"),
        }
    }
}

/// `count` records of `size` bytes from `offset`, as an index range, if they lie within `len`
/// bytes; `None` for anything past the end or that overflows.
fn span(len: usize, offset: u64, size: u64) -> Option<Range<usize>> {
    let start = usize::try_from(offset).ok()?;
    let end = start.checked_add(usize::try_from(size).ok()?)?;
    (end <= len).then_some(start..end)
}

/// `count * size`, if it fits.
fn times(count: usize, size: usize) -> Option<u64> {
    u64::try_from(count.checked_mul(size)?).ok()
}

/// Whether `offset` is a multiple of `align` (not zero).
fn aligned(offset: u64, align: usize) -> bool {
    u64::try_from(align)
        .ok()
        .and_then(|a| offset.checked_rem(a))
        == Some(0)
}

/// The bytes of string table `k` of `sections` (`what` names it in a refusal): a `SHT_STRTAB`
/// whose bytes start and end with a NUL, so that every name in it ends within it.
fn strings<'a>(
    image: &'a [u8],
    sections: &[Section],
    k: usize,
    what: &str,
) -> Result<&'a [u8], String> {
    let s = sections
        .get(k)
        .ok_or_else(|| format!("{what} is section {k}, which the image does not have"))?;
    if s.kind != SHT_STRTAB {
        return Err(format!(
            "{what} (section {k}) is not a string table (sh_type {}, not SHT_STRTAB)",
            s.kind
        ));
    }
    let bytes = span(image.len(), s.offset, s.size)
        .and_then(|r| image.get(r))
        .ok_or_else(|| format!("{what} (section {k}) lies past the end of the image"))?;
    if bytes.first() != Some(&0) || bytes.last() != Some(&0) {
        return Err(format!(
            "{what} (section {k}, {} bytes) does not begin and end with a NUL byte, so a name \
             in it may run past its end",
            bytes.len()
        ));
    }
    Ok(bytes)
}

/// Reads a cubin whole, or says what it could not read. Total and fail-closed: every field the
/// profile's check depends on is parsed and bounds-checked, and anything the reader does not
/// understand is a refusal, never skipped. It requires, beyond [`check_elf`]:
///
/// - `e_ident`: ELF64, little-endian, ELF version 1; `e_ehsize` 64;
/// - a section table of 1 to `0xfeff` entries of exactly 64 bytes, 8-byte aligned, within the
///   image, its section 0 the null section (all zero: no extended numbering); `e_shstrndx` a
///   section other than 0, a string table;
/// - where there are program headers: fewer than `0xffff` of exactly 56 bytes, 8-byte aligned,
///   within the image, each segment's bytes within it;
/// - every section's bytes (but a `NOBITS` one's) within the image; no two of the ELF header,
///   the section table, the program header table and the sections' bytes overlapping; every
///   `sh_addralign` 0 or a power of two; every `sh_link` and every name within range;
/// - exactly one symbol table (`SHT_SYMTAB`), no dynamic symbols and no extended indexes
///   (`SHT_DYNSYM`, `SHT_SYMTAB_SHNDX`); the table 8-byte aligned, of 24-byte entries, whole,
///   its first the null symbol, its `sh_info` within it, linked to a string table that begins
///   and ends with a NUL; each symbol's name within that table and its section index a section,
///   0 (undefined), `SHN_ABS` or `SHN_COMMON`;
/// - each relocation section (`SHT_REL`, `SHT_RELA`) linked to that symbol table, applying to
///   a section, 8-byte aligned, of whole 16- or 24-byte entries, each naming a symbol of it.
fn read(image: &[u8]) -> Result<Cubin<'_>, String> {
    let header = Header::read(image)?;
    let (sections, symtab) = read_sections(image, &header)?;
    let symbols = read_symbols(image, &sections, symtab)?;
    read_relocations(image, &sections, symtab, symbols.len())?;
    Ok(Cubin {
        kind: header.kind,
        symbols,
    })
}

/// A refusal's text for a field the reader could not read at all.
fn truncated() -> String {
    "a truncated ELF header or table".to_owned()
}

/// The fields of the ELF header the reader uses.
struct Header {
    kind: u16,
    phoff: u64,
    shoff: u64,
    phentsize: u16,
    phnum: u16,
    shentsize: u16,
    shnum: u16,
    shstrndx: u16,
}

impl Header {
    /// The header's fields; `e_ident` and `e_ehsize` checked.
    fn read(image: &[u8]) -> Result<Self, String> {
        let header = image
            .get(..HEADER_BYTES)
            .ok_or_else(|| "shorter than an ELF64 header".to_owned())?;
        let ident = (header.get(..4), header.get(4..7));
        if ident != (Some(&b"\x7fELF"[..]), Some(&[2u8, 1, 1][..])) {
            return Err(
                "e_ident is not that of a little-endian ELF64 image of ELF version 1".to_owned(),
            );
        }
        let h16 = |at| u16_at(header, at).ok_or_else(truncated);
        let h64 = |at| u64_at(header, at).ok_or_else(truncated);
        let ehsize = h16(0x34)?;
        if usize::from(ehsize) != HEADER_BYTES {
            return Err(format!("e_ehsize {ehsize}, not ELF64's {HEADER_BYTES}"));
        }
        Ok(Self {
            kind: h16(0x10)?,
            phoff: h64(0x20)?,
            shoff: h64(0x28)?,
            phentsize: h16(0x36)?,
            phnum: h16(0x38)?,
            shentsize: h16(0x3a)?,
            shnum: h16(0x3c)?,
            shstrndx: h16(0x3e)?,
        })
    }
}

/// The section table, read whole: every section header, and the index of the one symbol table.
/// Checks the table itself, the program header table, what each section occupies (nothing
/// overlapping), each section's alignment, link and name.
fn read_sections(image: &[u8], header: &Header) -> Result<(Vec<Section>, usize), String> {
    let len = image.len();
    let (shoff, shnum) = (header.shoff, header.shnum);
    if shnum == 0 {
        return Err(format!(
            "no section table (e_shnum 0, e_shoff {shoff}: none, or a count of {SHN_LORESERVE} \
             or more kept in section 0), so no symbol table"
        ));
    }
    if shnum >= SHN_LORESERVE {
        return Err(format!("e_shnum {shnum}, in the reserved range"));
    }
    if usize::from(header.shentsize) != SECTION_BYTES {
        return Err(format!(
            "section header entries of {} bytes, not ELF64's {SECTION_BYTES}",
            header.shentsize
        ));
    }
    let count = usize::from(shnum);
    let table = times(count, SECTION_BYTES)
        .and_then(|bytes| span(len, shoff, bytes))
        .ok_or_else(|| {
            format!(
                "the section table ({count} entries at {shoff}) lies past the end of the image \
                 ({len} bytes)"
            )
        })?;
    if !aligned(shoff, RECORD_ALIGN) {
        return Err(format!(
            "the section table at {shoff} is not 8-byte aligned"
        ));
    }
    if table.start < HEADER_BYTES {
        return Err(format!(
            "{} (bytes 0..{HEADER_BYTES}) and {} (bytes {}..{}) overlap",
            Part::Header,
            Part::SectionTable,
            table.start,
            table.end
        ));
    }
    let table_bytes = image.get(table.clone()).ok_or_else(truncated)?;
    if table_bytes
        .get(..SECTION_BYTES)
        .is_none_or(|null| null.iter().any(|&b| b != 0))
    {
        return Err(
            "section 0 is not the null section (all zero): extended numbering, or a corrupt \
             table"
                .to_owned(),
        );
    }
    let sections = table_bytes
        .chunks_exact(SECTION_BYTES)
        .map(Section::parse)
        .collect::<Option<Vec<_>>>()
        .ok_or_else(truncated)?;
    let names_at = usize::from(header.shstrndx);
    if names_at == 0 || names_at >= count {
        return Err(format!(
            "e_shstrndx {} is not one of the {count} sections (SHN_UNDEF, SHN_XINDEX or past \
             the table)",
            header.shstrndx
        ));
    }
    let mut occupied = vec![(0..HEADER_BYTES, Part::Header), (table, Part::SectionTable)];
    if let Some(program) = read_program_headers(image, header)? {
        occupied.push((program, Part::ProgramHeaders));
    }
    let mut symtab = None;
    for (k, s) in sections.iter().enumerate().skip(1) {
        if let Some(bytes) = read_section(len, count, k, s)? {
            occupied.push((bytes, Part::Section(k)));
        }
        if s.kind == SHT_SYMTAB {
            if let Some(first) = symtab.replace(k) {
                return Err(format!(
                    "two symbol tables (sections {first} and {k}), where a cubin has one"
                ));
            }
        }
    }
    disjoint(occupied)?;
    // Every section's name lies within the section name table.
    let names = strings(image, &sections, names_at, "the section name table")?;
    if let Some((k, s)) = sections
        .iter()
        .enumerate()
        .find(|(_, s)| usize::try_from(s.name).map_or(true, |at| at >= names.len()))
    {
        return Err(format!(
            "section {k}'s name at {} lies past the section name table ({} bytes)",
            s.name,
            names.len()
        ));
    }
    let symtab = symtab.ok_or_else(|| {
        "no symbol table (SHT_SYMTAB): the functions the cubin calls cannot be read".to_owned()
    })?;
    Ok((sections, symtab))
}

/// Checks section `k` (`s`) of an image of `len` bytes with `count` sections: its bytes (but a
/// `NOBITS` section's) within the image, which it returns where it has some; its alignment; its
/// link; its type none the reader refuses.
fn read_section(
    len: usize,
    count: usize,
    k: usize,
    s: &Section,
) -> Result<Option<Range<usize>>, String> {
    if s.align > 1 && !s.align.is_power_of_two() {
        return Err(format!(
            "section {k}'s alignment {} is not a power of two",
            s.align
        ));
    }
    if usize::try_from(s.link).map_or(true, |link| link >= count) {
        return Err(format!(
            "section {k}'s sh_link {} is not one of the {count} sections",
            s.link
        ));
    }
    if matches!(s.kind, SHT_DYNSYM | SHT_SYMTAB_SHNDX) {
        return Err(format!(
            "section {k} is a dynamic symbol table or extended section indexes (sh_type {}), \
             which a cubin does not have and the reader does not read",
            s.kind
        ));
    }
    if s.kind == SHT_NOBITS {
        return Ok(None);
    }
    let bytes = span(len, s.offset, s.size).ok_or_else(|| {
        format!(
            "section {k} ({} bytes at {}) lies past the end of the image ({len} bytes)",
            s.size, s.offset
        )
    })?;
    Ok((!bytes.is_empty()).then_some(bytes))
}

/// Checks that no two of `occupied` (the byte ranges of the image's parts) overlap.
fn disjoint(mut occupied: Vec<(Range<usize>, Part)>) -> Result<(), String> {
    occupied.sort_by_key(|(bytes, _)| (bytes.start, bytes.end));
    for pair in occupied.windows(2) {
        if let [(a, what_a), (b, what_b)] = pair {
            if a.end > b.start {
                return Err(format!(
                    "{what_a} (bytes {}..{}) and {what_b} (bytes {}..{}) overlap",
                    a.start, a.end, b.start, b.end
                ));
            }
        }
    }
    Ok(())
}

/// Where the image has program headers, the bytes of their table: each segment's bytes within
/// the image.
fn read_program_headers(image: &[u8], header: &Header) -> Result<Option<Range<usize>>, String> {
    let (phoff, phnum) = (header.phoff, header.phnum);
    if phnum == 0 {
        return Ok(None);
    }
    if phnum == PN_XNUM {
        return Err("e_phnum 0xffff: a segment count kept in section 0".to_owned());
    }
    if usize::from(header.phentsize) != SEGMENT_BYTES {
        return Err(format!(
            "program header entries of {} bytes, not ELF64's {SEGMENT_BYTES}",
            header.phentsize
        ));
    }
    let segments = usize::from(phnum);
    let program = times(segments, SEGMENT_BYTES)
        .and_then(|bytes| span(image.len(), phoff, bytes))
        .ok_or_else(|| {
            format!(
                "the program header table ({segments} entries at {phoff}) lies past the end of \
                 the image"
            )
        })?;
    if !aligned(phoff, RECORD_ALIGN) {
        return Err(format!(
            "the program header table at {phoff} is not 8-byte aligned"
        ));
    }
    let program_bytes = image.get(program.clone()).ok_or_else(truncated)?;
    for (k, segment) in program_bytes.chunks_exact(SEGMENT_BYTES).enumerate() {
        let within = u64_at(segment, 0x08)
            .zip(u64_at(segment, 0x20))
            .and_then(|(offset, size)| span(image.len(), offset, size));
        if within.is_none() {
            return Err(format!("segment {k} lies past the end of the image"));
        }
    }
    Ok(Some(program))
}

/// The symbols of symbol table `at` of `sections`, every one, the null symbol first.
fn read_symbols<'a>(
    image: &'a [u8],
    sections: &[Section],
    at: usize,
) -> Result<Vec<Symbol<'a>>, String> {
    let table = sections.get(at).copied().ok_or_else(truncated)?;
    if usize::try_from(table.entsize).ok() != Some(SYM_BYTES) {
        return Err(format!(
            "the symbol table's entries are {} bytes, not ELF64's {SYM_BYTES}",
            table.entsize
        ));
    }
    if !aligned(table.offset, RECORD_ALIGN) {
        return Err(format!(
            "the symbol table at {} is not 8-byte aligned",
            table.offset
        ));
    }
    let bytes = span(image.len(), table.offset, table.size)
        .and_then(|r| image.get(r))
        .ok_or_else(truncated)?;
    if bytes.is_empty() || bytes.len().checked_rem(SYM_BYTES) != Some(0) {
        return Err(format!(
            "the symbol table's {} bytes are not a whole number of symbols, the null one first",
            bytes.len()
        ));
    }
    let count = bytes.len().checked_div(SYM_BYTES).unwrap_or(0);
    if usize::try_from(table.info).map_or(true, |first| first > count) {
        return Err(format!(
            "the symbol table's sh_info {} (its first global symbol) is past its {count} \
             symbols",
            table.info
        ));
    }
    let link = usize::try_from(table.link).unwrap_or(usize::MAX);
    if link == 0 || link == at {
        return Err(format!(
            "the symbol table's sh_link {link} names no string table"
        ));
    }
    let names = strings(image, sections, link, "the symbol table's string table")?;
    let sections = sections.len();
    let mut symbols = Vec::with_capacity(count);
    for (k, symbol) in bytes.chunks_exact(SYM_BYTES).enumerate() {
        if k == 0 && symbol.iter().any(|&b| b != 0) {
            return Err("symbol 0 is not the null symbol (all zero)".to_owned());
        }
        let name_at = u32_at(symbol, 0).ok_or_else(truncated)?;
        let name = usize::try_from(name_at)
            .ok()
            .and_then(|from| names.get(from..))
            .and_then(|rest| rest.get(..rest.iter().position(|&b| b == 0)?))
            .ok_or_else(|| {
                format!(
                    "symbol {k}'s name at {name_at} lies past its string table ({} bytes)",
                    names.len()
                )
            })?;
        let defined = match u16_at(symbol, 6).ok_or_else(truncated)? {
            0 | SHN_ABS | SHN_COMMON => false,
            index if index < SHN_LORESERVE && usize::from(index) < sections => true,
            index => {
                return Err(format!(
                    "symbol {k}'s section index {index} is not one of the {sections} sections"
                ));
            }
        };
        symbols.push(Symbol { name, defined });
    }
    Ok(symbols)
}

/// Checks each relocation section (`SHT_REL`, `SHT_RELA`): linked to symbol table `symtab`,
/// applying to a section, of whole entries, each naming one of its `symbols` symbols.
fn read_relocations(
    image: &[u8],
    sections: &[Section],
    symtab: usize,
    symbols: usize,
) -> Result<(), String> {
    let count = sections.len();
    for (k, s) in sections.iter().enumerate() {
        let entry = match s.kind {
            SHT_REL => REL_BYTES,
            SHT_RELA => RELA_BYTES,
            _ => continue,
        };
        if usize::try_from(s.link).ok() != Some(symtab) {
            return Err(format!(
                "relocation section {k}'s sh_link {} is not the symbol table ({symtab})",
                s.link
            ));
        }
        if usize::try_from(s.info).map_or(true, |target| target == 0 || target >= count) {
            return Err(format!(
                "relocation section {k} applies to section {}, not one of the {count} sections",
                s.info
            ));
        }
        if usize::try_from(s.entsize).ok() != Some(entry) || !aligned(s.offset, RECORD_ALIGN) {
            return Err(format!(
                "relocation section {k}: entries of {} bytes at {}, not {entry}-byte entries \
                 8-byte aligned",
                s.entsize, s.offset
            ));
        }
        let relocations = span(image.len(), s.offset, s.size)
            .and_then(|r| image.get(r))
            .ok_or_else(truncated)?;
        if relocations.len().checked_rem(entry) != Some(0) {
            return Err(format!(
                "relocation section {k}'s {} bytes are not a whole number of entries",
                relocations.len()
            ));
        }
        for (j, relocation) in relocations.chunks_exact(entry).enumerate() {
            // `r_info`'s high half (little-endian: its last four bytes) is the symbol's index.
            let symbol = u32_at(relocation, 12).ok_or_else(truncated)?;
            if usize::try_from(symbol).map_or(true, |i| i >= symbols) {
                return Err(format!(
                    "relocation {j} of section {k} names symbol {symbol}, past the symbol \
                     table's {symbols}"
                ));
            }
        }
    }
    Ok(())
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

    /// What a test image holds: its machine and type, the kernels it defines (each in `.text`),
    /// the symbols it references (undefined), and whether it has a program header table and a
    /// relocation section (`.rel.text`, one relocation naming the last symbol).
    #[derive(Clone, Copy)]
    struct Spec<'a> {
        machine: u16,
        kind: u16,
        defined: &'a [&'a str],
        undefined: &'a [&'a str],
        segments: bool,
        relocations: bool,
    }

    impl Spec<'_> {
        const fn plain() -> Self {
            Self {
                machine: EM_CUDA,
                kind: ET_EXEC,
                defined: &["kernel"],
                undefined: &[],
                segments: false,
                relocations: false,
            }
        }
    }

    /// Appends `bytes` at the next multiple of `align`; their offset.
    fn put(image: &mut Vec<u8>, bytes: &[u8], align: usize) -> u64 {
        image.resize(image.len().next_multiple_of(align), 0);
        let at = image.len() as u64;
        image.extend_from_slice(bytes);
        at
    }

    /// A section header.
    #[allow(clippy::too_many_arguments)]
    fn header(
        name: u32,
        kind: u32,
        offset: u64,
        size: u64,
        link: u32,
        info: u32,
        align: u64,
        entsize: u64,
    ) -> [u8; 64] {
        let mut h = [0u8; 64];
        h[..4].copy_from_slice(&name.to_le_bytes());
        h[4..8].copy_from_slice(&kind.to_le_bytes());
        h[0x18..0x20].copy_from_slice(&offset.to_le_bytes());
        h[0x20..0x28].copy_from_slice(&size.to_le_bytes());
        h[0x28..0x2c].copy_from_slice(&link.to_le_bytes());
        h[0x2c..0x30].copy_from_slice(&info.to_le_bytes());
        h[0x30..0x38].copy_from_slice(&align.to_le_bytes());
        h[0x38..0x40].copy_from_slice(&entsize.to_le_bytes());
        h
    }

    /// A small cubin of the shape nvcc writes: the ELF64 header; `.shstrtab`, `.strtab`,
    /// `.symtab` (section 3: the null symbol, the kernels, the references), `.text` (section 4),
    /// `.rel.text` where asked, `.nv.shared` (NOBITS); the section table; a program header
    /// table (one `PT_LOAD` over `.text`) where asked.
    fn build(spec: Spec<'_>) -> Vec<u8> {
        let mut shstrtab =
            b"\0.shstrtab\0.strtab\0.symtab\0.text\0.rel.text\0.nv.shared\0".to_vec();
        shstrtab.push(0);
        let mut strtab = vec![0u8];
        let mut symtab = vec![0u8; SYM_BYTES];
        let symbols = spec.defined.iter().map(|n| (n, true));
        for (name, defined) in symbols.chain(spec.undefined.iter().map(|n| (n, false))) {
            let mut sym = [0u8; SYM_BYTES];
            sym[..4].copy_from_slice(&u32::try_from(strtab.len()).unwrap().to_le_bytes());
            strtab.extend_from_slice(name.as_bytes());
            strtab.push(0);
            // STB_GLOBAL; STT_FUNC in `.text` (section 4), or STT_NOTYPE undefined.
            sym[4] = if defined { 0x12 } else { 0x10 };
            sym[6..8].copy_from_slice(&(if defined { 4u16 } else { 0 }).to_le_bytes());
            symtab.extend_from_slice(&sym);
        }
        let symbol_count = symtab.len().checked_div(SYM_BYTES).unwrap();
        let mut image = vec![0u8; 64];
        let shstr_at = put(&mut image, &shstrtab, 1);
        let str_at = put(&mut image, &strtab, 1);
        let sym_at = put(&mut image, &symtab, 8);
        let text_at = put(&mut image, &[0xAB; 32], 16);
        let mut rel = [0u8; REL_BYTES];
        let last = u32::try_from(symbol_count.checked_sub(1).unwrap()).unwrap();
        rel[8..12].copy_from_slice(&1u32.to_le_bytes()); // r_type
        rel[12..16].copy_from_slice(&last.to_le_bytes()); // r_sym
        let rel_at = spec.relocations.then(|| put(&mut image, &rel, 8));
        let shared_at = image.len() as u64;
        let len = |b: &[u8]| b.len() as u64;
        let mut sections = vec![
            [0u8; 64],
            header(1, SHT_STRTAB, shstr_at, len(&shstrtab), 0, 0, 1, 0),
            header(11, SHT_STRTAB, str_at, len(&strtab), 0, 0, 1, 0),
            header(19, SHT_SYMTAB, sym_at, len(&symtab), 2, 1, 8, 24),
            header(27, 1, text_at, 32, 3, 0, 16, 0),
        ];
        if let Some(at) = rel_at {
            sections.push(header(33, SHT_REL, at, 16, 3, 4, 8, 16));
        }
        sections.push(header(43, SHT_NOBITS, shared_at, 1024, 0, 0, 16, 0));
        let shoff = put(&mut image, &sections.concat(), 8);
        let phoff = spec.segments.then(|| {
            let mut load = [0u8; SEGMENT_BYTES];
            load[..4].copy_from_slice(&1u32.to_le_bytes()); // PT_LOAD
            load[0x08..0x10].copy_from_slice(&text_at.to_le_bytes());
            load[0x20..0x28].copy_from_slice(&32u64.to_le_bytes());
            load[0x28..0x30].copy_from_slice(&32u64.to_le_bytes());
            put(&mut image, &load, 8)
        });
        image[..8].copy_from_slice(b"\x7fELF\x02\x01\x01\x33");
        image[0x10..0x12].copy_from_slice(&spec.kind.to_le_bytes());
        image[0x12..0x14].copy_from_slice(&spec.machine.to_le_bytes());
        image[0x14..0x18].copy_from_slice(&1u32.to_le_bytes());
        image[0x20..0x28].copy_from_slice(&phoff.unwrap_or(0).to_le_bytes());
        image[0x28..0x30].copy_from_slice(&shoff.to_le_bytes());
        image[0x34..0x36].copy_from_slice(&64u16.to_le_bytes());
        image[0x36..0x38].copy_from_slice(&56u16.to_le_bytes());
        image[0x38..0x3a].copy_from_slice(&u16::from(spec.segments).to_le_bytes());
        image[0x3a..0x3c].copy_from_slice(&64u16.to_le_bytes());
        image[0x3c..0x3e].copy_from_slice(&u16::try_from(sections.len()).unwrap().to_le_bytes());
        image[0x3e..0x40].copy_from_slice(&1u16.to_le_bytes());
        image
    }

    /// A plain cubin for `machine` referencing `names` (undefined), as the earlier tests made.
    fn cubin(machine: u16, names: &[&str]) -> Vec<u8> {
        build(Spec {
            machine,
            defined: &[],
            undefined: names,
            ..Spec::plain()
        })
    }

    /// `at + by`, for a test's offsets.
    fn plus(at: usize, by: usize) -> usize {
        at.checked_add(by).unwrap()
    }

    /// Writes `value`'s low `width` bytes at `at`, where the image holds them.
    fn poke(image: &mut [u8], at: usize, width: usize, value: u64) {
        if let Some(field) = image.get_mut(at..plus(at, width)) {
            field.copy_from_slice(&value.to_le_bytes()[..width]);
        }
    }

    /// The offset of section `k`'s header in `image` (read from its header).
    fn section_at(image: &[u8], k: usize) -> usize {
        let shoff = usize::try_from(u64_at(image, 0x28).unwrap()).unwrap();
        plus(shoff, k.checked_mul(64).unwrap())
    }

    /// The refusal's text, which must be the profile's and name `what`.
    fn refused_naming(image: &[u8], what: &str) -> String {
        let e = check_restricted(image).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::OutsideProfile, "{e}");
        let text = e.to_string();
        assert!(text.contains(what), "wanted {what:?} in: {text}");
        text
    }

    #[test]
    fn a_plain_cubin_passes() {
        check_restricted(&cubin(EM_CUDA, &["frame_blur", "__cudart_table"])).unwrap();
        for (segments, relocations) in [(false, true), (true, false), (true, true)] {
            check_restricted(&build(Spec {
                segments,
                relocations,
                ..Spec::plain()
            }))
            .unwrap();
        }
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
        // A relocatable cubin (nvcc -rdc=true, as a device-side launch needs) is refused for
        // the device runtime it names, before its type.
        let rdc = build(Spec {
            kind: ET_REL,
            undefined: &["cudaLaunchDeviceV2"],
            relocations: true,
            ..Spec::plain()
        });
        refused_naming(&rdc, "device runtime's `cudaLaunchDeviceV2`");
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
            // A function of that name the cubin defines itself is its own, not the device
            // runtime's allocating one.
            check_restricted(&build(Spec {
                defined: &[f],
                ..Spec::plain()
            }))
            .unwrap();
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
        let e = check_restricted(&image[..image.len().checked_sub(8).unwrap()]).unwrap_err();
        assert_eq!(e.code(), Some(ffi::CUresult::CUDA_ERROR_INVALID_IMAGE));
    }

    /// The three images the earlier check accepted although they name `cudaLaunchDeviceV2`: it
    /// skipped what it could not read, and found no symbol there.
    #[test]
    fn a_device_runtime_symbol_the_reader_cannot_reach_is_a_refusal_not_a_pass() {
        let image = cubin(EM_CUDA, &["parent", "cudaLaunchDeviceV2"]);
        let symtab = section_at(&image, 3);
        // No symbol table: its section made PROGBITS (the names are still in .strtab).
        let mut none = image.clone();
        poke(&mut none, plus(symtab, 4), 4, 1);
        refused_naming(&none, "no symbol table (SHT_SYMTAB)");
        // The reference's name offset past the end of its string table.
        let mut past = image.clone();
        let strtab_size = u64_at(&image, plus(section_at(&image, 2), 0x20)).unwrap();
        let sym_at = usize::try_from(u64_at(&image, plus(symtab, 0x18)).unwrap()).unwrap();
        let reference = plus(sym_at, SYM_BYTES.checked_mul(2).unwrap());
        poke(&mut past, reference, 4, strtab_size);
        refused_naming(&past, "symbol 2's name at");
        // A symbol table linked to a section the image does not have, or to itself.
        for link in [99, 3, 0] {
            let mut bad = image.clone();
            poke(&mut bad, plus(symtab, 0x28), 4, link);
            refused_naming(&bad, "sh_link");
        }
    }

    /// One refusal per thing the reader requires: each a valid image changed in one place.
    #[test]
    #[allow(clippy::too_many_lines, reason = "one case a line")]
    fn whatever_the_reader_cannot_read_whole_is_refused_naming_it() {
        let image = build(Spec {
            segments: true,
            relocations: true,
            ..Spec::plain()
        });
        check_restricted(&image).unwrap();
        let changed = |at: usize, width: usize, value: u64| {
            let mut copy = image.clone();
            poke(&mut copy, at, width, value);
            copy
        };
        let shoff = usize::try_from(u64_at(&image, 0x28).unwrap()).unwrap();
        let len = image.len() as u64;
        let sh = |k: usize, field: usize| plus(section_at(&image, k), field);
        let sym_at = usize::try_from(u64_at(&image, sh(3, 0x18)).unwrap()).unwrap();
        // The symbol table 4 bytes on, one symbol shorter: within its own bytes still.
        let mut misaligned_symbols = changed(sh(3, 0x18), 8, plus(sym_at, 4) as u64);
        let symbols_size = u64_at(&image, sh(3, 0x20)).unwrap();
        poke(
            &mut misaligned_symbols,
            sh(3, 0x20),
            8,
            symbols_size.checked_sub(24).unwrap(),
        );
        assert_eq!(sym_at, 128);
        let cases: Vec<(Vec<u8>, &str)> = vec![
            (changed(5, 1, 0), "e_ident"),
            (changed(6, 1, 2), "e_ident"),
            (changed(0x34, 2, 52), "e_ehsize 52"),
            // Extended numbering: the count kept in section 0.
            (changed(0x3c, 2, 0), "no section table (e_shnum 0"),
            (changed(0x3c, 2, 0xff00), "e_shnum 65280"),
            (changed(0x3a, 2, 72), "entries of 72 bytes"),
            (changed(0x28, 8, 56), "overlap"),
            (changed(0x3e, 2, 0), "e_shstrndx 0"),
            (changed(0x3e, 2, 2), "section 2's name at 11 lies past"),
            (changed(0x3e, 2, 3), "not a string table"),
            (changed(shoff, 1, 1), "section 0 is not the null section"),
            (changed(sh(4, 0x18), 8, 64), "overlap"),
            (changed(sh(4, 0x18), 8, 20), "overlap"),
            (changed(sh(2, 0x20), 8, len), "lies past the end"),
            (changed(sh(4, 0x30), 8, 24), "alignment 24"),
            (changed(sh(4, 0x28), 4, 7), "sh_link 7"),
            (changed(sh(4, 4), 4, SHT_SYMTAB.into()), "two symbol tables"),
            (
                changed(sh(4, 4), 4, SHT_DYNSYM.into()),
                "dynamic symbol table",
            ),
            (
                changed(sh(4, 4), 4, SHT_SYMTAB_SHNDX.into()),
                "extended section indexes",
            ),
            (changed(sh(0, 0), 4, 0), ""), // section 0 stays null
            (changed(sh(3, 0x38), 8, 16), "entries are 16 bytes"),
            (
                misaligned_symbols,
                "the symbol table at 132 is not 8-byte aligned",
            ),
            (changed(sh(3, 0x20), 8, 40), "not a whole number of symbols"),
            (changed(sh(3, 0x2c), 4, 9), "sh_info 9"),
            (
                changed(sh(2, 0x20), 8, 3),
                "does not begin and end with a NUL",
            ),
            (
                changed(sh(1, 0x20), 8, 4),
                "does not begin and end with a NUL",
            ),
            (changed(sh(4, 0), 4, 999), "section 4's name at 999"),
            (
                changed(plus(sym_at, 1), 1, 1),
                "symbol 0 is not the null symbol",
            ),
            (changed(plus(sym_at, 24 + 6), 2, 7), "section index 7"),
            (
                changed(plus(sym_at, 24 + 6), 2, 0xffff),
                "section index 65535",
            ),
            (
                changed(sh(5, 0x28), 4, 2),
                "relocation section 5's sh_link 2",
            ),
            (changed(sh(5, 0x2c), 4, 0), "applies to section 0"),
            (changed(sh(5, 0x38), 8, 24), "not 16-byte entries"),
            (changed(sh(5, 0x20), 8, 8), "not a whole number of entries"),
            (changed(0x38, 2, 0xffff), "e_phnum 0xffff"),
            (changed(0x36, 2, 64), "program header entries of 64 bytes"),
            (changed(0x20, 8, plus(shoff, 8) as u64), "overlap"),
            (
                changed(0x20, 8, plus(shoff, 4) as u64),
                "not 8-byte aligned",
            ),
        ];
        for (copy, what) in cases {
            if what.is_empty() {
                check_restricted(&copy).unwrap();
                continue;
            }
            // The reader names it (what `check_elf` refuses first is its own refusal, an
            // invalid image), and the profile refuses the image.
            let e = check_restricted(&copy).unwrap_err();
            assert!(
                matches!(
                    e.kind(),
                    ErrorKind::OutsideProfile | ErrorKind::InvalidImage
                ),
                "{what}: {e}"
            );
            let text = match read(&copy) {
                Err(text) => text,
                Ok(_) => e.to_string(),
            };
            assert!(text.contains(what), "wanted {what:?} in: {text}");
        }
        // Read whole, but not linked: refused by its type.
        refused_naming(
            &changed(0x10, 2, ET_REL.into()),
            "a relocatable cubin (ET_REL",
        );
        refused_naming(&changed(0x10, 2, 3), "type 3, not a linked cubin");
        // A relocation naming a symbol past the table.
        let rel_at = usize::try_from(u64_at(&image, sh(5, 0x18)).unwrap()).unwrap();
        refused_naming(&changed(plus(rel_at, 12), 4, 3), "names symbol 3");
        // A section table or a segment past the end: `check_elf`'s refusals, an invalid image.
        let phoff = usize::try_from(u64_at(&image, 0x20).unwrap()).unwrap();
        for copy in [
            changed(0x28, 8, u64::MAX),
            changed(plus(phoff, 0x20), 8, len),
        ] {
            let e = check_restricted(&copy).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::InvalidImage, "{e}");
        }
    }

    /// Interesting values for a field `width` bytes wide of an image of `len` bytes.
    fn interesting(rng: &mut Rng, width: usize, len: usize, old: u64) -> u64 {
        let len = len as u64;
        let choices = [
            0,
            1,
            2,
            3,
            7,
            8,
            24,
            56,
            64,
            len.wrapping_sub(1),
            len,
            len.wrapping_add(1),
            old.wrapping_add(1),
            old.wrapping_sub(1),
            old.wrapping_add(8),
            old.wrapping_sub(8),
            old.wrapping_add(24),
            0xff00,
            0xfff1,
            0xffff,
            u64::from(u32::MAX),
            u64::MAX,
            rng.next(),
        ];
        let value = choices[rng.below(choices.len())];
        match width {
            1 => value & 0xff,
            2 => value & 0xffff,
            4 => value & 0xffff_ffff,
            _ => value,
        }
    }

    /// xorshift64*, seeded: the fuzz test's mutations repeat run after run.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0.wrapping_shr(12);
            self.0 ^= self.0.wrapping_shl(25);
            self.0 ^= self.0.wrapping_shr(27);
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }

        /// A number below `n` (not zero).
        fn below(&mut self, n: usize) -> usize {
            usize::try_from(self.next().checked_rem(n as u64).unwrap()).unwrap()
        }
    }

    /// Where a seed's tables lie, read from it, so that a mutation can aim at their fields.
    struct Shape {
        shoff: usize,
        shnum: usize,
        /// Section index, offset and size of the (first) symbol table and of its strings.
        symtab: Option<(usize, usize, usize)>,
        strtab: Option<(usize, usize)>,
    }

    impl Shape {
        fn of(seed: &[u8]) -> Self {
            let shoff = usize::try_from(u64_at(seed, 0x28).unwrap()).unwrap();
            let shnum = usize::from(u16_at(seed, 0x3c).unwrap());
            let field = |k: usize, at: usize| {
                usize::try_from(u64_at(seed, plus(section_at(seed, k), at)).unwrap()).unwrap()
            };
            let symtab = (0..shnum)
                .find(|&k| u32_at(seed, plus(section_at(seed, k), 4)) == Some(SHT_SYMTAB))
                .map(|k| (k, field(k, 0x18), field(k, 0x20)));
            let strtab = symtab.map(|(k, _, _)| {
                let link = usize::try_from(u32_at(seed, plus(section_at(seed, k), 0x28)).unwrap());
                let link = link.unwrap();
                (field(link, 0x18), field(link, 0x20))
            });
            Self {
                shoff,
                shnum,
                symtab,
                strtab,
            }
        }
    }

    /// One mutation of `image` (a mutant of the seed `shape` describes).
    fn mutate(image: &mut Vec<u8>, shape: &Shape, rng: &mut Rng) {
        let len = image.len();
        match rng.below(9) {
            // A bit flipped anywhere.
            0 if len > 0 => {
                let at = rng.below(len);
                image[at] ^= 1u8.wrapping_shl(u32::try_from(rng.below(8)).unwrap());
            }
            // Cut short anywhere.
            1 => image.truncate(rng.below(plus(len, 1))),
            // A field of the ELF header overwritten.
            2 => {
                let fields = [
                    (0x10, 2),
                    (0x20, 8),
                    (0x28, 8),
                    (0x34, 2),
                    (0x36, 2),
                    (0x38, 2),
                    (0x3a, 2),
                    (0x3c, 2),
                    (0x3e, 2),
                ];
                let (at, width) = fields[rng.below(fields.len())];
                let old = u64_at(image, at).unwrap_or(0);
                let value = interesting(rng, width, len, old);
                poke(image, at, width, value);
            }
            // A field of a section header overwritten (e_shnum's sections, and one past).
            3 => {
                let k = rng.below(plus(shape.shnum, 1));
                let fields = [
                    (0, 4),
                    (4, 4),
                    (0x18, 8),
                    (0x20, 8),
                    (0x28, 4),
                    (0x2c, 4),
                    (0x30, 8),
                    (0x38, 8),
                ];
                let (field, width) = fields[rng.below(fields.len())];
                let at = plus(plus(shape.shoff, k.checked_mul(64).unwrap()), field);
                let old = u64_at(image, at).unwrap_or(0);
                let value = interesting(rng, width, len, old);
                poke(image, at, width, value);
            }
            // A field of a symbol overwritten: its name's offset, its section index, its type.
            4 => {
                if let Some((_, at, size)) = shape.symtab {
                    let k = rng.below(plus(size.checked_div(SYM_BYTES).unwrap(), 1));
                    let (field, width) = [(0, 4), (6, 2), (4, 1)][rng.below(3)];
                    let at = plus(plus(at, k.checked_mul(SYM_BYTES).unwrap()), field);
                    let old = u64_at(image, at).unwrap_or(0);
                    let value = interesting(rng, width, len, old);
                    poke(image, at, width, value);
                }
            }
            // The symbol table removed: its type changed, or the count cut before it.
            5 => {
                if let Some((k, _, _)) = shape.symtab {
                    if rng.below(2) == 0 {
                        let kind = [0u64, 1, 8, 11, 3][rng.below(5)];
                        poke(
                            image,
                            plus(plus(shape.shoff, k.checked_mul(64).unwrap()), 4),
                            4,
                            kind,
                        );
                    } else {
                        poke(image, 0x3c, 2, k as u64);
                    }
                }
            }
            // Bytes appended, or a run of bytes overwritten.
            6 => image.extend((0..rng.below(100)).map(|_| rng.next().to_le_bytes()[0])),
            7 if len > 0 => {
                let at = rng.below(len);
                for _ in 0..rng.below(16) {
                    let byte = rng.next().to_le_bytes()[0];
                    if let Some(b) = image.get_mut(plus(at, rng.below(16))) {
                        *b = byte;
                    }
                }
            }
            // A byte of the symbols' string table overwritten (a NUL removed, a name changed).
            _ => {
                if let Some((at, size)) = shape.strtab {
                    if size > 0 {
                        let value = [0u64, u64::from(b'A'), rng.next()][rng.below(3)];
                        poke(image, plus(at, rng.below(size)), 1, value);
                    }
                }
            }
        }
    }

    /// An independent, simple reading of an ELF64 image: the symbols of all its symbol tables
    /// (`SHT_SYMTAB` and `SHT_DYNSYM`), each with whether it is undefined (its section index 0
    /// or past the table), or `None` where it finds no symbol table, or anything it reads out of
    /// bounds: the header, a section header, a section's bytes (but a `NOBITS` one's), a symbol
    /// table's link, a symbol, a name with no NUL before its table ends.
    fn reference(image: &[u8]) -> Option<Vec<(&[u8], bool)>> {
        fn bytes(image: &[u8], at: u64, n: u64) -> Option<&[u8]> {
            let at = usize::try_from(at).ok()?;
            image.get(at..at.checked_add(usize::try_from(n).ok()?)?)
        }
        fn le(image: &[u8], at: u64, n: u64) -> Option<u64> {
            let mut word = [0u8; 8];
            word[..usize::try_from(n).ok()?].copy_from_slice(bytes(image, at, n)?);
            Some(u64::from_le_bytes(word))
        }
        if bytes(image, 0, 4)? != b"\x7fELF" {
            return None;
        }
        let (shoff, entry, count) = (
            le(image, 0x28, 8)?,
            le(image, 0x3a, 2)?,
            le(image, 0x3c, 2)?,
        );
        if entry < 64 {
            return None;
        }
        let header = |k: u64| shoff.checked_add(k.checked_mul(entry)?);
        let field = |k: u64, at: u64, n: u64| le(image, header(k)?.checked_add(at)?, n);
        let mut tables = 0;
        let mut symbols = Vec::new();
        for k in 0..count {
            let (kind, offset, size) = (field(k, 4, 4)?, field(k, 0x18, 8)?, field(k, 0x20, 8)?);
            if kind != 8 {
                bytes(image, offset, size)?;
            }
            if kind != 2 && kind != 11 {
                continue;
            }
            tables = plus(tables, 1);
            let link = field(k, 0x28, 4)?;
            if link >= count {
                return None;
            }
            let names = bytes(image, field(link, 0x18, 8)?, field(link, 0x20, 8)?)?;
            if size.checked_rem(24)? != 0 {
                return None;
            }
            for s in 0..size.checked_div(24)? {
                let at = offset.checked_add(s.checked_mul(24)?)?;
                let from = usize::try_from(le(image, at, 4)?).ok()?;
                let rest = names.get(from..)?;
                let name = rest.get(..rest.iter().position(|&b| b == 0)?)?;
                let index = le(image, at.checked_add(6)?, 2)?;
                symbols.push((name, index == 0 || index >= count));
            }
        }
        (tables > 0).then_some(symbols)
    }

    /// Whether the reference's symbols include one the profile refuses.
    fn forbidden(symbols: &[(&[u8], bool)]) -> bool {
        symbols.iter().any(|&(name, undefined)| {
            DEVICE_RUNTIME
                .iter()
                .any(|p| name.starts_with(p.as_bytes()))
                || (undefined && DEVICE_ALLOCATING.iter().any(|f| name == f.as_bytes()))
        })
    }

    /// The seeds: small cubins built here, plain and naming what the profile refuses, with and
    /// without program headers and relocations; and the cubins nvcc built for the GPU tests,
    /// where their variables are set (`scripts/gpu-bundle.sh`'s run.sh sets them).
    fn seeds() -> Vec<Vec<u8>> {
        let mut seeds = Vec::new();
        let names: [&[&str]; 4] = [
            &["cudaGraphSetConditional"],
            &["cudaLaunchDeviceV2", "cudaGetParameterBufferV2"],
            &["malloc", "vprintf"],
            &[],
        ];
        for undefined in names {
            for (segments, relocations) in [(false, false), (true, true)] {
                seeds.push(build(Spec {
                    defined: &["kernel", "free"],
                    undefined,
                    segments,
                    relocations,
                    ..Spec::plain()
                }));
            }
        }
        if !cfg!(miri) {
            for var in [
                "CUSTACK_FRAME_CUBIN",
                "CUSTACK_PROCESS_CUBIN",
                "CUSTACK_REDUNDANCY_CUBIN",
                "CUSTACK_CONDITIONAL_CUBIN",
                "CUSTACK_DEVICE_LAUNCH_CUBIN",
            ] {
                if let Some(image) = std::env::var_os(var).and_then(|p| std::fs::read(p).ok()) {
                    seeds.push(image);
                }
            }
        }
        seeds
    }

    /// The fuzz test: seeded mutations of valid cubins (bit flips, truncations, the header's and
    /// the section headers' offsets, sizes, counts and links overwritten, symbols' names and
    /// section indexes, the symbol table removed, bytes appended or overwritten), each checked:
    /// no panic, and either refused or accepted only where the independent reading of
    /// [`reference`] finds every section and symbol within the image and no symbol the profile
    /// refuses. Deterministic (seeded): 100,000 mutants, about half a second of one core
    /// unoptimized; 200 under Miri. The seeds include the GPU tests' nvcc cubins where their
    /// variables are set.
    #[test]
    fn every_mutant_of_a_cubin_is_refused_or_read_whole_and_clean() {
        let seeds = seeds();
        // The seeds themselves: read whole; accepted exactly when they name nothing refused.
        for seed in &seeds {
            let symbols = reference(seed).expect("a seed the reference reads whole");
            assert_eq!(
                check_restricted(seed).is_ok(),
                !forbidden(&symbols),
                "{:?}",
                check_restricted(seed)
            );
        }
        let shapes: Vec<Shape> = seeds.iter().map(|s| Shape::of(s)).collect();
        let rounds: usize = if cfg!(miri) { 200 } else { 100_000 };
        let mut rng = Rng(0x00C0_FFEE_CB1A_5EED);
        let outcomes: Vec<bool> = (0..rounds)
            .map(|round| {
                let k = rng.below(seeds.len());
                let mut image = seeds[k].clone();
                for _ in 0..=rng.below(3) {
                    mutate(&mut image, &shapes[k], &mut rng);
                }
                match check_restricted(&image) {
                    Ok(()) => {
                        let symbols = reference(&image).unwrap_or_else(|| {
                            panic!("round {round}: accepted, but not read whole by the reference")
                        });
                        assert!(
                            !forbidden(&symbols),
                            "round {round}: accepted an image naming what the profile refuses"
                        );
                        true
                    }
                    Err(e) => {
                        assert!(
                            matches!(
                                e.kind(),
                                ErrorKind::OutsideProfile | ErrorKind::InvalidImage
                            ),
                            "round {round}: {e}"
                        );
                        false
                    }
                }
            })
            .collect();
        let accepted = outcomes.iter().filter(|&&ok| ok).count();
        // Both outcomes are common: the mutants are neither all broken nor all harmless.
        let tenth = rounds.checked_div(10).unwrap();
        assert!(
            accepted > tenth && rounds.checked_sub(accepted).unwrap() > tenth,
            "{accepted} of {rounds} accepted"
        );
    }
}
