//! What the checking mode reads from PTX text: each `.entry`'s parameter sizes (so a launch's
//! `kernelParams` can be read argument by argument) and each module-scope `.global`/`.const`
//! variable's size (so `cuModuleGetGlobal` can answer with a real size, or not found).

use std::collections::HashMap;

/// The entries and variables of one PTX module.
#[derive(Default, Debug)]
pub(crate) struct Ptx {
    pub(crate) entries: HashMap<String, Vec<usize>>,
    pub(crate) globals: HashMap<String, usize>,
}

/// The size in bytes of a PTX scalar type (`.u64`, `.f32`, `.b8`, ...).
fn type_size(token: &str) -> Option<usize> {
    let t = token.strip_prefix('.')?;
    let bits: usize = match t {
        "pred" => return Some(1),
        _ => t.get(1..)?.parse().ok()?,
    };
    matches!(t.as_bytes()[0], b'u' | b's' | b'b' | b'f').then_some(bits.div_ceil(8))
}

/// `name[4]` → ("name", 4); `name` → ("name", 1); `name[]` → ("name", 0).
fn name_and_count(token: &str) -> (&str, usize) {
    let token = token.trim_end_matches([',', ';']);
    match token.split_once('[') {
        Some((name, rest)) => (name, rest.trim_end_matches(']').parse().unwrap_or(0)),
        None => (token, 1),
    }
}

/// The size of one declaration's tokens (`.param .align 8 .b8 p[24]`): its last type times
/// its element count, with the declared name.
fn declaration(tokens: &[&str]) -> Option<(String, usize)> {
    let last = tokens.last()?;
    let (name, count) = name_and_count(last);
    let size = tokens.iter().rev().find_map(|t| type_size(t))?;
    Some((name.to_owned(), size * count))
}

/// Parses PTX text. Anything it does not understand is left out (then not checked).
pub(crate) fn parse(text: &str) -> Ptx {
    let mut ptx = Ptx::default();
    let mut depth = 0usize; // braces: module scope is depth 0
    let mut rest = text;
    while !rest.is_empty() {
        let line_end = rest.find('\n').map_or(rest.len(), |i| i + 1);
        let line = rest[..line_end].split("//").next().unwrap_or("");
        let tokens: Vec<&str> = line.split_whitespace().collect();
        if depth == 0
            && let Some(i) = tokens.iter().position(|t| *t == ".entry")
            && let Some(after) = tokens.get(i + 1)
        {
            // The name, then the parameter list in parentheses, possibly over several lines.
            let name = after.split('(').next().unwrap_or("").to_owned();
            let from = rest.find(".entry").unwrap_or(0);
            let sig = &rest[from..];
            let params = match (sig.find('('), sig.find(['{', ';'])) {
                (Some(open), Some(body)) if open < body => {
                    let close = sig[open..].find(')').map_or(body, |c| open + c);
                    sig[open + 1..close]
                        .split(',')
                        .filter_map(|p| {
                            let t: Vec<&str> = p.split_whitespace().collect();
                            (t.first() == Some(&".param")).then(|| declaration(&t))?
                        })
                        .map(|(_, size)| size)
                        .collect()
                }
                _ => Vec::new(),
            };
            ptx.entries.insert(name, params);
        } else if depth == 0
            && tokens.iter().any(|t| *t == ".global" || *t == ".const")
            && let Some((name, size)) = declaration(&tokens)
        {
            ptx.globals.insert(name, size);
        }
        depth += line.matches('{').count();
        depth = depth.saturating_sub(line.matches('}').count());
        rest = &rest[line_end..];
    }
    ptx
}

#[cfg(test)]
mod tests {
    #[test]
    fn reads_the_fixture_kernels() {
        let ptx = super::parse(include_str!("../../../tests/fixtures/kernels.ptx"));
        assert_eq!(ptx.entries["vector_add"], [8, 8, 8, 4]);
        assert_eq!(ptx.entries["add_u32"], [8, 4, 4]);
        assert_eq!(ptx.entries["empty"], Vec::<usize>::new());
        assert_eq!(ptx.entries["empty_ptr"], [8]);
        assert_eq!(ptx.globals["counters"], 16);
        let aligned = super::parse(
            ".visible .entry k(\n .param .align 8 .b8 k_p[24],\n .param .f32 k_x\n)\n{\n ret;\n}\n",
        );
        assert_eq!(aligned.entries["k"], [24, 4]);
    }
}
