//! The checks every plan and call makes before cuSOLVER sees anything: each dimension and
//! leading dimension against the shape and the C `int` cuSOLVER takes, each bound buffer's
//! length against what the call reaches, and each workspace size cuSOLVER asks for. Pure
//! functions of numbers, so they are tested without a GPU. Each error's detail names the call
//! and the argument (`cusolverDnSgetrf: A holds 8 elements, a 3 × 3 matrix with lda 3 needs 9;
//! nothing was enqueued`).

use crate::error::{Error, ErrorKind, Result};
use crate::solver::types::Matrix;
use core::ffi::c_int;

#[cold]
#[inline(never)]
fn refused(call: &str, kind: ErrorKind, what: &str) -> Error {
    Error::custack(kind, format!("{call}: {what}; nothing was enqueued"))
}

/// `value` as a C `int`, or [`ErrorKind::SizeOverflow`] naming it.
pub(crate) fn int(call: &str, name: &str, value: usize) -> Result<c_int> {
    c_int::try_from(value).map_err(|_| {
        refused(
            call,
            ErrorKind::SizeOverflow,
            &format!("{name} {value} exceeds a C int ({})", c_int::MAX),
        )
    })
}

/// A matrix's shape, checked and converted to cuSOLVER's types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Dims {
    pub(crate) rows: c_int,
    pub(crate) cols: c_int,
    pub(crate) ld: c_int,
    /// The elements a buffer holding it must have.
    pub(crate) reach: usize,
}

/// Checks the matrix `name` of `call`: at least one row and one column, `ld ≥ rows`, each
/// number a C `int`, its reach a `usize`.
pub(crate) fn matrix(call: &str, name: &str, m: Matrix) -> Result<Dims> {
    if m.rows == 0 || m.cols == 0 {
        return Err(refused(
            call,
            ErrorKind::InvalidValue,
            &format!("{name} is {} × {}: no element to work on", m.rows, m.cols),
        ));
    }
    if m.ld < m.rows {
        return Err(refused(
            call,
            ErrorKind::InvalidValue,
            &format!(
                "the leading dimension of {name}, {}, is below its rows, {}",
                m.ld, m.rows
            ),
        ));
    }
    let reach = m.reach().ok_or_else(|| {
        refused(
            call,
            ErrorKind::SizeOverflow,
            &format!(
                "{name}'s elements ({} · {} + {}) overflow usize",
                m.ld,
                m.cols - 1,
                m.rows
            ),
        )
    })?;
    let rows = int(call, &format!("the rows of {name}"), m.rows)?;
    let cols = int(call, &format!("the columns of {name}"), m.cols)?;
    let ld = int(call, &format!("the leading dimension of {name}"), m.ld)?;
    Ok(Dims {
        rows,
        cols,
        ld,
        reach,
    })
}

/// A square matrix (`potrf`, `getrs`, `syevd`): [`matrix`], and `rows == cols`.
pub(crate) fn square(call: &str, name: &str, m: Matrix) -> Result<Dims> {
    let d = matrix(call, name, m)?;
    if m.rows != m.cols {
        return Err(refused(
            call,
            ErrorKind::InvalidValue,
            &format!("{name} is {} × {}, not square", m.rows, m.cols),
        ));
    }
    Ok(d)
}

/// Right-hand sides `b` of a solve with an `n × n` factor: `n` rows.
pub(crate) fn rhs(call: &str, n: usize, b: Matrix) -> Result<Dims> {
    let d = matrix(call, "B", b)?;
    if b.rows != n {
        return Err(refused(
            call,
            ErrorKind::InvalidValue,
            &format!("B has {} rows, the factor is {n} × {n}", b.rows),
        ));
    }
    Ok(d)
}

/// That pivots made for `made_rows` rows, `len` of them, are those of a factor of `rows` rows
/// with `count` pivots: each then names a row of the matrix the call reaches.
pub(crate) fn pivots(
    call: &str,
    (len, made_rows): (usize, usize),
    rows: usize,
    count: usize,
) -> Result<()> {
    if (len, made_rows) != (count, rows) {
        return Err(refused(
            call,
            ErrorKind::InvalidValue,
            &format!(
                "pivots made for {made_rows} rows ({len} of them), the call's are {count} for \
                 {rows} rows (make them with lu_pivots of the plan's shape)"
            ),
        ));
    }
    Ok(())
}

/// That the bound buffer `name` (`len` elements) holds the `need` elements the call reaches.
pub(crate) fn holds(call: &str, name: &str, len: usize, need: usize) -> Result<()> {
    if len < need {
        return Err(refused(
            call,
            ErrorKind::BufferTooShort,
            &format!("{name} holds {len} elements, the call reaches {need}"),
        ));
    }
    Ok(())
}

/// The workspace cuSOLVER asked for (`*_bufferSize`'s `lwork`, in elements) as a count of
/// elements: negative is refused ([`ErrorKind::CusolverInvalidWorkspace`], a library that
/// answers nonsense), as is a byte size that overflows `usize`.
pub(crate) fn workspace(call: &str, lwork: c_int, elem: usize) -> Result<usize> {
    let Ok(elements) = usize::try_from(lwork) else {
        return Err(Error::custack(
            ErrorKind::InvalidValue,
            format!("{call}: cuSOLVER asked for a workspace of {lwork} elements"),
        ));
    };
    elements.checked_mul(elem).ok_or_else(|| {
        Error::custack(
            ErrorKind::SizeOverflow,
            format!("{call}: a workspace of {elements} elements of {elem} bytes overflows usize"),
        )
    })?;
    Ok(elements)
}

