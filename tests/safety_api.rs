//! The restricted profile's API is closed (C27): `docs/safety-api.txt` lists every public item of
//! the types `custack::safety` exports, and this test fails when the source says otherwise, until
//! the change is reviewed and the listing regenerated:
//!
//! ```text
//! CUSTACK_BLESS_API=1 cargo test --test safety_api
//! ```
//!
//! The profile's claim is that the run phase creates nothing: no method of `RunPhase`, of a
//! restricted scope or stream, or of a value init made allocates, loads, looks up, creates,
//! captures, instantiates or updates. The ui-tests prove that what exists today is refused;
//! this test makes every addition a reviewed one (a new `RunPhase::event` fails here).
//!
//! The listing is read from `src/` with a small parser (rustdoc's JSON needs nightly), so that it
//! runs with the stable toolchain and needs no GPU, no libcuda and no build of the crate's
//! docs. The types are the names `src/safety/mod.rs` re-exports (`pub use`) or declares `pub`.
//! Every file of `src/` is read, and for each type it lists:
//!
//! - its declaration (`pub struct RunPhase<'g>`), its derives, and each `pub` field;
//! - each `pub` item of its inherent impls, wherever in `src/` they are (`pub fn`,
//!   `pub unsafe fn`, `pub const fn`, `pub const`): `Type::name: signature`, the signature on
//!   one line (multi-line signatures, generics, `where` clauses and trailing commas normalized,
//!   so that rustfmt changes nothing); `pub(crate)` and private items are not API;
//! - each macro invoked inside such an impl (its items are invisible here, so it is listed);
//! - each trait impl whose header names the type (`impl Drop for …`, `impl<T> Payload for
//!   RestrictedBuffer<'_, T>`, `impl From<RunPhase<'_>> for …`): a trait impl adds methods;
//! - each item-level macro invocation that names it (`assert_impl_all!(…: Send, Sync)`).
//!
//! `#[cfg(test)]` items are skipped; other `cfg`s, and any attribute that is not inert (docs,
//! `inline`, lints, …), are written before the item. Bodies are skipped by matching braces over
//! tokens, so braces in strings, raw strings, char literals and comments do not count; impls
//! nested in bodies (`const _: () = { impl … };`) are found too. What it cannot see: impls a
//! macro or a proc-macro attribute generates outside the types' own impls, and blanket impls
//! (`impl<T: Bound> Trait for T`) that reach the types through a bound. Two types of `src/`
//! with one of these names fail the test, since impls are matched by name.
//!
//! It reads the files next to `Cargo.toml`; a test binary carried to a machine without them (the
//! GPU bundle) says so and checks nothing. The parser's own tests below run on fixtures.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

const LISTING: &str = "docs/safety-api.txt";
const MODULE: &str = "src/safety/mod.rs";
const BLESS: &str = "CUSTACK_BLESS_API";

/// The listing's header: what it is, and how to regenerate it.
const HEADER: &str = "\
# custack::safety's public API, read from src/ by tests/safety_api.rs, which fails when it
# changes: one line per public method, associated item, declaration, derive and trait impl of
# the restricted types (the names src/safety/mod.rs exports). Before regenerating, review that
# no creation (allocation, load, lookup, stream, event or graph creation, capture,
# instantiation, update) reaches the run phase (C27: RunPhase, RestrictedScope,
# RestrictedStream and the values init made), and that every new wait has a bounded form (R19).
# Regenerate: CUSTACK_BLESS_API=1 cargo test --test safety_api
";

// ---------------------------------------------------------------------------------------------
// Tokens

#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    Ident(String),
    Lifetime(String),
    Literal(String),
    Punct(&'static str),
}

impl Tok {
    fn is(&self, punct: &str) -> bool {
        matches!(self, Tok::Punct(p) if *p == punct)
    }

    fn ident(&self) -> Option<&str> {
        match self {
            Tok::Ident(s) => Some(s),
            _ => None,
        }
    }

    fn is_ident(&self, word: &str) -> bool {
        self.ident() == Some(word)
    }

    fn text(&self) -> &str {
        match self {
            Tok::Ident(s) | Tok::Lifetime(s) | Tok::Literal(s) => s,
            Tok::Punct(p) => p,
        }
    }

    fn is_word(&self) -> bool {
        !matches!(self, Tok::Punct(_))
    }
}

const PUNCTS: [&str; 5] = ["..=", "::", "->", "=>", ".."];
const SINGLE: &str = "{}()[]<>,;:#!&*+-=/%^|~?.@$'\\";

fn single(c: char) -> Option<&'static str> {
    let at = SINGLE.find(c)?;
    SINGLE.get(at..at + c.len_utf8())
}

/// The characters of a source file, read by [`tokenize`].
struct Lexer {
    chars: Vec<char>,
}

impl Lexer {
    fn at(&self, i: usize) -> char {
        self.chars.get(i).copied().unwrap_or('\0')
    }

    fn line(&self, i: usize) -> usize {
        let before = &self.chars[..i.min(self.chars.len())];
        before.iter().filter(|&&c| c == '\n').count() + 1
    }

    fn text(&self, from: usize, to: usize) -> String {
        self.chars[from..to].iter().collect()
    }

    /// The end of the identifier characters from `i`.
    fn ident_end(&self, i: usize) -> usize {
        let mut end = i;
        while end < self.chars.len()
            && (self.chars[end].is_alphanumeric() || self.chars[end] == '_')
        {
            end += 1;
        }
        end
    }

    /// The end of a (nested) block comment opening at `start`.
    fn block_comment_end(&self, start: usize) -> Result<usize, String> {
        let mut i = start;
        let mut depth = 0usize;
        loop {
            if i >= self.chars.len() {
                return Err(format!(
                    "line {}: unterminated block comment",
                    self.line(start)
                ));
            }
            if self.at(i) == '/' && self.at(i + 1) == '*' {
                depth += 1;
                i += 2;
            } else if self.at(i) == '*' && self.at(i + 1) == '/' {
                depth -= 1;
                i += 2;
                if depth == 0 {
                    return Ok(i);
                }
            } else {
                i += 1;
            }
        }
    }

    /// A literal quoted by `quote`, opening at `open` and starting (with its prefix) at `start`.
    fn quoted(
        &self,
        start: usize,
        open: usize,
        quote: char,
        what: &str,
    ) -> Result<(Tok, usize), String> {
        let end =
            quoted(&self.chars, open, quote).ok_or_else(|| unterminated(self.line(start), what))?;
        Ok((Tok::Literal(self.text(start, end)), end))
    }

