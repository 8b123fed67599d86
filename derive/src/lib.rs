//! `#[derive(DeviceCopy)]` for custack (re-exported as `custack::DeviceCopy`): marks a struct as
//! plain data, the `unsafe impl DeviceCopy` its author would otherwise write by hand, after
//! checking what that impl promises:
//!
//! - the struct is `#[repr(C)]` or `#[repr(transparent)]` (a Rust-layout struct has no layout
//!   the device can rely on);
//! - every field is `DeviceCopy` itself (so no reference, pointer, `bool` or owning type);
//! - it has no padding bytes: its size is the sum of its fields' sizes (padding is
//!   uninitialized on the host, and copies move it to the device and back as bytes);
//! - it is aligned to at most 256 bytes, what the driver's allocations promise (the host reads
//!   page-locked and managed memory as `&[T]`).
//!
//! Each check that fails is a compile error saying which and why. Generic structs are refused
//! (write `unsafe impl DeviceCopy` for them by hand).
//!
//! Written with `proc_macro` alone: a struct's fields are all this derive reads, and a
//! dependency on `syn` and `quote` would multiply custack's build time for them.

use proc_macro::{Delimiter, Group, Ident, Punct, Spacing, Span, TokenStream, TokenTree};

/// Implements `custack::DeviceCopy` for a `#[repr(C)]` or `#[repr(transparent)]` struct whose
/// fields are all `DeviceCopy` and which has no padding bytes; a compile error otherwise.
#[proc_macro_derive(DeviceCopy)]
pub fn derive_device_copy(input: TokenStream) -> TokenStream {
    derive_for(input, "::custack")
}

/// The same derive for programs that depend on the facade crate `custack-safety` alone (it
/// re-exports this one as its `DeviceCopy`): the impl names `::custack_safety::DeviceCopy`, the
/// same trait re-exported, since `::custack` does not resolve in such a program. A proc macro
/// has no `$crate`: the path is the only way to say which crate the program can name.
#[doc(hidden)]
#[proc_macro_derive(DeviceCopyOfCustackSafety)]
pub fn derive_device_copy_of_custack_safety(input: TokenStream) -> TokenStream {
    derive_for(input, "::custack_safety")
}

/// The derive's output, naming the trait through `krate` (`::custack` or `::custack_safety`).
fn derive_for(input: TokenStream, krate: &str) -> TokenStream {
    match expand(input, krate) {
        Ok(tokens) => tokens,
        Err((message, span)) => compile_error(&message, span),
    }
}

type Failure = (String, Span);

/// The struct's name and its fields' types.
struct Struct {
    name: Ident,
    fields: Vec<TokenStream>,
}

fn expand(input: TokenStream, krate: &str) -> Result<TokenStream, Failure> {
    let s = parse(input)?;
    let name = s.name.to_string();
    let mut out = TokenStream::new();
    // Every field is plain data: a bound per field type, spanned at the field's type, so the
    // compiler's "not plain data" error points at the field.
    let mut checks = TokenStream::new();
    let mut sizes = String::from("0usize");
    for field in &s.fields {
        checks.extend(tokens("__custack_plain_data::<")?);
        checks.extend(field.clone());
        checks.extend(tokens(">();")?);
        sizes.push_str(" + ::core::mem::size_of::<");
        sizes.push_str(&field.to_string());
        sizes.push_str(">()");
    }
    let mut block = tokens(&format!(
        "fn __custack_plain_data<T: {krate}::DeviceCopy>() {{}} #[allow(dead_code)] fn __custack_fields()",
    ))?;
    block.extend([TokenTree::Group(Group::new(Delimiter::Brace, checks))]);
    block.extend(tokens(&format!(
        "::core::assert!(::core::mem::size_of::<{name}>() == {sizes}, \
         \"derive(DeviceCopy): `{name}` has padding bytes (its size exceeds the sum of its \
         fields' sizes); padding is uninitialized on the host: add explicit fields for it, or \
         reorder the fields\"); \
         ::core::assert!(::core::mem::align_of::<{name}>() <= 256, \
         \"derive(DeviceCopy): `{name}` is aligned to more than 256 bytes, more than the driver's \
         allocations promise (a page-locked buffer of it would be a misaligned slice): lower its \
         #[repr(align(N))]\");"
    ))?);
    out.extend(tokens("const _: () =")?);
    out.extend([TokenTree::Group(Group::new(Delimiter::Brace, block))]);
    out.extend(tokens(";")?);
    // SAFETY (in the output): the three checks above are the trait's promise.
    out.extend(tokens(&format!(
        "unsafe impl {krate}::DeviceCopy for {name} {{}}"
    ))?);
    Ok(out)
}

