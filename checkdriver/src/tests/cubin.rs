//! The cubin builder's own tests (`cubin.rs`): each image read back as an ELF64 reader would,
//! independently of `function_names` and `declarations`. They live here, not in `cubin.rs`,
//! because users (and `benches/checking`) compile that file into their own tests with `#[path]`
//! (the guide page "Testing GPU code without a GPU"): a test module inside it would run in
//! their test binaries.

use crate::cubin::{
    DECLARATIONS_SECTION, cubin, declarations, extent, function_names, section_table,
    stand_in_cubin,
};

fn u16le(b: &[u8], at: usize) -> usize {
    usize::from(u16::from_le_bytes([b[at], b[at + 1]]))
}
fn u32le(b: &[u8], at: usize) -> usize {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap()) as usize
}
fn u64le(b: &[u8], at: usize) -> usize {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap()) as usize
}
fn c_str(b: &[u8], at: usize) -> String {
    let end = at + b[at..].iter().position(|&c| c == 0).unwrap();
    String::from_utf8(b[at..end].to_vec()).unwrap()
}

/// A symbol as read back: name, type, binding, `st_other`, `st_shndx`'s section name ("" when
/// 0).
type Symbol = (String, u8, u8, u8, String);

/// Walks `image` as an ELF64 reader would, independently of `function_names`: checks the
/// header and that every section lies within the image, and returns the section names
/// and the symbols.
fn read_back(image: &[u8]) -> (Vec<String>, Vec<Symbol>) {
    assert_eq!(&image[..4], b"\x7fELF");
    assert_eq!((image[4], image[5]), (2, 1), "ELF64, little-endian");
    assert_eq!(u16le(image, 0x10), 2, "ET_EXEC");
    assert_eq!(u16le(image, 0x12), 190, "EM_CUDA");
    assert_eq!(
        (u64le(image, 0x20), u16le(image, 0x38)),
        (0, 0),
        "no program headers"
    );
    let (shoff, shentsize, shnum, shstrndx) = (
        u64le(image, 0x28),
        u16le(image, 0x3a),
        u16le(image, 0x3c),
        u16le(image, 0x3e),
    );
    assert_eq!(shentsize, 64);
    assert!(shstrndx < shnum);
    assert!(shoff + shnum * shentsize <= image.len());
    let sh = |k: usize| &image[shoff + k * 64..shoff + (k + 1) * 64];
    assert!(sh(0).iter().all(|&b| b == 0), "the null section first");
    for k in 0..shnum {
        assert!(
            u64le(sh(k), 0x18) + u64le(sh(k), 0x20) <= image.len(),
            "section {k}"
        );
    }
    let shstr = u64le(sh(shstrndx), 0x18);
    let names: Vec<String> = (0..shnum)
        .map(|k| c_str(image, shstr + u32le(sh(k), 0)))
        .collect();
    let symtab = (0..shnum)
        .find(|&k| u32le(sh(k), 4) == 2)
        .expect("a .symtab");
    assert_eq!(names[symtab], ".symtab");
    assert_eq!(u64le(sh(symtab), 0x38), 24, "24-byte symbols");
    let strtab = u32le(sh(symtab), 0x28);
    assert_eq!(names[strtab], ".strtab");
    assert_eq!(u32le(sh(strtab), 4), 3, "SHT_STRTAB");
    let (sym_at, sym_size) = (u64le(sh(symtab), 0x18), u64le(sh(symtab), 0x20));
    let str_at = u64le(sh(strtab), 0x18);
    assert_eq!(sym_size % 24, 0);
    assert!(
        image[sym_at..sym_at + 24].iter().all(|&b| b == 0),
        "the null symbol first"
    );
    let symbols = (1..sym_size / 24)
        .map(|k| {
            let s = &image[sym_at + 24 * k..sym_at + 24 * (k + 1)];
            let shndx = u16le(s, 6);
            (
                c_str(image, str_at + u32le(s, 0)),
                s[4] & 0xf,
                s[4] >> 4,
                s[5],
                if shndx == 0 {
                    String::new()
                } else {
                    names[shndx].clone()
                },
            )
        })
        .collect();
    (names, symbols)
}