    /// A char literal ('{', '\'', '\u{7d}') or a lifetime ('a, 'static) at `i`.
    fn quote(&self, i: usize) -> Result<(Tok, usize), String> {
        if self.at(i + 1) == '\\' || (self.at(i + 2) == '\'' && self.at(i + 1) != '\'') {
            return self.quoted(i, i, '\'', "char");
        }
        let end = self.ident_end(i + 1);
        if end == i + 1 {
            return Err(format!("line {}: a lone `'`", self.line(i)));
        }
        Ok((Tok::Lifetime(self.text(i, end)), end))
    }

    /// An identifier, a raw identifier (r#type), or a prefixed literal (r"…", br#"…"#, b'x',
    /// c"…") at `i`.
    fn word(&self, i: usize) -> Result<(Tok, usize), String> {
        let end = self.ident_end(i);
        let word = self.text(i, end);
        let next = self.at(end);
        let after = self.at(end + 1);
        if word == "r" && next == '#' && (after.is_alphabetic() || after == '_') {
            let stop = self.ident_end(end + 1);
            return Ok((Tok::Ident(self.text(i, stop)), stop));
        }
        if matches!(word.as_str(), "r" | "br" | "cr") && (next == '"' || next == '#') {
            let stop = raw_string(&self.chars, end)
                .ok_or_else(|| unterminated(self.line(i), "raw string"))?;
            return Ok((Tok::Literal(self.text(i, stop)), stop));
        }
        if matches!(word.as_str(), "b" | "c") && (next == '"' || next == '\'') {
            return self.quoted(i, end, next, "literal");
        }
        Ok((Tok::Ident(word), end))
    }

    /// A number at `i` (`0xBA55_ED50u32`, `1.5`; `1..2` is a range).
    fn number(&self, i: usize) -> (Tok, usize) {
        let mut end = i;
        while end < self.chars.len()
            && (self.chars[end].is_alphanumeric()
                || self.chars[end] == '_'
                || (self.chars[end] == '.' && self.at(end + 1).is_ascii_digit()))
        {
            end += 1;
        }
        (Tok::Literal(self.text(i, end)), end)
    }
}

/// The tokens of a Rust source file, comments (doc comments too) left out. Literals are kept
/// whole, so that a brace inside one is not a brace.
fn tokenize(src: &str) -> Result<Vec<Tok>, String> {
    let lexer = Lexer {
        chars: src.chars().collect(),
    };
    let mut toks = Vec::new();
    let mut i = 0;
    while i < lexer.chars.len() {
        let c = lexer.at(i);
        let (tok, end) = if c.is_whitespace() {
            i += 1;
            continue;
        } else if c == '/' && lexer.at(i + 1) == '/' {
            while i < lexer.chars.len() && lexer.at(i) != '\n' {
                i += 1;
            }
            continue;
        } else if c == '/' && lexer.at(i + 1) == '*' {
            i = lexer.block_comment_end(i)?;
            continue;
        } else if c == '"' {
            lexer.quoted(i, i, '"', "string")?
        } else if c == '\'' {
            lexer.quote(i)?
        } else if c.is_alphabetic() || c == '_' {
            lexer.word(i)?
        } else if c.is_ascii_digit() {
            lexer.number(i)
        } else if let Some(p) = PUNCTS
            .iter()
            .find(|p| p.chars().enumerate().all(|(k, pc)| lexer.at(i + k) == pc))
        {
            (Tok::Punct(p), i + p.len())
        } else if let Some(p) = single(c) {
            (Tok::Punct(p), i + 1)
        } else {
            return Err(format!(
                "line {}: unexpected character {c:?}",
                lexer.line(i)
            ));
        };
        toks.push(tok);
        i = end;
    }
    Ok(toks)
}

fn unterminated(line: usize, what: &str) -> String {
    format!("line {line}: unterminated {what} literal")
}