fn parse(input: TokenStream) -> Result<Struct, Failure> {
    let mut tokens = input.into_iter().peekable();
    let mut repr_ok = false;
    let mut first_span = None;
    // Attributes and visibility.
    let keyword = loop {
        let Some(token) = tokens.next() else {
            return Err((
                "derive(DeviceCopy): expected a struct".into(),
                Span::call_site(),
            ));
        };
        first_span.get_or_insert(token.span());
        match token {
            TokenTree::Punct(p) if p.as_char() == '#' => {
                if let Some(TokenTree::Group(g)) = tokens.next() {
                    repr_ok |= is_repr_c(&g);
                }
            }
            TokenTree::Ident(i) if i.to_string() == "pub" => {
                if matches!(tokens.peek(), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis)
                {
                    tokens.next();
                }
            }
            TokenTree::Ident(i) => break i,
            other => {
                return Err(("derive(DeviceCopy): expected a struct".into(), other.span()));
            }
        }
    };
    if keyword.to_string() != "struct" {
        return Err((
            format!(
                "derive(DeviceCopy) applies to structs only, not to a `{keyword}`: an enum or \
                 union has bit patterns that are not valid values"
            ),
            keyword.span(),
        ));
    }
    let Some(TokenTree::Ident(name)) = tokens.next() else {
        return Err((
            "derive(DeviceCopy): expected the struct's name".into(),
            keyword.span(),
        ));
    };
    if !repr_ok {
        return Err((
            format!(
                "derive(DeviceCopy) needs `#[repr(C)]` or `#[repr(transparent)]` on `{name}`: \
                 a Rust-layout struct has no field order or layout the device can rely on"
            ),
            name.span(),
        ));
    }
    let fields = match tokens.next() {
        Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Brace => fields(g.stream(), true),
        Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis => {
            fields(g.stream(), false)
        }
        Some(TokenTree::Punct(p)) if p.as_char() == ';' => Vec::new(),
        Some(TokenTree::Punct(p)) if p.as_char() == '<' => {
            return Err((
                format!(
                    "derive(DeviceCopy) does not take generic structs (`{name}<..>`): a lifetime \
                     parameter means a reference, which is not plain data; for type parameters \
                     write `unsafe impl DeviceCopy` by hand, bounding them by `DeviceCopy`"
                ),
                p.span(),
            ));
        }
        Some(other) => {
            return Err((
                format!("derive(DeviceCopy): unexpected `{other}` after `struct {name}`"),
                other.span(),
            ));
        }
        None => return Err(("derive(DeviceCopy): expected fields".into(), name.span())),
    };
    Ok(Struct { name, fields })
}

/// Whether an attribute's bracket group is `repr(C, ..)` or `repr(transparent)`.
fn is_repr_c(attr: &Group) -> bool {
    let mut inner = attr.stream().into_iter();
    let (Some(TokenTree::Ident(repr)), Some(TokenTree::Group(args))) = (inner.next(), inner.next())
    else {
        return false;
    };
    repr.to_string() == "repr"
        && args.stream().into_iter().any(
            |t| matches!(t, TokenTree::Ident(i) if matches!(i.to_string().as_str(), "C" | "transparent")),
        )
}

/// The field types of a struct body: `name: Type` (named) or `Type` (tuple), comma-separated;
/// commas inside `<..>` belong to the type.
fn fields(body: TokenStream, named: bool) -> Vec<TokenStream> {
    let mut out = Vec::new();
    let mut current: Vec<TokenTree> = Vec::new();
    let mut depth = 0usize;
    let mut previous_dash = false;
    for token in body {
        if let TokenTree::Punct(p) = &token {
            match p.as_char() {
                '<' => depth += 1,
                '>' if !previous_dash => depth = depth.saturating_sub(1),
                ',' if depth == 0 => {
                    out.extend(field_type(&current, named));
                    current.clear();
                    previous_dash = false;
                    continue;
                }
                _ => {}
            }
            previous_dash = p.as_char() == '-' && p.spacing() == Spacing::Joint;
        } else {
            previous_dash = false;
        }
        current.push(token);
    }
    out.extend(field_type(&current, named));
    out
}

/// One field's type, without its attributes, visibility and name.
fn field_type(tokens: &[TokenTree], named: bool) -> Option<TokenStream> {
    let mut i = 0;
    loop {
        match tokens.get(i) {
            Some(TokenTree::Punct(p)) if p.as_char() == '#' => i += 2,
            Some(TokenTree::Ident(id)) if id.to_string() == "pub" => {
                i += 1;
                if matches!(tokens.get(i), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis)
                {
                    i += 1;
                }
            }
            Some(_) => break,
            None => return None,
        }
    }
    if named {
        i += 2; // `name :`
    }
    let ty: TokenStream = tokens.get(i..)?.iter().cloned().collect();
    if ty.is_empty() { None } else { Some(ty) }
}

/// `code` as tokens. Code this derive writes always lexes, but a field type's text is part of
/// the padding check: should it ever not lex back, the derive fails with a compile error
/// rather than emit the impl without that check (an empty stream would silently drop it).
fn tokens(code: &str) -> Result<TokenStream, Failure> {
    code.parse().map_err(|e: proc_macro::LexError| {
        (
            format!(
                "derive(DeviceCopy): could not write its checks (`{code}` does not lex: {e}); \
                 write `unsafe impl DeviceCopy` by hand"
            ),
            Span::call_site(),
        )
    })
}

/// `compile_error!("message")` at `span`.
fn compile_error(message: &str, span: Span) -> TokenStream {
    let mut literal = proc_macro::Literal::string(message);
    literal.set_span(span);
    let mut bang = Punct::new('!', Spacing::Alone);
    bang.set_span(span);
    let args = TokenStream::from(TokenTree::Literal(literal));
    let mut group = Group::new(Delimiter::Parenthesis, args);
    group.set_span(span);
    let mut semi = Punct::new(';', Spacing::Alone);
    semi.set_span(span);
    [
        TokenTree::Ident(Ident::new("compile_error", span)),
        TokenTree::Punct(bang),
        TokenTree::Group(group),
        TokenTree::Punct(semi),
    ]
    .into_iter()
    .collect()
}
