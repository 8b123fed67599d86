//! The rendezvous's bytes on the wire, and reads and writes bounded by a deadline.
//!
//! A rank's hello (all integers little-endian):
//!
//! | bytes | field |
//! | --- | --- |
//! | 8 | [`MAGIC`] |
//! | 4 | protocol version ([`PROTOCOL`]) |
//! | 8 | rank |
//! | 8 | world size |
//! | 2 + n | the version of the sender's `custack-rendezvous` (n ≤ [`MAX_VERSION`]) |
//! | 2 + n | the job's secret, in the clear (n ≤ [`MAX_SECRET`]; n = 0: none) |
//! | 4 + n | tag (n ≤ [`MAX_TAG`]) |
//!
//! Protocol 1 had no secret field. Every later protocol keeps the first five fields as they
//! are, so that rank 0 can name the rank and both versions when the protocols differ. Rank 0's
//! answer:
//!
//! | bytes | field |
//! | --- | --- |
//! | 8 | [`MAGIC`] |
//! | 1 | [`Status`] |
//! | 4 + n | the payload, or the error message in UTF-8 (n ≤ [`MAX_BODY`]) |
//!
//! No length read from a peer is trusted beyond its cap: nothing larger is allocated. Rank 0
//! reads hellos from non-blocking sockets, a few bytes at a time as they come
//! ([`Hello::parse`] says whether the bytes so far are a whole hello, its beginning, or not a
//! hello at all), so that no connection can make it wait for another.

use crate::deadline::remaining;
use crate::error::{Result, failed};
use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::time::{Duration, Instant};

/// The first bytes of every hello and answer: anything else is not a custack rank.
pub(crate) const MAGIC: [u8; 8] = *b"CUSTKRDV";
/// The version of this layout: 2 added the secret.
pub(crate) const PROTOCOL: u32 = 2;
/// The longest tag a hello carries.
pub(crate) const MAX_TAG: usize = 4096;
/// The longest crate version string a hello carries.
pub(crate) const MAX_VERSION: usize = 64;
/// The longest secret a hello carries.
pub(crate) const MAX_SECRET: usize = 1024;
/// The longest hello of this protocol: rank 0 buffers no more from one connection.
pub(crate) const MAX_HELLO: usize = 8 + 4 + 8 + 8 + 2 + MAX_VERSION + 2 + MAX_SECRET + 4 + MAX_TAG;
/// The largest payload (or error message) an answer carries: 1 MiB.
pub(crate) const MAX_BODY: usize = 1 << 20;

/// Refuses a tag longer than a hello carries ([`MAX_TAG`]).
pub(crate) fn check_tag(tag: &[u8]) -> Result<()> {
    if tag.len() > MAX_TAG {
        return Err(failed(format!(
            "a tag of {} bytes, over the rendezvous's {} bytes",
            tag.len(),
            MAX_TAG
        )));
    }
    Ok(())
}

/// What rank 0's answer carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Status {
    /// The bytes `make` returned.
    Payload = 0,
    /// The ranks disagree; the body says how.
    Mismatch = 1,
    /// A rank did not arrive in time; the body names it.
    Timeout = 2,
    /// Anything else (`make` failed, a connection broke); the body says what.
    Failed = 3,
}

impl Status {
    fn from_byte(b: u8) -> Option<Self> {
        Some(match b {
            0 => Self::Payload,
            1 => Self::Mismatch,
            2 => Self::Timeout,
            3 => Self::Failed,
            _ => return None,
        })
    }
}

/// A rank's hello. `Debug` shows the secret's length only.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Hello {
    pub(crate) protocol: u32,
    pub(crate) rank: u64,
    pub(crate) world_size: u64,
    pub(crate) version: String,
    /// The job's secret as the sender has it; empty when it has none, or when the protocol
    /// differs (the rest is not read).
    pub(crate) secret: Vec<u8>,
    /// Empty when the protocol differs (the rest is not read).
    pub(crate) tag: Vec<u8>,
}

impl std::fmt::Debug for Hello {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hello")
            .field("protocol", &self.protocol)
            .field("rank", &self.rank)
            .field("world_size", &self.world_size)
            .field("version", &self.version)
            .field("secret", &format_args!("<{} bytes>", self.secret.len()))
            .field("tag", &self.tag.escape_ascii().to_string())
            .finish()
    }
}