/// The end (one past the closing quote) of a literal opened by `quote` at `start`.
fn quoted(chars: &[char], start: usize, quote: char) -> Option<usize> {
    let mut i = start + 1;
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 2,
            c if c == quote => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// The end of a raw string whose hashes and quote start at `start` (`#"…"#`, `"…"`).
fn raw_string(chars: &[char], start: usize) -> Option<usize> {
    let hashes = chars[start..].iter().take_while(|&&c| c == '#').count();
    let mut i = start + hashes;
    if chars.get(i) != Some(&'"') {
        return None;
    }
    i += 1;
    while i < chars.len() {
        if chars[i] == '"' && (1..=hashes).all(|k| chars.get(i + k) == Some(&'#')) {
            return Some(i + 1 + hashes);
        }
        i += 1;
    }
    None
}

/// Keywords followed by a space before a delimiter or a sigil (`&mut [u8]`, `impl !Send`).
const KEYWORDS: [&str; 11] = [
    "mut", "dyn", "as", "in", "return", "move", "where", "unsafe", "extern", "impl", "for",
];

/// Renders tokens on one line, spaced as rustfmt spaces a signature; a comma before a closing
/// delimiter (rustfmt's trailing comma in a multi-line list) is dropped.
fn render(toks: &[Tok]) -> String {
    let mut out = String::new();
    let mut prev: Option<&Tok> = None;
    for (k, t) in toks.iter().enumerate() {
        if t.is(",")
            && toks
                .get(k + 1)
                .is_none_or(|n| n.is(")") || n.is(">") || n.is("]"))
        {
            continue;
        }
        if let Some(p) = prev {
            let keyword = KEYWORDS.iter().any(|w| p.is_ident(w));
            let space = (p.is_word() && t.is_word())
                || p.is(",")
                || p.is(";")
                || p.is(":")
                || ["->", "=>", "=", "+"].iter().any(|o| p.is(o) || t.is(o))
                || ((p.is(")") || p.is(">") || p.is("]")) && t.is_word())
                || ((keyword || matches!(p, Tok::Lifetime(_)))
                    && ["(", "[", "&", "*", "!"].iter().any(|o| t.is(o)));
            if space {
                out.push(' ');
            }
        }
        out.push_str(t.text());
        prev = Some(t);
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Items

#[derive(Debug)]
enum Vis {
    Pub,
    Restricted,
    Private,
}

#[derive(Debug)]
struct Item {
    attrs: Vec<Vec<Tok>>,
    vis: Vis,
    kind: Kind,
}

#[derive(Debug)]
enum Kind {
    /// `fn` to the body, qualifiers included (`const unsafe fn f(…) -> T where …`), and the
    /// items nested in the body.
    Fn {
        sig: Vec<Tok>,
        name: String,
        nested: Vec<Item>,
    },
    /// After `impl` to the body's brace; `unsafe` if the impl is.
    Impl {
        unsafe_: bool,
        header: Vec<Tok>,
        body: Vec<Item>,
    },
    Mod {
        body: Vec<Item>,
    },
    /// A struct, enum or union: the header (`struct Name<…> where …`) and its `pub` fields.
    Type {
        name: String,
        header: Vec<Tok>,
        pub_fields: Vec<Vec<Tok>>,
    },
    /// `name!(…)` at item level.
    Macro {
        tokens: Vec<Tok>,
    },
    /// `use`, `const`, `static`, `type`, `trait`, …: the tokens up to a body or an initializer.
    Other {
        head: Vec<Tok>,
        nested: Vec<Item>,
    },
}

struct Parser<'t> {
    toks: &'t [Tok],
    pos: usize,
}

impl<'t> Parser<'t> {
    fn new(toks: &'t [Tok]) -> Self {
        Self { toks, pos: 0 }
    }

    fn peek(&self, k: usize) -> Option<&'t Tok> {
        self.toks.get(self.pos + k)
    }

    fn err(&self, what: &str) -> String {
        let around =
            render(&self.toks[self.pos.saturating_sub(6)..(self.pos + 6).min(self.toks.len())]);
        format!("{what} near `{around}`")
    }

    /// The index one past the group that opens at `at` (`(`, `[` or `{`).
    fn group_end(&self, at: usize) -> Result<usize, String> {
        let mut stack = Vec::new();
        for (k, t) in self.toks.iter().enumerate().skip(at) {
            match t {
                Tok::Punct(p @ ("(" | "[" | "{")) => stack.push(*p),
                Tok::Punct(p @ (")" | "]" | "}")) => {
                    let open = stack
                        .pop()
                        .ok_or_else(|| self.err("an unopened delimiter"))?;
                    if !matches!((open, *p), ("(", ")") | ("[", "]") | ("{", "}")) {
                        return Err(self.err(&format!("`{open}` closed by `{p}`")));
                    }
                    if stack.is_empty() {
                        return Ok(k + 1);
                    }
                }
                _ => {}
            }
        }
        Err(self.err("an unclosed delimiter"))
    }

    /// From the current position to the first `{` or `;` outside parentheses, brackets and
    /// angle brackets (a `{` inside angle brackets is a const generic argument); the position
    /// is left on it.
    fn header(&mut self) -> Result<Vec<Tok>, String> {
        let start = self.pos;
        let mut angle = 0usize;
        while let Some(t) = self.peek(0) {
            match t {
                Tok::Punct("{" | ";") if angle == 0 => break,
                Tok::Punct("(" | "[" | "{") => {
                    self.pos = self.group_end(self.pos)?;
                    continue;
                }
                Tok::Punct("<") => angle += 1,
                Tok::Punct(">") => angle = angle.saturating_sub(1),
                _ => {}
            }
            self.pos += 1;
        }
        if self.peek(0).is_none() {
            return Err(self.err("an item without a body or `;`"));
        }
        Ok(self.toks[start..self.pos].to_vec())
    }

    /// The tokens of the `{…}` group at the position (its contents), the position moved past it.
    fn body(&mut self) -> Result<&'t [Tok], String> {
        let end = self.group_end(self.pos)?;
        let inner = &self.toks[self.pos + 1..end - 1];
        self.pos = end;
        Ok(inner)
    }

    fn items(&mut self) -> Result<Vec<Item>, String> {
        let mut items = Vec::new();
        while self.pos < self.toks.len() {
            if let Some(item) = self.item()? {
                items.push(item);
            }
        }
        Ok(items)
    }

    /// The outer attributes at the position (`#[…]`, their contents); inner ones (`#![…]`)
    /// are skipped.
    fn attributes(&mut self) -> Result<Vec<Vec<Tok>>, String> {
        let mut attrs = Vec::new();
        while self.peek(0).is_some_and(|t| t.is("#")) {
            let inner = self.peek(1).is_some_and(|t| t.is("!"));
            let open = self.pos + 1 + usize::from(inner);
            if !self.toks.get(open).is_some_and(|t| t.is("[")) {
                return Err(self.err("`#` without `[`"));
            }
            let end = self.group_end(open)?;
            if !inner {
                attrs.push(self.toks[open + 1..end - 1].to_vec());
            }
            self.pos = end;
        }
        Ok(attrs)
    }

    fn visibility(&mut self) -> Result<Vis, String> {
        if !self.peek(0).is_some_and(|t| t.is_ident("pub")) {
            return Ok(Vis::Private);
        }
        self.pos += 1;
        if self.peek(0).is_some_and(|t| t.is("(")) {
            self.pos = self.group_end(self.pos)?;
            Ok(Vis::Restricted)
        } else {
            Ok(Vis::Pub)
        }
    }

    /// How many qualifiers come before `fn` or `impl`: `const`, `async`, `unsafe`,
    /// `extern "C"`, `default`.
    fn qualifiers(&self) -> usize {
        let mut k = 0;
        loop {
            let next = self.peek(k + 1);
            match self.peek(k).and_then(Tok::ident) {
                Some("default" | "async" | "unsafe") => k += 1,
                Some("const")
                    if next.is_some_and(|n| {
                        ["fn", "unsafe", "async", "extern"]
                            .iter()
                            .any(|w| n.is_ident(w))
                    }) =>
                {
                    k += 1;
                }
                Some("extern") if !next.is_some_and(|n| n.is_ident("crate")) => {
                    k += 1;
                    if matches!(self.peek(k), Some(Tok::Literal(_))) {
                        k += 1;
                    }
                }
                _ => return k,
            }
        }
    }

    /// The items nested in a body at the position, or none after a `;`.
    fn nested_body(&mut self) -> Result<Vec<Item>, String> {
        if self.peek(0).is_some_and(|t| t.is("{")) {
            nested(self.body()?)
        } else {
            self.pos += 1;
            Ok(Vec::new())
        }
    }

    fn item(&mut self) -> Result<Option<Item>, String> {
        let attrs = self.attributes()?;
        match self.peek(0) {
            None => return Ok(None),
            Some(t) if t.is(";") => {
                self.pos += 1;
                return Ok(None);
            }
            Some(_) => {}
        }
        let vis = self.visibility()?;
        let start = self.pos;
        let k = self.qualifiers();
        let keyword = self.peek(k).map(Tok::text).unwrap_or_default().to_owned();
        let name = self
            .peek(k + 1)
            .map(Tok::text)
            .unwrap_or_default()
            .to_owned();
        let kind = match keyword.as_str() {
            "fn" => {
                let sig = self.header()?;
                let nested = self.nested_body()?;
                Kind::Fn { sig, name, nested }
            }
            "impl" => {
                let unsafe_ = self.toks[start..start + k]
                    .iter()
                    .any(|t| t.is_ident("unsafe"));
                self.pos = start + k + 1;
                let header = self.header()?;
                if !self.peek(0).is_some_and(|t| t.is("{")) {
                    return Err(self.err("an impl without a body"));
                }
                let body = Parser::new(self.body()?).items()?;
                Kind::Impl {
                    unsafe_,
                    header,
                    body,
                }
            }
            "mod" => {
                self.header()?;
                let body = if self.peek(0).is_some_and(|t| t.is("{")) {
                    Parser::new(self.body()?).items()?
                } else {
                    self.pos += 1;
                    Vec::new()
                };
                Kind::Mod { body }
            }
            "struct" | "enum" | "union" => self.type_item(name, &keyword)?,
            "macro_rules" => {
                // A macro's definition: templates, not items.
                self.pos = self.group_end(start + k + 3)?;
                if self.peek(0).is_some_and(|t| t.is(";")) {
                    self.pos += 1;
                }
                return Ok(None);
            }
            _ if self.is_macro_call(k) => {
                let bang = (start + k..self.toks.len())
                    .find(|&at| self.toks[at].is("!"))
                    .unwrap_or(start);
                self.pos = self.group_end(bang + 1)?;
                let tokens = self.toks[start..self.pos].to_vec();
                if self.peek(0).is_some_and(|t| t.is(";")) {
                    self.pos += 1;
                }
                Kind::Macro { tokens }
            }
            "const" | "static" | "use" | "type" | "let" => self.statement_item(start)?,
            _ => {
                // A trait, an extern block, an extern crate: to its body or `;`.
                let head = self.header()?;
                let nested = self.nested_body()?;
                Kind::Other { head, nested }
            }
        };
        Ok(Some(Item { attrs, vis, kind }))
    }

    /// A struct, enum or union: `struct A;`, `struct A(pub u8) where …;`,
    /// `struct A<…> where … { … }`.
    fn type_item(&mut self, name: String, keyword: &str) -> Result<Kind, String> {
        let mut header = Vec::new();
        let mut pub_fields = Vec::new();
        while let Some(t) = self.peek(0) {
            if t.is(";") {
                self.pos += 1;
                break;
            }
            if t.is("{") || t.is("(") {
                let tuple = t.is("(");
                let end = self.group_end(self.pos)?;
                let inside = &self.toks[self.pos + 1..end - 1];
                pub_fields.extend(fields(inside, tuple, keyword)?);
                self.pos = end;
                if tuple {
                    continue;
                }
                break;
            }
            header.push(t.clone());
            self.pos += 1;
            if t.is("<") {
                // Generics, up to the matching `>`.
                let mut angle = 1usize;
                while let Some(t) = self.peek(0) {
                    header.push(t.clone());
                    self.pos += 1;
                    if t.is("<") {
                        angle += 1;
                    } else if t.is(">") {
                        angle -= 1;
                        if angle == 0 {
                            break;
                        }
                    }
                }
            }
        }
        Ok(Kind::Type {
            name,
            header,
            pub_fields,
        })
    }

    /// `const`, `static`, `use`, `type`, `let`: to the `;`. The initializer may nest items
    /// (`const _: () = { impl … };`).
    fn statement_item(&mut self, start: usize) -> Result<Kind, String> {
        let mut head_end = None;
        let mut nested_items = Vec::new();
        while let Some(t) = self.peek(0) {
            if t.is(";") {
                break;
            }
            if t.is("=") && head_end.is_none() {
                head_end = Some(self.pos);
            }
            if t.is("(") || t.is("[") || t.is("{") {
                let end = self.group_end(self.pos)?;
                nested_items.extend(nested(&self.toks[self.pos + 1..end - 1])?);
                self.pos = end;
                continue;
            }
            self.pos += 1;
        }
        let head = self.toks[start..head_end.unwrap_or(self.pos)].to_vec();
        self.pos += 1;
        Ok(Kind::Other {
            head,
            nested: nested_items,
        })
    }

    /// Whether a macro invocation (`path::name!`) starts `k` tokens on.
    fn is_macro_call(&self, k: usize) -> bool {
        let mut k = k;
        loop {
            match (self.peek(k), self.peek(k + 1)) {
                (Some(Tok::Ident(_)), Some(t)) if t.is("!") => return true,
                (Some(Tok::Ident(_)), Some(t)) if t.is("::") => k += 2,
                _ => return false,
            }
        }
    }
}