#[test]
fn a_cubin_reads_back_with_its_functions_and_references() {
    let image = cubin(
        &["parent", "child"],
        &["cudaLaunchDeviceV2", "cudaGetParameterBufferV2"],
    );
    let (sections, symbols) = read_back(&image);
    assert_eq!(
        sections,
        [
            "",
            ".shstrtab",
            ".strtab",
            ".symtab",
            ".text.parent",
            ".text.child"
        ]
    );
    // Kernels: STT_FUNC (2), marked STO_CUDA_ENTRY (0x10); references: STT_NOTYPE (0),
    // undefined; all STB_GLOBAL (1).
    let s = |name: &str, kind, other, section: &str| {
        (name.to_owned(), kind, 1, other, section.to_owned())
    };
    assert_eq!(
        symbols,
        [
            s("parent", 2, 0x10, ".text.parent"),
            s("child", 2, 0x10, ".text.child"),
            s("cudaLaunchDeviceV2", 0, 0, ""),
            s("cudaGetParameterBufferV2", 0, 0, ""),
        ]
    );
    assert_eq!(
        function_names(&image),
        Some(vec!["parent".to_owned(), "child".to_owned()])
    );
    let (shoff, shentsize, shnum) = section_table(&image).unwrap();
    let table = &image[shoff..shoff + shentsize * shnum];
    assert_eq!(extent(shoff, shentsize, table), Some(image.len()));
}

const DECLARATIONS: &str = ".version 7.0\n.target sm_90\n.address_size 64\n\
    .visible .entry frame_blur(.param .u64 input, .param .u64 output, .param .u32 width, \
    .param .u32 height) { ret; }\n\
    .visible .entry frame_gain(.param .u64 data, .param .f32 gain, .param .u32 n) { ret; }\n";

/// Section `k`'s header, from the section table.
fn section_header(image: &[u8], k: usize) -> usize {
    u64le(image, 0x28) + k * 64
}

#[test]
fn a_stand_in_cubin_reads_back_with_its_declarations_and_functions() {
    let image = stand_in_cubin(&["frame_blur", "frame_gain"], &[], DECLARATIONS);
    let (sections, symbols) = read_back(&image);
    assert_eq!(
        sections,
        [
            "",
            ".shstrtab",
            ".strtab",
            ".symtab",
            ".text.frame_blur",
            ".text.frame_gain",
            DECLARATIONS_SECTION,
        ]
    );
    let kernel = |name: &str| (name.to_owned(), 2, 1, 0x10, format!(".text.{name}"));
    assert_eq!(symbols, [kernel("frame_blur"), kernel("frame_gain")]);
    // What the checking driver reads: the declarations, byte for byte, and the kernels.
    assert_eq!(declarations(&image), Some(DECLARATIONS.as_bytes()));
    assert_eq!(
        function_names(&image),
        Some(vec!["frame_blur".to_owned(), "frame_gain".to_owned()])
    );
    // The bytes the checking driver reads of a loaded image end where the image ends.
    let (shoff, shentsize, shnum) = section_table(&image).unwrap();
    let table = &image[shoff..shoff + shentsize * shnum];
    assert_eq!(extent(shoff, shentsize, table), Some(image.len()));
}

#[test]
fn a_stand_in_cubin_is_the_plain_cubin_plus_one_section() {
    let (functions, extra) = (["k"], ["cudaLaunchDeviceV2"]);
    let plain = cubin(&functions, &extra);
    let stand_in = stand_in_cubin(&functions, &extra, DECLARATIONS);
    let (plain_sections, plain_symbols) = read_back(&plain);
    let (sections, symbols) = read_back(&stand_in);
    assert_eq!(symbols, plain_symbols);
    assert_eq!(sections[..plain_sections.len()], plain_sections[..]);
    assert_eq!(sections[plain_sections.len()..], [DECLARATIONS_SECTION]);
    assert_eq!(declarations(&plain), None);
    assert_eq!(function_names(&stand_in), function_names(&plain));
    // Empty declarations are still a section, and read back empty.
    let empty = stand_in_cubin(&[], &[], "");
    assert_eq!(declarations(&empty), Some(&b""[..]));
}