/// Why a peer's bytes were not read as a hello or an answer.
#[derive(Debug)]
pub(crate) enum ReadError {
    /// The bytes are not custack's (wrong magic, a length over its cap, an unknown status).
    NotCustack(&'static str),
    /// The connection failed, closed early, or the deadline passed.
    Io(io::Error),
}

impl From<io::Error> for ReadError {
    fn from(e: io::Error) -> Self {
        Self::Io(e)
    }
}

/// Whether `e` is a socket timeout (`SO_RCVTIMEO`/`SO_SNDTIMEO` report `EAGAIN` on Unix).
pub(crate) fn is_timeout(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock
    )
}

fn timed_out() -> io::Error {
    io::Error::from(io::ErrorKind::TimedOut)
}

/// Fills `buf` from `stream`, each read bounded by the time left until `deadline` (so a peer
/// that sends a byte at a time cannot stretch the wait beyond it).
pub(crate) fn read_exact_by(
    stream: &mut TcpStream,
    mut buf: &mut [u8],
    deadline: Instant,
) -> io::Result<()> {
    while !buf.is_empty() {
        let left = remaining(deadline).ok_or_else(timed_out)?;
        stream.set_read_timeout(Some(left))?;
        match stream.read(buf) {
            Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => {
                let rest = std::mem::take(&mut buf);
                buf = rest.get_mut(n..).unwrap_or_default();
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Writes all of `bytes`, each write bounded by the time left until `deadline`.
pub(crate) fn write_all_by(
    stream: &mut TcpStream,
    mut bytes: &[u8],
    deadline: Instant,
) -> io::Result<()> {
    while !bytes.is_empty() {
        let left = remaining(deadline).ok_or_else(timed_out)?;
        stream.set_write_timeout(Some(left))?;
        match stream.write(bytes) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => bytes = bytes.split_at_checked(n).map_or(&[][..], |(_, rest)| rest),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

fn read_array<const N: usize>(stream: &mut TcpStream, deadline: Instant) -> io::Result<[u8; N]> {
    let mut b = [0; N];
    read_exact_by(stream, &mut b, deadline)?;
    Ok(b)
}

/// Reads `len` bytes, refusing a `len` over `cap` before allocating anything.
fn read_capped(
    stream: &mut TcpStream,
    len: u64,
    cap: usize,
    what: &'static str,
    deadline: Instant,
) -> Result<Vec<u8>, ReadError> {
    let len = capped(len, cap).ok_or(ReadError::NotCustack(what))?;
    let mut v = vec![0; len];
    read_exact_by(stream, &mut v, deadline)?;
    Ok(v)
}

/// The first `n` bytes of `bytes`, or all of them when there are fewer.
fn head_of(bytes: &[u8], n: usize) -> &[u8] {
    bytes.split_at_checked(n).map_or(bytes, |(head, _)| head)
}

/// `bytes` with a little-endian length of `N` bytes in front.
fn push_prefixed<const N: usize>(out: &mut Vec<u8>, bytes: &[u8]) {
    let len = (bytes.len() as u64).to_le_bytes();
    out.extend_from_slice(head_of(&len, N));
    out.extend_from_slice(bytes);
}

impl Hello {
    /// This process's hello. The caller checked `tag.len() <= MAX_TAG` and
    /// `secret.len() <= MAX_SECRET`.
    pub(crate) fn ours(rank: usize, world_size: usize, secret: &[u8], tag: &[u8]) -> Self {
        Self {
            protocol: PROTOCOL,
            rank: rank as u64,
            world_size: world_size as u64,
            version: env!("CARGO_PKG_VERSION").to_owned(),
            secret: secret.to_vec(),
            tag: tag.to_vec(),
        }
    }

    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(64 + self.tag.len());
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&self.protocol.to_le_bytes());
        out.extend_from_slice(&self.rank.to_le_bytes());
        out.extend_from_slice(&self.world_size.to_le_bytes());
        let version = self.version.as_bytes();
        push_prefixed::<2>(&mut out, head_of(version, MAX_VERSION));
        push_prefixed::<2>(&mut out, head_of(&self.secret, MAX_SECRET));
        push_prefixed::<4>(&mut out, &self.tag);
        out
    }

    /// Reads a hello from the bytes a connection has sent so far: `Ok(None)` while they are
    /// the beginning of one (wait for more), `Err` as soon as they cannot be one (the first
    /// bytes are not [`MAGIC`], a length is over its cap), the hello once it is whole. Stops
    /// after the version when the protocol is not ours (the rest is not read).
    pub(crate) fn parse(bytes: &[u8]) -> Result<Option<Self>, &'static str> {
        if !MAGIC.starts_with(head_of(bytes, MAGIC.len())) {
            return Err("no custack magic");
        }
        Self::parse_whole(&mut Cursor(bytes)).transpose()
    }

    /// [`Hello::parse`] after the magic's check: `None` where the bytes end early.
    fn parse_whole(c: &mut Cursor<'_>) -> Option<Result<Self, &'static str>> {
        c.array::<8>()?;
        let protocol = u32::from_le_bytes(c.array()?);
        let rank = u64::from_le_bytes(c.array()?);
        let world_size = u64::from_le_bytes(c.array()?);
        let version_len = u16::from_le_bytes(c.array()?);
        let Some(version_len) = capped(version_len.into(), MAX_VERSION) else {
            return Some(Err("a version string over its cap"));
        };
        let version = String::from_utf8_lossy(c.take(version_len)?).into_owned();
        let (secret, tag) = if protocol == PROTOCOL {
            let secret_len = u16::from_le_bytes(c.array()?);
            let Some(secret_len) = capped(secret_len.into(), MAX_SECRET) else {
                return Some(Err("a secret over its cap"));
            };
            let secret = c.take(secret_len)?.to_vec();
            let tag_len = u32::from_le_bytes(c.array()?);
            let Some(tag_len) = capped(tag_len.into(), MAX_TAG) else {
                return Some(Err("a tag over its cap"));
            };
            (secret, c.take(tag_len)?.to_vec())
        } else {
            (Vec::new(), Vec::new())
        };
        Some(Ok(Self {
            protocol,
            rank,
            world_size,
            version,
            secret,
            tag,
        }))
    }
}

/// `len` as a `usize` when it is at most `cap`.
fn capped(len: u64, cap: usize) -> Option<usize> {
    usize::try_from(len).ok().filter(|&l| l <= cap)
}

/// The bytes of a hello not parsed yet.
struct Cursor<'a>(&'a [u8]);

impl<'a> Cursor<'a> {
    /// The next `n` bytes, or `None` when fewer have arrived.
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let (head, rest) = self.0.split_at_checked(n)?;
        self.0 = rest;
        Some(head)
    }

    fn array<const N: usize>(&mut self) -> Option<[u8; N]> {
        self.take(N)?.try_into().ok()
    }
}

/// Rank 0's answer: the status and its body (the body cut at [`MAX_BODY`]; the caller
/// refuses a larger payload before).
pub(crate) fn encode_answer(status: Status, body: &[u8]) -> Vec<u8> {
    let body = head_of(body, MAX_BODY);
    let mut out = Vec::with_capacity(13 + body.len());
    out.extend_from_slice(&MAGIC);
    out.push(status as u8);
    push_prefixed::<4>(&mut out, body);
    out
}

/// Reads rank 0's answer.
pub(crate) fn read_answer(
    stream: &mut TcpStream,
    deadline: Instant,
) -> Result<(Status, Vec<u8>), ReadError> {
    if read_array::<8>(stream, deadline)? != MAGIC {
        return Err(ReadError::NotCustack("no custack magic"));
    }
    let [status] = read_array::<1>(stream, deadline)?;
    let status = Status::from_byte(status).ok_or(ReadError::NotCustack("an unknown status"))?;
    let len = u32::from_le_bytes(read_array(stream, deadline)?);
    let body = read_capped(
        stream,
        len.into(),
        MAX_BODY,
        "an answer over its cap",
        deadline,
    )?;
    Ok((status, body))
}

/// Closes a connection whose peer may still have sent bytes we did not read (the rest of a
/// hello of another protocol): closing with unread bytes would reset the connection, and the
/// peer could lose the answer written before. So: no more writes, then read to the peer's
/// close, for at most 200 ms and 64 reads.
pub(crate) fn close_gently(mut stream: TcpStream, deadline: Instant) {
    let _ = stream.shutdown(Shutdown::Write);
    let until = deadline.min(Instant::now() + Duration::from_millis(200));
    let mut scratch = [0u8; 4096];
    for _ in 0..64 {
        let Some(left) = remaining(until) else { return };
        if stream.set_read_timeout(Some(left)).is_err() {
            return;
        }
        match stream.read(&mut scratch) {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hello_is_laid_out_as_documented() {
        let bytes = Hello::ours(2, 4, b"sesame", b"nccl").encode();
        assert_eq!(&bytes[..8], b"CUSTKRDV");
        assert_eq!(&bytes[8..12], &2u32.to_le_bytes());
        assert_eq!(&bytes[12..20], &2u64.to_le_bytes());
        assert_eq!(&bytes[20..28], &4u64.to_le_bytes());
        let v = env!("CARGO_PKG_VERSION").as_bytes();
        assert_eq!(
            &bytes[28..30],
            &u16::try_from(v.len()).unwrap().to_le_bytes()
        );
        assert_eq!(&bytes[30..30 + v.len()], v);
        let rest = &bytes[30 + v.len()..];
        assert_eq!(rest, b"\x06\0sesame\x04\0\0\0nccl");
    }

    #[test]
    fn a_hello_parses_once_whole_and_not_before() {
        let hello = Hello::ours(3, 8, b"sesame", b"nccl 2.27.3");
        let bytes = hello.encode();
        assert!(bytes.len() <= MAX_HELLO);
        for n in 0..bytes.len() {
            assert_eq!(Hello::parse(&bytes[..n]), Ok(None), "{n} bytes");
        }
        assert_eq!(Hello::parse(&bytes), Ok(Some(hello.clone())));
        // Bytes after the hello are not its.
        let mut more = bytes.clone();
        more.extend_from_slice(b"after");
        assert_eq!(Hello::parse(&more), Ok(Some(hello)));
    }

    #[test]
    fn what_is_not_a_hello_is_refused_from_its_first_bytes() {
        assert_eq!(Hello::parse(b"G"), Err("no custack magic"));
        assert_eq!(Hello::parse(b"GET / HTTP/1.0"), Err("no custack magic"));
        // A length over its cap is refused before anything that long arrives.
        let mut over = Hello::ours(1, 2, b"", b"").encode();
        let secret_at = 30 + env!("CARGO_PKG_VERSION").len();
        over[secret_at..secret_at + 2].copy_from_slice(&u16::MAX.to_le_bytes());
        assert_eq!(
            Hello::parse(&over[..secret_at + 2]),
            Err("a secret over its cap")
        );
        let mut long_version = over[..28].to_vec();
        long_version.extend_from_slice(&65u16.to_le_bytes());
        assert_eq!(
            Hello::parse(&long_version),
            Err("a version string over its cap")
        );
    }

    #[test]
    fn a_hello_of_another_protocol_stops_after_the_version() {
        let mut bytes = Hello::ours(1, 2, b"sesame", b"tag").encode();
        bytes[8..12].copy_from_slice(&1u32.to_le_bytes());
        let v = env!("CARGO_PKG_VERSION").len();
        let hello = Hello::parse(&bytes[..30 + v]).unwrap().unwrap();
        assert_eq!((hello.protocol, hello.rank), (1, 1));
        assert!(hello.secret.is_empty() && hello.tag.is_empty());
    }

    #[test]
    fn debug_shows_the_secrets_length_only() {
        let shown = format!("{:?}", Hello::ours(1, 2, b"sesame", b"tag"));
        assert!(shown.contains("<6 bytes>"), "{shown}");
        assert!(!shown.contains("sesame"), "{shown}");
    }

    #[test]
    fn an_answer_is_laid_out_as_documented() {
        let bytes = encode_answer(Status::Timeout, b"rank 2");
        assert_eq!(bytes, b"CUSTKRDV\x02\x06\0\0\0rank 2");
    }
}
