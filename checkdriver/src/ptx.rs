//! What the checking mode reads from PTX text: each `.entry`'s parameter sizes (so a launch's
//! `kernelParams` can be read argument by argument) and offsets (what `cuFuncGetParamInfo`
//! answers), and each module-scope `.global`/`.const` variable's size (so `cuModuleGetGlobal`
//! can answer with a real size, or not found).

use std::collections::HashMap;

/// The entries and variables of one PTX module.
#[derive(Default, Debug)]
pub(crate) struct Ptx {
    pub(crate) entries: HashMap<String, Vec<usize>>,
    /// Per entry, each parameter's offset in the parameter buffer: aligned to its `.align`, or
    /// to its type's size (as the driver lays them out).
    pub(crate) offsets: HashMap<String, Vec<usize>>,
    pub(crate) globals: HashMap<String, usize>,
}

/// The size in bytes of a PTX scalar type (`.u64`, `.f32`, `.b8`, ...).
fn type_size(token: &[u8]) -> Option<usize> {
    let t = token.strip_prefix(b".")?;
    if t == b"pred" {
        return Some(1);
    }
    let (&kind, bits) = t.split_first()?;
    if !matches!(kind, b'u' | b's' | b'b' | b'f') || bits.is_empty() {
        return None;
    }
    let mut n = 0usize;
    for &d in bits {
        if !d.is_ascii_digit() {
            return None;
        }
        n = n * 10 + usize::from(d - b'0');
    }
    Some(n.div_ceil(8))
}

