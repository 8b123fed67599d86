//! The whole call: [`Job::share`] checks its arguments, then runs rank 0's side
//! (`rank_zero.rs`) or another rank's (`other_ranks.rs`); a world of one touches no network.

use crate::deadline::checked_deadline;
use crate::error::{MakeError, Result, env_error, make_failed};
use crate::job::Job;
use crate::wire::check_tag;
use std::time::Duration;

impl Job {
    /// Rank 0 calls `make` once and sends its bytes to every other rank; every rank returns
    /// them.
    ///
    /// `tag`: bytes every rank must bring alike (a library's version, say `b"nccl 2.27.3"`; at
    /// most 4096 bytes); a rank whose tag differs makes every rank fail. All waits end by one
    /// deadline, now plus `timeout`, and so does the call on every rank (on the ranks other
    /// than 0 a host name is resolved on a helper thread, which may outlive the call when the
    /// resolver hangs).
    ///
    /// - **Rank 0** listens on the master address (as [`Job::listen`]) and accepts the other
    ///   `world_size − 1` ranks, reading every connection's hello at once (a connection that
    ///   sends nothing, or not a hello, within 2 s is closed and does not count, and holds up
    ///   no other). With the job's secret ([`Job::with_secret`]) it first refuses a hello that
    ///   does not present it: that connection does not count. Then it checks the hello: the
    ///   rendezvous protocol, the world size, the rank (in range, not twice) and the tag.
    ///   Once every rank has arrived and
    ///   agreed, it calls `make` and sends the bytes (at most 1 MiB) to each. Otherwise it
    ///   sends every connected rank the same error message and returns that error. It stops
    ///   waiting for missing ranks a quarter of the timeout (at most 1 s) before its deadline,
    ///   so that its answer reaches the others before theirs.
    /// - **Every other rank** connects to rank 0, trying again until the deadline while
    ///   nothing listens (rank 0 may start later), sends its hello (a magic, the protocol,
    ///   this crate's version, its rank, the world size, the job's secret if any, its tag) and
    ///   waits for the answer.
    /// - A world size of 1 calls `make` and touches no network.
    ///
    /// `make` may fail with any error ([`MakeError`]: `?` boxes one, `"why".into()` makes one):
    /// rank 0 then returns [`ErrorKind::Failed`] with that error as the
    /// [`source`](std::error::Error::source), and every other rank the same message.
    ///
    /// Ranks may run different versions of this crate as long as they speak the same rendezvous
    /// protocol (the tag is where a program pins what must be equal). A second process with a
    /// rank that arrives after rank 0 has heard from every rank finds nobody listening any
    /// more and times out alone; one that arrives before makes every rank fail.
    ///
    /// # Errors
    ///
    /// On every rank that reached rank 0, the same message:
    ///
    /// - [`ErrorKind::Timeout`]: ranks did not arrive by the deadline (the detail
    ///   names them); on the other ranks also when rank 0 did not answer in time
    ///   (``rank 0 at 10.0.0.1:29500 did not answer within 30 s``), which is what a wrong
    ///   address that nothing listens on gives.
    /// - [`ErrorKind::Mismatch`]: the ranks disagree on the world size, the tag or
    ///   the protocol, a rank is out of range or arrived twice, or a rank presents a secret
    ///   and rank 0 has none; the detail names both sides.
    /// - [`ErrorKind::Failed`]: `make` failed (on rank 0 its error is the source), its
    ///   bytes are over 1 MiB, the tag is over 4096 bytes, a connection
    ///   broke, or the peer at the master address is not a custack rank 0. On a rank alone:
    ///   rank 0 refused its hello, which does not present the job's secret (or speaks another
    ///   protocol while the job has a secret); the others go on without it.
    /// - [`ErrorKind::LaunchEnvironment`]: the master address does not resolve, rank 0 cannot
    ///   listen on it (the detail says why: a port in use, an address of another host), or the
    ///   port is 0.
    ///
    /// An I/O error is the error's [`source`](std::error::Error::source).
    ///
    /// [`ErrorKind::Failed`]: crate::ErrorKind::Failed
    /// [`ErrorKind::Timeout`]: crate::ErrorKind::Timeout
    /// [`ErrorKind::Mismatch`]: crate::ErrorKind::Mismatch
    /// [`ErrorKind::LaunchEnvironment`]: crate::ErrorKind::LaunchEnvironment
    pub fn share(
        &self,
        tag: &[u8],
        timeout: Duration,
        make: impl FnOnce() -> Result<Vec<u8>, MakeError>,
    ) -> Result<Vec<u8>> {
        let deadline = checked_deadline(timeout)?;
        check_tag(tag)?;
        if self.world_size() == 1 {
            return make().map_err(make_failed);
        }
        if self.master_port() == 0 {
            return Err(env_error(format!(
                "port 0 for rank 0 at {}: every rank must know the port (Job::listen on rank 0 \
                 binds port 0 and reports the port it got)",
                self.master_addr()
            )));
        }
        if self.rank() == 0 {
            self.listen_by(deadline)?
                .share_by(tag, timeout, deadline, make)
        } else {
            self.ask_rank_zero(tag, timeout, deadline)
        }
    }
}
