//! The parameter list of a PTX `.entry`: for checking a kernel contract where the driver cannot
//! tell a kernel's parameters (`cuFuncGetParamInfo` is CUDA 12.4), and for asking the driver
//! about exactly that many parameters where it cannot count them (`cuFuncGetParamCount` is
//! CUDA 13.2), so that no query fails.
//!
//! Only what a contract needs is read: each parameter's size and alignment in bytes, from its
//! `.param` declaration (`.param .u64 x`, `.param .align 8 .b8 p[24]`). The text is scanned once,
//! without allocating per token.

/// One `.param` of an entry: its name in the PTX, size and alignment in bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PtxParam {
    pub(crate) name: String,
    pub(crate) size: usize,
    pub(crate) align: usize,
}

/// The parameters of the `.entry` named `entry` in `ptx`, in order; `None` if there is no such
/// entry, or its list cannot be read for certain: the text has preprocessor directives (a line
/// starting with `#`: `#if 0` may hide one of two lists), or names the entry twice. A list read
/// wrong would let a contract with fewer parameters than the kernel pass (found by review: an
/// `.entry` inside a `.file` directive's quoted path was taken for the kernel's), so strings and
/// comments are skipped, and where in doubt there is no list.
pub(crate) fn entry_params(ptx: &[u8], entry: &str) -> Option<Vec<PtxParam>> {
    if ptx
        .split(|&b| b == b'\n')
        .any(|line| line.trim_ascii_start().first() == Some(&b'#'))
    {
        return None;
    }
    let mut tokens = Tokens { text: ptx, at: 0 };
    let params = list_of(&mut tokens, entry)?;
    // A second definition of the name: which one the driver compiles is not for us to guess.
    match list_of(&mut tokens, entry) {
        None => Some(params),
        Some(_) => None,
    }
}

/// The parameter list of the next `.entry entry` among `tokens`; `None` if there is none, or it
/// cannot be read.
fn list_of(tokens: &mut Tokens<'_>, entry: &str) -> Option<Vec<PtxParam>> {
    while let Some(token) = tokens.next() {
        if token != b".entry" {
            continue;
        }
        if tokens.next()? != entry.as_bytes() {
            continue;
        }
        // Parameters are optional: `.entry noop {` or `.entry noop()`.
        if tokens.next()? != b"(" {
            return Some(Vec::new());
        }
        let mut params = Vec::new();
        let mut declaration: Vec<&[u8]> = Vec::new();
        loop {
            let token = tokens.next()?;
            match token {
                b"," | b")" => {
                    if !declaration.is_empty() {
                        params.push(param(&declaration)?);
                        declaration.clear();
                    }
                    if token == b")" {
                        return Some(params);
                    }
                }
                _ => declaration.push(token),
            }
        }
    }
    None
}

/// One declaration's tokens (`.param .align 8 .b8 p[24]`) as a parameter.
fn param(tokens: &[&[u8]]) -> Option<PtxParam> {
    let (name, count) = name_and_count(tokens.last()?)?;
    let scalar = tokens.iter().rev().find_map(|t| type_size(t))?;
    let size = scalar.checked_mul(count)?;
    let mut align = scalar;
    let mut rest = tokens.iter();
    let mut pointer = false;
    while let Some(&t) = rest.next() {
        match t {
            // `.ptr [.space] .align N`: N is the alignment of the memory pointed to, not of the
            // parameter (PTX ISA, kernel parameter attributes), which stays its type's.
            b".ptr" => pointer = true,
            b".align" => {
                let n = number(rest.next()?)?;
                if !pointer {
                    align = n;
                }
            }
            _ => {}
        }
    }
    Some(PtxParam {
        name: String::from_utf8_lossy(name).into_owned(),
        size,
        align: align.max(1),
    })
}

/// The size in bytes of a PTX scalar type (`.u64`, `.f32`, `.b8`, `.pred`).
fn type_size(token: &[u8]) -> Option<usize> {
    let t = token.strip_prefix(b".")?;
    if t == b"pred" {
        return Some(1);
    }
    let (&kind, bits) = t.split_first()?;
    if !matches!(kind, b'u' | b's' | b'b' | b'f') {
        return None;
    }
    Some(number(bits)?.div_ceil(8))
}

/// A decimal number.
fn number(digits: &[u8]) -> Option<usize> {
    if digits.is_empty() {
        return None;
    }
    digits.iter().try_fold(0usize, |n, &d| {
        if d.is_ascii_digit() {
            n.checked_mul(10)?.checked_add(usize::from(d - b'0'))
        } else {
            None
        }
    })
}

/// `name[4]` → (`name`, 4); `name` → (`name`, 1).
fn name_and_count(token: &[u8]) -> Option<(&[u8], usize)> {
    match token.iter().position(|&b| b == b'[') {
        Some(i) => {
            let (name, rest) = token.split_at(i);
            let digits = rest.get(1..)?.strip_suffix(b"]")?;
            Some((name, number(digits)?))
        }
        None => Some((token, 1)),
    }
}

