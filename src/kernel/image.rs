//! A module image read before the driver reads it: the driver takes only a pointer and trusts
//! the lengths inside, so what custack can check of a cubin (an ELF64 image) or a fatbin is
//! checked here first ([`check_elf`], [`check_fatbin`]), with the little-endian readers the
//! restricted profile's image checks use too.

use crate::error::{Error, ErrorKind, Result};

/// The `N` bytes at `at`, if `bytes` holds them.
fn bytes_at<const N: usize>(bytes: &[u8], at: usize) -> Option<[u8; N]> {
    bytes.get(at..at.checked_add(N)?)?.try_into().ok()
}

/// The little-endian `u64` at `at`, if `bytes` holds it.
pub(crate) fn u64_at(bytes: &[u8], at: usize) -> Option<u64> {
    bytes_at(bytes, at).map(u64::from_le_bytes)
}

/// The little-endian `u32` at `at`, if `bytes` holds it.
pub(crate) fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    bytes_at(bytes, at).map(u32::from_le_bytes)
}

/// The little-endian `u16` at `at`, if `bytes` holds it.
pub(crate) fn u16_at(bytes: &[u8], at: usize) -> Option<u16> {
    bytes_at(bytes, at).map(u16::from_le_bytes)
}

/// Checks what of a cubin custack can check against `image` before the driver, which gets only
/// a pointer, reads it: an ELF64 header; the section header table and the program header table
/// within the image, with entries of at least their standard sizes; every section but the
/// `NOBITS` ones (which occupy no bytes) and every segment's bytes within the image; the section
/// name table's index a section. What the driver then parses inside the sections (symbols,
/// relocations, NVIDIA's `.nv.info` attribute records, whose own lengths it trusts) is not
/// checked: the format is not published.
pub(crate) fn check_elf(image: &[u8]) -> Result<()> {
    const SHT_NOBITS: u32 = 8;
    let bad = |why: String| {
        Err(Error::from_kind(ErrorKind::InvalidImage).with_detail(format!("cubin: {why}")))
    };
    let Some(header) = image.get(..64) else {
        return bad("shorter than an ELF64 header".into());
    };
    if header.get(..4) != Some(b"\x7fELF".as_slice()) || header.get(4) != Some(&2) {
        return bad("not an ELF64 image".into());
    }
    if header.get(5) == Some(&2) {
        return bad("a big-endian ELF image".into());
    }
    // Each reads at `base + o`, `None` where that overflows or lies past the image.
    let at = |base: usize, o: usize| base.checked_add(o);
    let u64_at = |o: usize| u64_at(image, o);
    let u32_at = |o: usize| u32_at(image, o);
    let u16_at = |o: usize| u16_at(image, o);
    let entry = |table: usize, k: usize, size: u16| {
        k.checked_mul(usize::from(size))
            .and_then(|o| table.checked_add(o))
    };
    let len = image.len() as u64;
    // `count` entries of `size` bytes from `offset`: their start (as an index) if within.
    let table = |offset: u64, size: u16, count: u16| -> Option<usize> {
        let end = u64::from(size)
            .checked_mul(u64::from(count))?
            .checked_add(offset)?;
        (end <= len).then(|| usize::try_from(offset).ok()).flatten()
    };
    let within = |offset: u64, size: u64| offset.checked_add(size).is_some_and(|e| e <= len);
    let (Some(phoff), Some(shoff)) = (u64_at(0x20), u64_at(0x28)) else {
        return bad("truncated header".into());
    };
    let (Some(phentsize), Some(phnum), Some(shentsize), Some(shnum), Some(shstrndx)) = (
        u16_at(0x36),
        u16_at(0x38),
        u16_at(0x3a),
        u16_at(0x3c),
        u16_at(0x3e),
    ) else {
        return bad("truncated header".into());
    };
    let Some(sections) = table(shoff, shentsize, shnum) else {
        return bad("section table lies beyond the end of the image".into());
    };
    if shnum > 0 && shentsize < 64 {
        return bad(format!(
            "section header entries of {shentsize} bytes (64 at least)"
        ));
    }
    if shnum > 0 && shstrndx >= shnum {
        return bad(format!("section name table {shstrndx} of {shnum} sections"));
    }
    for k in 0..usize::from(shnum) {
        let field = |o| entry(sections, k, shentsize).and_then(|e| at(e, o));
        let (Some(kind), Some(offset), Some(size)) = (
            field(4).and_then(u32_at),
            field(0x18).and_then(u64_at),
            field(0x20).and_then(u64_at),
        ) else {
            return bad("truncated section header".into());
        };
        if kind != SHT_NOBITS && !within(offset, size) {
            return bad(format!(
                "section {k} ({size} bytes at {offset}) lies beyond the end of the image"
            ));
        }
    }
    let Some(segments) = table(phoff, phentsize, phnum) else {
        return bad("program header table lies beyond the end of the image".into());
    };
    if phnum > 0 && phentsize < 56 {
        return bad(format!(
            "program header entries of {phentsize} bytes (56 at least)"
        ));
    }
    for k in 0..usize::from(phnum) {
        let field = |o| entry(segments, k, phentsize).and_then(|e| at(e, o));
        let (Some(offset), Some(size)) =
            (field(0x08).and_then(u64_at), field(0x20).and_then(u64_at))
        else {
            return bad("truncated program header".into());
        };
        if !within(offset, size) {
            return bad(format!(
                "segment {k} ({size} bytes at {offset}) lies beyond the end of the image"
            ));
        }
    }
    Ok(())
}