/// The `pub` fields of a struct body (named or tuple), each as tokens from `pub` to its `,`.
fn fields(toks: &[Tok], tuple: bool, keyword: &str) -> Result<Vec<Vec<Tok>>, String> {
    if keyword == "enum" {
        return Ok(Vec::new());
    }
    let parser = Parser::new(toks);
    let mut out = Vec::new();
    let mut field = Vec::new();
    let mut k = 0;
    let mut angle = 0usize;
    let mut index = 0usize;
    let mut push = |field: &mut Vec<Tok>, index: &mut usize| {
        // Attributes first (`#[…]`), then the field.
        let mut at = 0;
        while field.get(at).is_some_and(|t: &Tok| t.is("#")) {
            at += 1;
            let mut depth = 0usize;
            while let Some(t) = field.get(at) {
                at += 1;
                if t.is("[") {
                    depth += 1;
                } else if t.is("]") {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
            }
        }
        let rest = &field[at.min(field.len())..];
        if rest.first().is_some_and(|t| t.is_ident("pub"))
            && !rest.get(1).is_some_and(|t| t.is("("))
        {
            let mut line = rest.to_vec();
            if tuple {
                line.insert(1, Tok::Literal(index.to_string()));
                line.insert(2, Tok::Punct(":"));
            }
            out.push(line);
        }
        if !rest.is_empty() {
            *index += 1;
        }
        field.clear();
    };
    while k < toks.len() {
        let t = &toks[k];
        if t.is("(") || t.is("[") || t.is("{") {
            let end = parser.group_end(k)?;
            field.extend_from_slice(&toks[k..end]);
            k = end;
            continue;
        }
        if t.is("<") {
            angle += 1;
        } else if t.is(">") {
            angle = angle.saturating_sub(1);
        } else if t.is(",") && angle == 0 {
            push(&mut field, &mut index);
            k += 1;
            continue;
        }
        field.push(t.clone());
        k += 1;
    }
    push(&mut field, &mut index);
    Ok(out)
}

/// Items nested in a body: an `impl` or `mod` where a statement may start (after `;`, `{`, `}`
/// or an attribute), at any depth. `fn inner(x: impl Fn())` is not one (after `:`).
fn nested(toks: &[Tok]) -> Result<Vec<Item>, String> {
    let mut out = Vec::new();
    let mut k = 0;
    while k < toks.len() {
        let at_statement = k == 0
            || toks[k - 1].is(";")
            || toks[k - 1].is("{")
            || toks[k - 1].is("}")
            || toks[k - 1].is("]");
        let starts = toks[k].is_ident("impl")
            || (toks[k].is_ident("unsafe") && toks.get(k + 1).is_some_and(|t| t.is_ident("impl")))
            || (toks[k].is_ident("mod") && matches!(toks.get(k + 1), Some(Tok::Ident(_))));
        if at_statement && starts {
            let mut parser = Parser::new(&toks[k..]);
            if let Some(item) = parser.item()? {
                out.push(item);
            }
            k += parser.pos.max(1);
        } else {
            k += 1;
        }
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// The listing

/// Attributes that change nothing a caller can reach.
const INERT: [&str; 13] = [
    "doc",
    "inline",
    "track_caller",
    "must_use",
    "allow",
    "expect",
    "warn",
    "deny",
    "cold",
    "deprecated",
    "repr",
    "non_exhaustive",
    "derive",
];

/// `None` for an item that exists only under `cfg(test)`; otherwise the attributes to write
/// before it (`cfg`s and anything not inert).
fn shown_attrs(attrs: &[Vec<Tok>]) -> Option<String> {
    let mut shown = String::new();
    for a in attrs {
        let name = a.first().and_then(Tok::ident).unwrap_or_default();
        if name == "cfg" && test_only(a.get(2..a.len().saturating_sub(1)).unwrap_or_default()) {
            return None;
        }
        let hidden = name == "doc" && a.iter().any(|t| t.is_ident("hidden"));
        if hidden || !INERT.contains(&name) {
            let _ = write!(shown, "#[{}] ", render(a));
        }
    }
    Some(shown)
}

/// Whether a `cfg` predicate holds only in tests: `test`, or `all(…, test, …)`.
fn test_only(pred: &[Tok]) -> bool {
    match pred {
        [t] => t.is_ident("test"),
        [all, open, inner @ .., close] if all.is_ident("all") && open.is("(") && close.is(")") => {
            inner
                .split(|t| t.is(","))
                .any(|arg| matches!(arg, [t] if t.is_ident("test")))
        }
        _ => false,
    }
}

/// The type an impl header is for (the last path segment of its self type), whether it is a
/// trait impl, and the header rendered.
fn impl_self(header: &[Tok]) -> (Option<String>, bool) {
    // Skip the impl's own generics.
    let mut k = 0;
    if header.first().is_some_and(|t| t.is("<")) {
        let mut angle = 0usize;
        for (i, t) in header.iter().enumerate() {
            if t.is("<") {
                angle += 1;
            } else if t.is(">") {
                angle -= 1;
                if angle == 0 {
                    k = i + 1;
                    break;
                }
            }
        }
    }
    let rest = &header[k..];
    let mut angle = 0usize;
    let mut self_start = 0;
    let mut trait_impl = false;
    let mut self_end = rest.len();
    for (i, t) in rest.iter().enumerate() {
        if t.is("<") {
            angle += 1;
        } else if t.is(">") {
            angle = angle.saturating_sub(1);
        } else if angle == 0 && t.is_ident("for") && !rest.get(i + 1).is_some_and(|n| n.is("<")) {
            trait_impl = true;
            self_start = i + 1;
        } else if angle == 0 && t.is_ident("where") {
            self_end = i;
            break;
        }
    }
    let self_ty = &rest[self_start.min(self_end)..self_end];
    let mut name = None;
    for t in self_ty {
        match t {
            Tok::Ident(w) if !matches!(w.as_str(), "mut" | "dyn" | "const") => {
                name = Some(w.clone());
            }
            Tok::Punct("::" | "&" | "*") | Tok::Lifetime(_) | Tok::Ident(_) => {}
            _ => break,
        }
    }
    (name, trait_impl)
}

/// The names `src/safety/mod.rs` makes public: `pub use` leaves and `pub` items.
fn exported_names(module: &[Item]) -> Result<BTreeSet<String>, String> {
    let mut names = BTreeSet::new();
    for item in module {
        if !matches!(item.vis, Vis::Pub) {
            continue;
        }
        match &item.kind {
            Kind::Other { head, .. } if head.first().is_some_and(|t| t.is_ident("use")) => {
                if head.iter().any(|t| t.is("*")) {
                    return Err(format!("`{}`: a glob export; name each type", render(head)));
                }
                if head.iter().any(|t| t.is_ident("as")) {
                    return Err(format!(
                        "`{}`: a renamed export; the listing matches impls by the type's own name",
                        render(head)
                    ));
                }
                for (k, t) in head.iter().enumerate() {
                    if let Tok::Ident(w) = t {
                        let next = head.get(k + 1);
                        if k > 0 && !next.is_some_and(|n| n.is("::")) && w != "self" {
                            names.insert(w.clone());
                        }
                    }
                }
            }
            Kind::Fn { name, .. } | Kind::Type { name, .. } => {
                names.insert(name.clone());
            }
            Kind::Mod { .. } => {
                return Err("a `pub mod` in the profile's module: list its items here".to_owned());
            }
            _ => {
                return Err(format!("a public item the listing does not read: {item:?}"));
            }
        }
    }
    Ok(names)
}

/// The items nested in an item's bodies (a fn's, an initializer's, an impl's methods').
fn nested_of(item: &Item) -> Vec<&Item> {
    match &item.kind {
        Kind::Fn { nested, .. } | Kind::Other { nested, .. } => nested.iter().collect(),
        Kind::Impl { body, .. } => body.iter().flat_map(nested_of).collect(),
        Kind::Mod { .. } | Kind::Type { .. } | Kind::Macro { .. } => Vec::new(),
    }
}

/// Every item of a file, the items of its modules and those nested in bodies included;
/// `cfg(test)` items (modules, functions) are dropped with everything inside them.
fn flatten<'i>(items: impl IntoIterator<Item = &'i Item>, out: &mut Vec<&'i Item>) {
    for item in items {
        if shown_attrs(&item.attrs).is_none() {
            continue;
        }
        if let Kind::Mod { body } = &item.kind {
            flatten(body, out);
        } else {
            out.push(item);
            flatten(nested_of(item), out);
        }
    }
}

/// The restricted names a token list names, once each.
fn mentioned<'n>(toks: &[Tok], names: &'n BTreeSet<String>) -> BTreeSet<&'n str> {
    toks.iter()
        .filter_map(Tok::ident)
        .filter_map(|w| names.get(w).map(String::as_str))
        .collect()
}