/// The largest workspace of several calls, in elements, as the `int` cuSOLVER takes back.
pub(crate) fn largest(call: &str, sizes: &[usize]) -> Result<(usize, c_int)> {
    let most = sizes.iter().copied().max().unwrap_or(0);
    Ok((most, int(call, "the workspace", most)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    const CALL: &str = "cusolverDnSgetrf";

    fn refusal<T: core::fmt::Debug>(r: Result<T>) -> (ErrorKind, String) {
        let e = r.unwrap_err();
        (e.kind(), e.detail().unwrap_or_default().to_owned())
    }

    #[test]
    fn a_matrix_needs_rows_and_columns() {
        for m in [Matrix::new(0, 3), Matrix::new(3, 0), Matrix::new(0, 0)] {
            let (kind, detail) = refusal(matrix(CALL, "A", m));
            assert_eq!(kind, ErrorKind::InvalidValue);
            assert!(detail.contains("no element to work on"), "{detail}");
        }
    }

    #[test]
    fn the_leading_dimension_is_at_least_the_rows() {
        let (kind, detail) = refusal(matrix(CALL, "A", Matrix::new(4, 2).ld(3)));
        assert_eq!(kind, ErrorKind::InvalidValue);
        assert_eq!(
            detail,
            "cusolverDnSgetrf: the leading dimension of A, 3, is below its rows, 4; nothing was enqueued"
        );
        let d = matrix(CALL, "A", Matrix::new(4, 2).ld(4)).unwrap();
        assert_eq!((d.rows, d.cols, d.ld, d.reach), (4, 2, 4, 8));
        let d = matrix(CALL, "A", Matrix::new(3, 3).ld(5)).unwrap();
        assert_eq!(d.reach, 5 * 2 + 3, "the last column reaches only its rows");
    }

    #[test]
    fn every_number_fits_a_c_int() {
        let big = c_int::MAX as usize + 1;
        for (m, what) in [
            (Matrix::new(big, 1), "the rows of A"),
            (Matrix::new(1, big), "the columns of A"),
            (Matrix::new(1, 1).ld(big), "the leading dimension of A"),
        ] {
            let (kind, detail) = refusal(matrix(CALL, "A", m));
            assert_eq!(kind, ErrorKind::SizeOverflow);
            assert!(detail.contains(what), "{detail}");
        }
        let ok = c_int::MAX as usize;
        assert_eq!(
            matrix(CALL, "A", Matrix::new(ok, 1)).unwrap().rows,
            c_int::MAX
        );
    }

    #[test]
    fn the_reach_overflowing_usize_is_refused() {
        assert_eq!(Matrix::new(2, 3).ld(usize::MAX / 2).reach(), None);
        assert_eq!(Matrix::new(2, 0).reach(), Some(0));
        let (kind, detail) = refusal(matrix(CALL, "A", Matrix::new(2, 3).ld(usize::MAX / 2)));
        assert_eq!(kind, ErrorKind::SizeOverflow);
        assert!(detail.contains("overflow usize"), "{detail}");
    }

    #[test]
    fn square_and_rhs_shapes() {
        let (kind, detail) = refusal(square("cusolverDnSpotrf", "A", Matrix::new(3, 2)));
        assert_eq!(kind, ErrorKind::InvalidValue);
        assert!(detail.contains("A is 3 × 2, not square"), "{detail}");
        assert!(square("cusolverDnSpotrf", "A", Matrix::square(3)).is_ok());
        let (kind, detail) = refusal(rhs("cusolverDnSgetrs", 3, Matrix::new(2, 1)));
        assert_eq!(kind, ErrorKind::InvalidValue);
        assert!(
            detail.contains("B has 2 rows, the factor is 3 × 3"),
            "{detail}"
        );
        assert_eq!(
            rhs("cusolverDnSgetrs", 3, Matrix::new(3, 2)).unwrap().cols,
            2
        );
    }

    #[test]
    fn a_buffer_must_hold_what_the_call_reaches() {
        let (kind, detail) = refusal(holds(CALL, "A", 8, 9));
        assert_eq!(kind, ErrorKind::BufferTooShort);
        assert_eq!(
            detail,
            "cusolverDnSgetrf: A holds 8 elements, the call reaches 9; nothing was enqueued"
        );
        holds(CALL, "A", 9, 9).unwrap();
        holds(CALL, "A", 10, 9).unwrap();
    }

    #[test]
    fn workspace_sizes_are_checked() {
        let e = workspace("cusolverDnSgetrf_bufferSize", -1, 4).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidValue);
        assert_eq!(workspace("cusolverDnSgetrf_bufferSize", 0, 4).unwrap(), 0);
        assert_eq!(workspace("cusolverDnSgetrf_bufferSize", 10, 4).unwrap(), 10);
        if usize::BITS == 32 {
            let e = workspace("cusolverDnDgetrf_bufferSize", c_int::MAX, 8).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::SizeOverflow);
        }
        assert_eq!(largest("x", &[3, 9, 4]).unwrap(), (9, 9));
        let e = largest("x", &[c_int::MAX as usize + 1]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::SizeOverflow);
    }
}