pub(crate) fn check_fatbin(image: &[u8]) -> Result<()> {
    let bad = |why: &str| {
        Err(Error::from_kind(ErrorKind::InvalidImage).with_detail(format!("fatbin: {why}")))
    };
    // Fatbin header: u32 magic 0xBA55ED50, u16 version, u16 header size, u64 size of the rest.
    let Some(h) = image.get(..16) else {
        return bad("shorter than a fatbin header");
    };
    let magic = h
        .get(..4)
        .and_then(|b| b.try_into().ok())
        .map(u32::from_le_bytes);
    let hsize = h
        .get(6..8)
        .and_then(|b| b.try_into().ok())
        .map(u16::from_le_bytes);
    let size = h
        .get(8..16)
        .and_then(|b| b.try_into().ok())
        .map(u64::from_le_bytes);
    match (magic, hsize, size) {
        (Some(0xBA55_ED50), Some(hs), Some(sz))
            if u64::from(hs)
                .checked_add(sz)
                .is_some_and(|e| e <= image.len() as u64) =>
        {
            Ok(())
        }
        (Some(0xBA55_ED50), ..) => bad("the header's size lies beyond the end of the image"),
        _ => bad("no fatbin magic"),
    }
}

#[cfg(test)]
mod tests {
    use super::{check_elf, check_fatbin};
    use crate::error::ErrorKind;

