//! Every rank but 0's side of the rendezvous: connecting to rank 0 (trying again until the
//! deadline while nothing listens), sending the hello, reading the answer.

use crate::address::addresses_of;
use crate::deadline::{remaining, seconds};
use crate::error::{Error, ErrorKind, Result, failed};
use crate::job::Job;
use crate::wire::{self, Hello, ReadError, Status};
use std::io;
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

/// The longest a rank waits between two tries to connect.
const CONNECT_BACKOFF_MAX: Duration = Duration::from_millis(200);

impl Job {
    /// A rank other than 0: connect, say hello, wait for the answer.
    pub(crate) fn ask_rank_zero(
        &self,
        tag: &[u8],
        timeout: Duration,
        deadline: Instant,
    ) -> Result<Vec<u8>> {
        let endpoint = self.endpoint();
        let addrs = addresses_of(self.master_addr(), self.master_port(), deadline)?;
        let no_answer = |source: Option<io::Error>| {
            let e = Error::new(
                ErrorKind::Timeout,
                format!(
                    "rank 0 at {endpoint} did not answer within {} (rank {} of {} waited)",
                    seconds(timeout),
                    self.rank(),
                    self.world_size()
                ),
            );
            match source {
                Some(s) => e.with_source(s),
                None => e,
            }
        };
        let mut stream = connect(&addrs, deadline).map_err(no_answer)?;
        let _ = stream.set_nodelay(true);
        let hello = Hello::ours(self.rank(), self.world_size(), self.secret_bytes(), tag).encode();
        if let Err(e) = wire::write_all_by(&mut stream, &hello, deadline) {
            return Err(if wire::is_timeout(&e) {
                no_answer(Some(e))
            } else {
                failed(format!(
                    "sending rank {}'s hello to rank 0 at {endpoint}",
                    self.rank()
                ))
                .with_source(e)
            });
        }
        match wire::read_answer(&mut stream, deadline) {
            Ok((Status::Payload, bytes)) => Ok(bytes),
            Ok((status, message)) => {
                let kind = match status {
                    Status::Mismatch => ErrorKind::Mismatch,
                    Status::Timeout => ErrorKind::Timeout,
                    Status::Payload | Status::Failed => ErrorKind::Failed,
                };
                Err(Error::new(
                    kind,
                    format!(
                        "rank 0 at {endpoint} answered rank {}: {}",
                        self.rank(),
                        String::from_utf8_lossy(&message)
                    ),
                ))
            }
            Err(ReadError::Io(e)) if wire::is_timeout(&e) => Err(no_answer(Some(e))),
            Err(ReadError::Io(e)) => Err(failed(format!(
                "rank 0 at {endpoint} closed the connection without an answer to rank {}",
                self.rank()
            ))
            .with_source(e)),
            Err(ReadError::NotCustack(what)) => Err(failed(format!(
                "{endpoint} answered rank {} with {what}: not a custack rank 0 (another \
                 service on that port? under torchrun, whose agent listens on MASTER_PORT, \
                 set CUSTACK_RENDEZVOUS_PORT)",
                self.rank()
            ))),
        }
    }
}

/// Connects to the first of `addrs` that accepts, trying again (backing off up to 200 ms)
/// until `deadline`; the last error when none did.
fn connect(addrs: &[SocketAddr], deadline: Instant) -> Result<TcpStream, Option<io::Error>> {
    let mut last = None;
    let mut backoff = Duration::from_millis(10);
    loop {
        for addr in addrs {
            let Some(left) = remaining(deadline) else {
                return Err(last);
            };
            match TcpStream::connect_timeout(addr, left.min(Duration::from_secs(1))) {
                Ok(s) => return Ok(s),
                Err(e) => last = Some(e),
            }
        }
        let Some(left) = remaining(deadline) else {
            return Err(last);
        };
        std::thread::sleep(backoff.min(left));
        backoff = (backoff * 2).min(CONNECT_BACKOFF_MAX);
    }
}