/// `name[4]` → ("name", 4); `name` → ("name", 1); `name[]` → ("name", 0).
fn name_and_count(token: &[u8]) -> (&[u8], usize) {
    match token.iter().position(|&b| b == b'[') {
        Some(i) => {
            let count = token[i + 1..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .fold(0usize, |n, &d| n * 10 + usize::from(d - b'0'));
            (&token[..i], count)
        }
        None => (token, 1),
    }
}

/// One declaration's tokens (`.param .align 8 .b8 p[24]`): its name, and its last type's size
/// times its element count.
fn declaration(tokens: &[&[u8]]) -> Option<(String, usize)> {
    let (name, count) = name_and_count(tokens.last()?);
    let size = tokens.iter().rev().find_map(|t| type_size(t))?;
    Some((String::from_utf8_lossy(name).into_owned(), size * count))
}

/// A parameter declaration's alignment: its `.align N`, or its type's size. An `.align N` after
/// `.ptr` is the alignment of the memory the pointer points to (PTX ISA, kernel parameter
/// attributes), not the parameter's.
fn alignment(tokens: &[&[u8]]) -> usize {
    let explicit = tokens
        .iter()
        .take_while(|t| **t != b".ptr")
        .position(|t| *t == b".align")
        .and_then(|i| tokens.get(i + 1))
        .and_then(|n| core::str::from_utf8(n).ok()?.parse().ok());
    explicit
        .or_else(|| tokens.iter().rev().find_map(|t| type_size(t)))
        .unwrap_or(1)
        .max(1)
}

/// Splits PTX into tokens: runs of other bytes between whitespace, and each of `(),;{}` alone;
/// `//` comments are skipped. One pass over the bytes, and tokens made from a raw pointer
/// rather than by indexing `text` with a range: under Miri each `&text[a..b]` would retag all of
/// `text` (Stacked Borrows), which made a 16 KB module take 20 s to parse.
fn tokens(text: &[u8]) -> Vec<&[u8]> {
    let (base, n) = (text.as_ptr(), text.len());
    // SAFETY: `a..b` lies within `text` (checked by the callers below), borrowed as `text` is.
    let token =
        |a: usize, b: usize| unsafe { core::slice::from_raw_parts(base.wrapping_add(a), b - a) };
    let mut out = Vec::new();
    let mut i = 0;
    let mut start = None;
    while i < n {
        let b = text[i];
        let single = matches!(b, b'(' | b')' | b',' | b';' | b'{' | b'}');
        let comment = b == b'/' && i + 1 < n && text[i + 1] == b'/';
        if b.is_ascii_whitespace() || single || comment {
            if let Some(s) = start.take() {
                out.push(token(s, i));
            }
            if single {
                out.push(token(i, i + 1));
            } else if comment {
                while i < n && text[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
        } else if start.is_none() {
            start = Some(i);
        }
        i += 1;
    }
    if let Some(s) = start {
        out.push(token(s, n));
    }
    out
}

/// Parses PTX text. Anything it does not understand is left out (then not checked).
pub(crate) fn parse(text: &[u8]) -> Ptx {
    let mut ptx = Ptx::default();
    let tokens = tokens(text);
    // A slice, so that `t[i]` is a built-in index, not a call that retags the whole vector.
    let t: &[&[u8]] = &tokens;
    let mut depth = 0usize;
    let mut i = 0;
    while i < t.len() {
        match t[i] {
            b"{" => depth += 1,
            b"}" => depth = depth.saturating_sub(1),
            b".entry" if depth == 0 && i + 1 < t.len() => {
                let name = String::from_utf8_lossy(t[i + 1]).into_owned();
                let (mut params, mut offsets) = (Vec::new(), Vec::new());
                let mut end = 0usize;
                let mut add = |group: &[&[u8]]| {
                    if let Some((_, size)) = declaration(group) {
                        let offset = end.next_multiple_of(alignment(group));
                        params.push(size);
                        offsets.push(offset);
                        end = offset + size;
                    }
                };
                i += 2;
                if i < t.len() && t[i] == b"(" {
                    let mut group: Vec<&[u8]> = Vec::new();
                    i += 1;
                    while i < t.len() && t[i] != b")" {
                        if t[i] == b"," {
                            add(&group);
                            group.clear();
                        } else {
                            group.push(t[i]);
                        }
                        i += 1;
                    }
                    add(&group);
                }
                ptx.entries.insert(name.clone(), params);
                ptx.offsets.insert(name, offsets);
                continue;
            }
            b".global" | b".const" if depth == 0 => {
                let from = i;
                while i < t.len() && t[i] != b";" && t[i] != b"{" {
                    i += 1;
                }
                if let Some((name, size)) = declaration(&t[from..i]) {
                    ptx.globals.insert(name, size);
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    ptx
}

#[cfg(test)]
mod tests {
    #[test]
    fn reads_the_fixture_kernels() {
        let ptx = super::parse(include_bytes!("../../tests/fixtures/kernels.ptx"));
        assert_eq!(ptx.entries["vector_add"], [8, 8, 8, 4]);
        assert_eq!(ptx.entries["add_u32"], [8, 4, 4]);
        assert_eq!(ptx.entries["empty"], Vec::<usize>::new());
        assert_eq!(ptx.entries["empty_ptr"], [8]);
        assert_eq!(ptx.globals["counters"], 16);
        let aligned = super::parse(
            b".visible .entry k(\n .param .align 8 .b8 k_p[24],\n .param .f32 k_x\n)\n{\n ret;\n}\n",
        );
        assert_eq!(aligned.entries["k"], [24, 4]);
        assert_eq!(aligned.offsets["k"], [0, 24]);
        let pointer = super::parse(
            b".visible .entry k(\n .param .u32 k_n,\n .param .u64 .ptr .global .align 16 k_p\n)\n{\n ret;\n}\n",
        );
        assert_eq!(pointer.entries["k"], [4, 8]);
        assert_eq!(pointer.offsets["k"], [0, 8]);
        assert_eq!(ptx.offsets["add_u32"], [0, 8, 12]);
        let padded =
            super::parse(b".entry p(.param .u32 a, .param .u64 b, .param .align 16 .b8 c[4])");
        assert_eq!(padded.entries["p"], [4, 8, 4]);
        assert_eq!(padded.offsets["p"], [0, 8, 16]);
    }
}