    #[test]
    fn image_headers_are_checked_before_the_driver_reads_them() {
        let short = check_elf(b"\x7fELF\x02short").unwrap_err();
        assert_eq!(short.kind(), ErrorKind::InvalidImage);
        assert!(
            short.to_string().contains("shorter than an ELF64 header"),
            "{short}"
        );
        let mut elf = [0u8; 64];
        elf[..5].copy_from_slice(b"\x7fELF\x02");
        assert!(
            check_elf(&elf).is_ok(),
            "no section table: the header alone"
        );
        elf[0x28..0x30].copy_from_slice(&64u64.to_le_bytes()); // section table at 64...
        elf[0x3a..0x3c].copy_from_slice(&64u16.to_le_bytes()); // ...of 64-byte entries...
        elf[0x3c..0x3e].copy_from_slice(&1u16.to_le_bytes()); // ...one of them: beyond the bytes
        let beyond = check_elf(&elf).unwrap_err();
        assert!(
            beyond.to_string().contains("section table lies beyond"),
            "{beyond}"
        );
        assert!(
            check_elf(b"\x7fELF\x01 a 32-bit ELF header, 64 bytes long .................").is_err()
        );
        // One section header (64 bytes at 64) and the name table index 0: each section's bytes
        // must lie within the image, unless it occupies none (NOBITS, as .bss).
        let mut elf = vec![0u8; 64 + 64 + 16];
        elf[..5].copy_from_slice(b"\x7fELF\x02");
        elf[0x28..0x30].copy_from_slice(&64u64.to_le_bytes());
        elf[0x3a..0x3c].copy_from_slice(&64u16.to_le_bytes());
        elf[0x3c..0x3e].copy_from_slice(&1u16.to_le_bytes());
        let section = |elf: &mut Vec<u8>, kind: u32, offset: u64, size: u64| {
            elf[64 + 4..64 + 8].copy_from_slice(&kind.to_le_bytes());
            elf[64 + 0x18..64 + 0x20].copy_from_slice(&offset.to_le_bytes());
            elf[64 + 0x20..64 + 0x28].copy_from_slice(&size.to_le_bytes());
        };
        section(&mut elf, 1, 128, 16); // PROGBITS, the last 16 bytes
        assert!(check_elf(&elf).is_ok());
        section(&mut elf, 1, 128, 17);
        let e = check_elf(&elf).unwrap_err();
        assert!(
            e.to_string()
                .contains("section 0 (17 bytes at 128) lies beyond"),
            "{e}"
        );
        section(&mut elf, 1, u64::MAX, 2); // the end overflows
        assert!(check_elf(&elf).is_err());
        section(&mut elf, 8, 128, 1 << 20); // NOBITS: no bytes in the file
        assert!(check_elf(&elf).is_ok());
        elf[0x3e..0x40].copy_from_slice(&1u16.to_le_bytes()); // name table 1 of 1 section
        assert!(check_elf(&elf).is_err());
        elf[0x3e..0x40].copy_from_slice(&0u16.to_le_bytes());
        elf[0x3a..0x3c].copy_from_slice(&40u16.to_le_bytes()); // entries shorter than ELF64's
        assert!(check_elf(&elf).is_err());
        elf[0x3a..0x3c].copy_from_slice(&64u16.to_le_bytes());
        // A program header table (one 56-byte entry at 64, over the section header) whose
        // segment runs past the end.
        elf[0x20..0x28].copy_from_slice(&64u64.to_le_bytes());
        elf[0x36..0x38].copy_from_slice(&56u16.to_le_bytes());
        elf[0x38..0x3a].copy_from_slice(&1u16.to_le_bytes());
        elf[64 + 0x08..64 + 0x10].copy_from_slice(&100u64.to_le_bytes());
        elf[64 + 0x20..64 + 0x28].copy_from_slice(&100u64.to_le_bytes());
        let e = check_elf(&elf).unwrap_err();
        assert!(
            e.to_string()
                .contains("segment 0 (100 bytes at 100) lies beyond"),
            "{e}"
        );

        let mut fatbin = [0u8; 16];
        fatbin[..4].copy_from_slice(&0xBA55_ED50u32.to_le_bytes());
        fatbin[6..8].copy_from_slice(&16u16.to_le_bytes());
        assert!(check_fatbin(&fatbin).is_ok());
        fatbin[8..16].copy_from_slice(&1u64.to_le_bytes()); // one byte more than given
        let beyond = check_fatbin(&fatbin).unwrap_err();
        assert!(
            beyond.to_string().contains("lies beyond the end"),
            "{beyond}"
        );
        assert!(
            check_fatbin(&[0u8; 16])
                .unwrap_err()
                .to_string()
                .contains("no fatbin magic")
        );
        assert!(check_fatbin(&[0u8; 8]).is_err());
    }
}