/// The lines of one impl: the public items of an inherent impl of a restricted type, the
/// header of any impl that names one, and the public functions of other impls whose
/// signatures name one.
fn impl_lines(item: &Item, attrs: &str, names: &BTreeSet<String>, lines: &mut BTreeSet<String>) {
    let Kind::Impl {
        unsafe_,
        header,
        body,
    } = &item.kind
    else {
        return;
    };
    let (self_name, trait_impl) = impl_self(header);
    let mut head = Vec::new();
    if *unsafe_ {
        head.push(Tok::Ident("unsafe".to_owned()));
    }
    head.push(Tok::Ident("impl".to_owned()));
    head.extend_from_slice(header);
    let rendered = format!("{attrs}{}", render(&head));
    let inherent_of = self_name.filter(|n| !trait_impl && names.contains(n));
    for member in body {
        let Some(member_attrs) = shown_attrs(&member.attrs) else {
            continue;
        };
        let attrs = format!("{attrs}{member_attrs}");
        match (&member.kind, &member.vis, &inherent_of) {
            (Kind::Fn { sig, name, .. }, Vis::Pub, Some(ty)) => {
                lines.insert(format!("{ty}::{name}: {attrs}pub {}", render(sig)));
            }
            (Kind::Other { head, .. }, Vis::Pub, Some(ty)) => {
                let name = head.get(1).map(Tok::text).unwrap_or_default();
                lines.insert(format!("{ty}::{name}: {attrs}pub {}", render(head)));
            }
            (Kind::Macro { tokens }, _, Some(ty)) => {
                lines.insert(format!(
                    "{ty}: {attrs}{} (a macro in `{rendered}`)",
                    render(tokens)
                ));
            }
            (Kind::Fn { sig, name, .. }, Vis::Pub, None) if !trait_impl => {
                let owner = impl_self(header).0.unwrap_or_default();
                for ty in mentioned(sig, names) {
                    lines.insert(format!(
                        "{ty}: via {owner}::{name}: {attrs}pub {}",
                        render(sig)
                    ));
                }
            }
            _ => {}
        }
    }
    for name in mentioned(header, names) {
        if inherent_of.as_deref() != Some(name) {
            lines.insert(format!("{name}: {rendered}"));
        }
    }
}