#[test]
fn a_missing_or_truncated_declarations_section_is_not_read() {
    let image = stand_in_cubin(&["frame_blur", "frame_gain"], &[], DECLARATIONS);
    let ptx_header = section_header(&image, 6);
    // No section of that name: one letter of its name changed in .shstrtab.
    let mut renamed = image.clone();
    let name_at = u64le(&image, section_header(&image, 1) + 0x18) + u32le(&image, ptx_header);
    assert_eq!(c_str(&image, name_at), DECLARATIONS_SECTION);
    renamed[name_at + 1] = b'k';
    assert_eq!(declarations(&renamed), None);
    // The kernels are still named: the driver treats it as a plain cubin.
    assert_eq!(function_names(&renamed), function_names(&image));
    // A section that runs past the end of the image (its sh_size one byte too large).
    let mut long = image.clone();
    let size_at = ptx_header + 0x20;
    let beyond = (image.len() - u64le(&image, ptx_header + 0x18) + 1) as u64;
    long[size_at..size_at + 8].copy_from_slice(&beyond.to_le_bytes());
    assert_eq!(declarations(&long), None);
    // The image cut short, through the declarations (the section table is lost with it).
    let at = u64le(&image, ptx_header + 0x18);
    assert_eq!(declarations(&image[..at + 10]), None);
    // The section table cut after the declarations' header's name, before its offset.
    assert_eq!(declarations(&image[..ptx_header + 8]), None);
}

#[test]
fn a_function_not_marked_as_a_kernel_is_not_named() {
    let mut image = cubin(&["device_fn", "kernel"], &[]);
    let shoff = u64le(&image, 0x28);
    let symtab_at = u64le(&image, shoff + 3 * 64 + 0x18);
    // The first symbol after the null one: clear its STO_CUDA_ENTRY.
    image[symtab_at + 24 + 5] = 0;
    assert_eq!(function_names(&image), Some(vec!["kernel".to_owned()]));
}

#[test]
fn an_empty_cubin_is_still_well_formed() {
    let image = cubin(&[], &[]);
    let (sections, symbols) = read_back(&image);
    assert_eq!(sections, ["", ".shstrtab", ".strtab", ".symtab"]);
    assert!(symbols.is_empty());
    assert_eq!(function_names(&image), Some(vec![]));
}

#[test]
fn images_without_a_symbol_table_name_nothing() {
    // A bare ELF64 header, no sections (what the double's linker hands out).
    let mut header = [0u8; 64];
    header[..6].copy_from_slice(b"\x7fELF\x02\x01");
    assert_eq!(function_names(&header), None);
    // A symbol table that lies beyond the image (its sh_size made too large).
    let image = cubin(&["k"], &[]);
    assert_eq!(function_names(&image), Some(vec!["k".to_owned()]));
    let shoff = u64le(&image, 0x28);
    let mut beyond = image.clone();
    let size_at = shoff + 3 * 64 + 0x20;
    beyond[size_at..size_at + 8].copy_from_slice(&(image.len() as u64).to_le_bytes());
    assert_eq!(function_names(&beyond), None);
    // A section table that lies beyond the image.
    assert_eq!(function_names(&image[..shoff + 64]), None);
    // Not ELF64 little-endian.
    let mut big = image.clone();
    big[5] = 2;
    assert_eq!(function_names(&big), None);
}

#[test]
fn the_builder_included_by_path_brings_no_tests() {
    // Users compile `cubin.rs` into their tests with `#[path]`: a test (or a test-only module)
    // in it would run, or be compiled, in their test binaries.
    let source = include_str!("../cubin.rs");
    for marker in ["#[test]", "#[cfg(test)]", "mod tests"] {
        assert!(
            !source.contains(marker),
            "checkdriver/src/cubin.rs holds `{marker}`: its tests belong in src/tests/cubin.rs"
        );
    }
}