/// PTX tokens: runs of bytes between whitespace, and each of `(),;{}` alone; `//` and `/* */`
/// comments are skipped.
struct Tokens<'a> {
    text: &'a [u8],
    at: usize,
}

impl<'a> Iterator for Tokens<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        let single = |b: u8| matches!(b, b'(' | b')' | b',' | b';' | b'{' | b'}');
        loop {
            let rest = self.text.get(self.at..)?;
            let first = *rest.first()?;
            if first.is_ascii_whitespace() {
                self.at += 1;
            } else if rest.starts_with(b"//") {
                let end = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
                self.at += end;
            } else if rest.starts_with(b"/*") {
                let end = rest
                    .windows(2)
                    .position(|w| w == b"*/")
                    .map_or(rest.len(), |i| i + 2);
                self.at += end;
            } else if first == b'"' {
                // A string (a `.file` directive's path): one token, whatever it holds, to its
                // closing quote (`\"` escapes one), or to the end of the text.
                let mut end = 1;
                while let Some(&b) = rest.get(end) {
                    end += 1;
                    match b {
                        b'\\' => end += 1,
                        b'"' => break,
                        _ => {}
                    }
                }
                let end = end.min(rest.len());
                self.at += end;
                return rest.get(..end);
            } else if single(first) {
                self.at += 1;
                return rest.get(..1);
            } else {
                let len = rest
                    .iter()
                    .position(|&b| b.is_ascii_whitespace() || single(b))
                    .unwrap_or(rest.len());
                self.at += len;
                return rest.get(..len);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{PtxParam, entry_params};

    #[test]
    fn a_list_in_doubt_is_no_list() {
        // Found by review: `.entry k(` inside a `.file` path was read as k's list (one
        // parameter of two), and so was the list `#if 0` hides.
        let quoted = b".file 1 \"/src/x .entry k(.param .u64 p) \\\" y.cu\"\n\
            .visible .entry k(.param .u64 p, .param .u32 n) { ret; }";
        assert_eq!(
            entry_params(quoted, "k").map(|l| l.len()),
            Some(2),
            "the string is one token"
        );
        let hidden = b"#if 0\n.visible .entry k(.param .u64 p) { ret; }\n#else\n\
            .visible .entry k(.param .u64 p, .param .u32 n) { ret; }\n#endif";
        assert_eq!(entry_params(hidden, "k"), None);
        let twice = b".entry k(.param .u64 p) { ret; } .entry k(.param .u32 n) { ret; }";
        assert_eq!(entry_params(twice, "k"), None);
        let unterminated = b".file 1 \"never closed .entry k(.param .u64 p) { ret; }";
        assert_eq!(entry_params(unterminated, "k"), None);
    }

    fn p(name: &str, size: usize, align: usize) -> PtxParam {
        PtxParam {
            name: name.into(),
            size,
            align,
        }
    }

    #[test]
    fn reads_entry_parameter_lists() {
        let ptx = b"
            .version 6.0 .target sm_50 .address_size 64
            // .entry commented_out(.param .u8 no)
            .visible .entry add_u32(
                .param .u64 add_u32_param_0, /* x */
                .param .u32 add_u32_param_1,
                .param .u32 add_u32_param_2
            )
            { ret; }
            .visible .entry noop() { ret; }
            .entry bare { ret; }
            .visible .entry rec(.param .align 8 .b8 rec_param_0[24], .param .f64 d)
            { ret; }";
        assert_eq!(
            entry_params(ptx, "add_u32"),
            Some(vec![
                p("add_u32_param_0", 8, 8),
                p("add_u32_param_1", 4, 4),
                p("add_u32_param_2", 4, 4)
            ])
        );
        assert_eq!(entry_params(ptx, "noop"), Some(vec![]));
        assert_eq!(entry_params(ptx, "bare"), Some(vec![]));
        assert_eq!(
            entry_params(ptx, "rec"),
            Some(vec![p("rec_param_0", 24, 8), p("d", 8, 8)])
        );
        assert_eq!(entry_params(ptx, "commented_out"), None);
        // `.ptr .global .align 16`: the pointee's alignment; the parameter is a `.u64`'s.
        let ptr =
            b".visible .entry k(.param .u32 n, .param .u64 .ptr .global .align 16 p)\n{ ret; }";
        assert_eq!(
            entry_params(ptr, "k"),
            Some(vec![p("n", 4, 4), p("p", 8, 8)])
        );
        assert_eq!(entry_params(ptx, "add"), None);
    }

    #[test]
    fn reads_the_fixture_kernels() {
        let ptx = include_bytes!("../../tests/fixtures/kernels.ptx");
        let add = entry_params(ptx, "add_u32").unwrap();
        let sizes: Vec<usize> = add.iter().map(|p| p.size).collect();
        assert_eq!(sizes, [8, 4, 4]);
    }
}