/// The listing's lines (sorted), from the profile module's source and every file of `src/`
/// (`(path, source)`).
fn listing(module: &str, files: &[(String, String)]) -> Result<Vec<String>, String> {
    let module_items = Parser::new(&tokenize(module)?).items()?;
    let names = exported_names(&module_items)?;
    let mut parsed = Vec::new();
    for (path, src) in files {
        let toks = tokenize(src).map_err(|e| format!("{path}: {e}"))?;
        let items = Parser::new(&toks)
            .items()
            .map_err(|e| format!("{path}: {e}"))?;
        parsed.push((path, items));
    }
    let mut lines = BTreeSet::new();
    let mut declared: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (path, items) in &parsed {
        let mut all = Vec::new();
        flatten(items, &mut all);
        for item in all {
            let Some(attrs) = shown_attrs(&item.attrs) else {
                continue;
            };
            let public = matches!(item.vis, Vis::Pub);
            match &item.kind {
                Kind::Type {
                    name,
                    header,
                    pub_fields,
                } if names.contains(name) => {
                    declared.entry(name).or_default().push(path);
                    let vis = if public { "pub " } else { "" };
                    lines.insert(format!("{name}: {attrs}{vis}{}", render(header)));
                    for a in &item.attrs {
                        if a.first().is_some_and(|t| t.is_ident("derive")) {
                            lines.insert(format!("{name}: #[{}]", render(a)));
                        }
                    }
                    for f in pub_fields {
                        let field = f.get(1).map(Tok::text).unwrap_or_default();
                        lines.insert(format!("{name}.{field}: {}", render(f)));
                    }
                }
                Kind::Fn { sig, name, .. } if public && names.contains(name) => {
                    declared.entry(name).or_default().push(path);
                    lines.insert(format!("{name}: {attrs}pub {}", render(sig)));
                }
                Kind::Fn { sig, name, .. } if public => {
                    for ty in mentioned(sig, &names) {
                        lines.insert(format!("{ty}: via {name}: {attrs}pub {}", render(sig)));
                    }
                }
                Kind::Impl { .. } => impl_lines(item, &attrs, &names, &mut lines),
                Kind::Macro { tokens } => {
                    for name in mentioned(tokens, &names) {
                        lines.insert(format!("{name}: {attrs}{}", render(tokens)));
                    }
                    // `kernel_contract!` declares each `pub unsafe kernel NAME`: a unit struct.
                    if tokens.iter().any(|t| t.is_ident("kernel_contract")) {
                        for w in tokens.windows(4) {
                            if w[0].is_ident("pub")
                                && w[1].is_ident("unsafe")
                                && w[2].is_ident("kernel")
                            {
                                if let Some(name) = w[3].ident().and_then(|n| names.get(n)) {
                                    declared.entry(name.as_str()).or_default().push(path);
                                }
                            }
                        }
                    }
                }
                _ => {}
            }
        }
    }
    let mut problems = Vec::new();
    for name in &names {
        match declared.get(name.as_str()).map(Vec::as_slice) {
            Some([_]) => {}
            None | Some([]) => {
                problems.push(format!("`{name}` is exported but declared nowhere in src/"));
            }
            Some(paths) => problems.push(format!(
                "`{name}` is declared {} times ({}): impls are matched by name, so the listing \
                 cannot tell them apart",
                paths.len(),
                paths.join(", ")
            )),
        }
    }
    if problems.is_empty() {
        Ok(lines.into_iter().collect())
    } else {
        Err(problems.join("\n"))
    }
}

// ---------------------------------------------------------------------------------------------
// The check

fn root() -> Option<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    if root.join(MODULE).is_file() {
        Some(root)
    } else {
        eprintln!(
            "safety_api: no {MODULE} under {} (a carried test binary): nothing checked",
            root.display()
        );
        None
    }
}

fn rust_files(dir: &Path, root: &Path, out: &mut Vec<(String, String)>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{} is unreadable: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, root, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let rel = path
                .strip_prefix(root)
                .unwrap_or(&path)
                .display()
                .to_string();
            let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{rel}: {e}"));
            out.push((rel, text));
        }
    }
}

fn render_listing(lines: &[String]) -> String {
    let mut text = HEADER.to_owned();
    for line in lines {
        text.push_str(line);
        text.push('\n');
    }
    text
}

#[test]
fn the_restricted_api_matches_its_reviewed_listing() {
    let Some(root) = root() else { return };
    let mut files = Vec::new();
    rust_files(&root.join("src"), &root, &mut files);
    let module = fs::read_to_string(root.join(MODULE)).expect("the profile's module");
    let lines = listing(&module, &files).unwrap_or_else(|e| panic!("src/ does not parse: {e}"));
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("RunPhase::synchronize:")),
        "the listing misses RunPhase::synchronize: the parser is broken"
    );
    let fresh = render_listing(&lines);
    let path = root.join(LISTING);
    if std::env::var_os(BLESS).is_some_and(|v| v == "1") {
        fs::write(&path, &fresh).unwrap_or_else(|e| panic!("{LISTING}: {e}"));
        eprintln!("safety_api: wrote {LISTING} ({} lines)", lines.len());
        return;
    }
    let checked_in = fs::read_to_string(&path).unwrap_or_default();
    if checked_in == fresh {
        return;
    }
    let old: BTreeSet<&str> = checked_in
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .collect();
    let new: BTreeSet<&str> = lines.iter().map(String::as_str).collect();
    let mut message =
        format!("{LISTING} is not the restricted profile's API as src/ has it now.\n");
    for l in new.difference(&old) {
        let _ = writeln!(message, "  added:   {l}");
    }
    for l in old.difference(&new) {
        let _ = writeln!(message, "  removed: {l}");
    }
    if new == old {
        message.push_str("  (same items; the header or the order differs)\n");
    }
    message.push_str(
        "Review that no creation (allocation, load, lookup, stream, event or graph creation, \
         capture, instantiation, update) and no unbounded wait reaches the run phase (C27: \
         RunPhase, RestrictedScope, RestrictedStream and the values init made; creating \
         belongs to InitPhase), then re-bless:\n  CUSTACK_BLESS_API=1 cargo test --test safety_api",
    );
    panic!("{message}");
}

// ---------------------------------------------------------------------------------------------
// The parser's own tests

/// A profile module exporting two types.
const FIXTURE_MODULE: &str = "
mod phase;
pub use phase::{Run};
";

fn fixture_listing(module: &str, files: &[(&str, &str)]) -> Result<Vec<String>, String> {
    let files: Vec<(String, String)> = files
        .iter()
        .map(|(p, s)| ((*p).to_owned(), (*s).to_owned()))
        .collect();
    listing(module, &files)
}

const PHASE: &str = r##"
//! Module docs with a brace { and a fn: pub fn fake(&self) {}
use crate::x::{A, B};

/// A run phase.
#[derive(Debug, Clone)]
pub struct Run<'g, T: Copy + 'g> {
    guard: &'g T,
    pub count: usize,
    pub(crate) hidden: u8,
}

impl<'g, T: Copy> Run<'g, T> {
    /// Docs: `{` is not a brace here, nor is }.
    #[doc(alias = "cuThing")]
    #[inline]
    pub fn synchronize(&self) -> Result<()> {
        let s = "}{"; let c = '{'; let d = '}'; let e = '\''; let r = r#"}"#;
        /* a block comment } /* nested { */ still a comment } */
        let lifetime_like: &'static str = "x";
        if true { { } }
        Ok(())
    }

    pub fn capture<P: Payload>(
        &self,
        stream: &Stream<'g>,
        f: impl for<'scope> FnOnce(
            &'scope Scope<'scope, 'static>,
            P::Bound<'scope>,
        ) -> Result<()>
        + 'static,
    ) -> Result<Graph<'g, P>>
    where
        P: Send,
    {
        todo!()
    }

    pub(crate) fn of(guard: &'g T) -> Self { Self { guard, count: 0, hidden: 0 } }
    fn private(&self) {}
    pub const fn zero() -> usize { 0 }
    pub unsafe fn raw(&self) -> *const T { core::ptr::null() }
    pub const LIMIT: usize = 4;
    #[cfg(feature = "extra")]
    pub fn extra(&self) {}
    #[cfg(test)]
    pub fn only_in_tests(&self) {}
    #[doc(hidden)]
    pub fn secret(&self) {}
    generated_methods!();
}

impl Drop for Run<'_, u8> {
    fn drop(&mut self) {}
}

unsafe impl<T: Copy> Send for Run<'_, T> where T: Send {}

impl From<Run<'_, u8>> for u32 {
    fn from(_: Run<'_, u8>) -> u32 { 0 }
}

impl Other {
    pub fn synchronize(&self) {}
    pub fn takes(run: Run<'_, u8>) {}
}

static_assertions::assert_not_impl_any!(Run<'static, u8>: Sync);

pub fn make_run() -> Run<'static, u8> { todo!() }
pub fn unrelated() -> u8 { 0 }

const _: () = {
    impl Run<'_, u16> {
        pub fn hidden_in_a_const(&self) {}
    }
};

fn body_with_nested_impl() {
    fn inner(f: impl Fn()) {}
    impl Run<'_, u32> {
        pub fn hidden_in_a_fn(&self) {}
    }
}

macro_rules! generated_methods {
    () => { pub fn made_by_a_macro(&self) {} };
}

#[cfg(test)]
mod tests {
    impl super::Run<'_, u64> {
        pub fn test_helper(&self) {}
    }
}
"##;

#[test]
fn the_parser_lists_public_items_trait_impls_and_nothing_else() {
    let lines = fixture_listing(FIXTURE_MODULE, &[("src/safety/phase.rs", PHASE)]).unwrap();
    let expected = [
        "Run.count: pub count: usize",
        "Run: #[derive(Debug, Clone)]",
        "Run: generated_methods!() (a macro in `impl<'g, T: Copy> Run<'g, T>`)",
        "Run: impl Drop for Run<'_, u8>",
        "Run: impl From<Run<'_, u8>> for u32",
        "Run: via Other::takes: pub fn takes(run: Run<'_, u8>)",
        "Run: pub struct Run<'g, T: Copy + 'g>",
        "Run: static_assertions::assert_not_impl_any!(Run<'static, u8>: Sync)",
        "Run: unsafe impl<T: Copy> Send for Run<'_, T> where T: Send",
        "Run::LIMIT: pub const LIMIT: usize",
        "Run::capture: pub fn capture<P: Payload>(&self, stream: &Stream<'g>, f: impl for<'scope> \
         FnOnce(&'scope Scope<'scope, 'static>, P::Bound<'scope>) -> Result<()> + 'static) -> \
         Result<Graph<'g, P>> where P: Send",
        "Run::extra: #[cfg(feature = \"extra\")] pub fn extra(&self)",
        "Run::hidden_in_a_const: pub fn hidden_in_a_const(&self)",
        "Run::hidden_in_a_fn: pub fn hidden_in_a_fn(&self)",
        "Run::raw: pub unsafe fn raw(&self) -> *const T",
        "Run::secret: #[doc(hidden)] pub fn secret(&self)",
        "Run: via make_run: pub fn make_run() -> Run<'static, u8>",
        "Run::synchronize: pub fn synchronize(&self) -> Result<()>",
        "Run::zero: pub const fn zero() -> usize",
    ];
    let mut expected = expected.map(str::to_owned).to_vec();
    expected.sort();
    assert_eq!(lines, expected, "{lines:#?}");
}

#[test]
fn a_signature_reads_the_same_on_one_line_and_on_many() {
    let one = "pub struct Run; impl Run { pub fn f<T: A + B>(&self, a: &mut [u8; 4], b: impl Fn(u8) -> u8) -> Option<Vec<T>> where T: Copy { x } }";
    let many = "pub struct Run;\nimpl Run {\n    pub fn f<\n        T: A + B,\n    >(\n        &self,\n        a: &mut [u8; 4],\n        b: impl Fn(u8) -> u8,\n    ) -> Option<Vec<T>>\n    where\n        T: Copy,\n    {\n        x\n    }\n}\n";
    let module = "pub use a::Run;";
    let a = fixture_listing(module, &[("src/a.rs", one)]).unwrap();
    let b = fixture_listing(module, &[("src/a.rs", many)]).unwrap();
    assert_eq!(a, b);
    assert!(
        a.contains(&"Run::f: pub fn f<T: A + B>(&self, a: &mut [u8; 4], b: impl Fn(u8) -> u8) -> Option<Vec<T>> where T: Copy".to_owned()),
        "{a:#?}"
    );
}

#[test]
fn an_added_run_phase_method_changes_the_listing() {
    let module = "pub use phase::RunPhase;";
    let before = "pub struct RunPhase<'g> { g: &'g u8 }\nimpl RunPhase<'_> {\n    pub fn synchronize(&self) {}\n}\n";
    let after = "pub struct RunPhase<'g> { g: &'g u8 }\nimpl RunPhase<'_> {\n    pub fn synchronize(&self) {}\n    pub fn event(&self) -> Result<Event<'_>> { todo!() }\n}\n";
    let old = fixture_listing(module, &[("src/safety/phase.rs", before)]).unwrap();
    let new = fixture_listing(module, &[("src/safety/phase.rs", after)]).unwrap();
    let added: Vec<_> = new.iter().filter(|l| !old.contains(l)).collect();
    assert_eq!(
        added,
        ["RunPhase::event: pub fn event(&self) -> Result<Event<'_>>"]
    );
    // Also from another file, in a trait impl.
    let elsewhere = "impl crate::Creates for crate::safety::RunPhase<'_> {}";
    let new = fixture_listing(
        module,
        &[("src/safety/phase.rs", before), ("src/other.rs", elsewhere)],
    )
    .unwrap();
    let added: Vec<_> = new.iter().filter(|l| !old.contains(l)).collect();
    assert_eq!(
        added,
        ["RunPhase: impl crate::Creates for crate::safety::RunPhase<'_>"]
    );
}

#[test]
fn broken_sources_and_ambiguous_names_are_errors() {
    let module = "pub use a::Run;";
    let e = fixture_listing(
        module,
        &[("src/a.rs", "pub struct Run; const S: &str = \"open;")],
    )
    .unwrap_err();
    assert!(
        e.contains("src/a.rs") && e.contains("unterminated string"),
        "{e}"
    );
    let e = fixture_listing(module, &[("src/a.rs", "pub struct Run; /* open")]).unwrap_err();
    assert!(e.contains("unterminated block comment"), "{e}");
    let e = fixture_listing(
        module,
        &[("src/a.rs", "pub struct Run; impl Run { pub fn f(&self) { ")],
    )
    .unwrap_err();
    assert!(e.contains("unclosed delimiter"), "{e}");
    let e = fixture_listing(
        module,
        &[("src/a.rs", "pub struct Run;"), ("src/b.rs", "struct Run;")],
    )
    .unwrap_err();
    assert!(e.contains("declared 2 times"), "{e}");
    let e = fixture_listing(module, &[("src/a.rs", "pub struct Other;")]).unwrap_err();
    assert!(e.contains("declared nowhere"), "{e}");
    let e = fixture_listing(
        "pub use a::Run as Renamed;",
        &[("src/a.rs", "pub struct Run;")],
    )
    .unwrap_err();
    assert!(e.contains("renamed export"), "{e}");
}

#[test]
fn the_tokenizer_keeps_literals_whole_and_drops_comments() {
    let toks = tokenize(r##"a /* } */ "}\"" 'b' '\'' 'c r#"x"# br"y" b'z' r#type 1.5 x..=y // }"##)
        .unwrap();
    let texts: Vec<&str> = toks.iter().map(Tok::text).collect();
    assert_eq!(
        texts,
        [
            "a",
            r#""}\"""#,
            "'b'",
            r"'\''",
            "'c",
            r##"r#"x"#"##,
            r#"br"y""#,
            "b'z'",
            "r#type",
            "1.5",
            "x",
            "..=",
            "y"
        ]
    );
    assert!(matches!(toks[4], Tok::Lifetime(_)));
}
