//! Who this process is in its job: its rank, the world size, its local rank and where rank 0
//! listens, from the launcher's variables ([`Job::from_env`]) or given ([`Job::new`]), with the
//! job's secret if it carries one ([`Job::with_secret`]). Every check of what the launcher
//! passed lives here; the rendezvous itself (`share.rs`, `rank_zero.rs`, `other_ranks.rs`)
//! reads the job through its accessors.

use crate::address::endpoint;
use crate::error::{Result, env_error};
use crate::secret::{MAX_SECRET_LEN, SECRET_VAR};

/// Who this process is in its job: its rank, the world size, its local rank, and where rank 0
/// listens.
///
/// Made from the launcher's environment ([`Job::from_env`]) or given ([`Job::new`], and
/// [`Job::with_secret`] for the job's secret). `Debug` shows whether the job has a secret,
/// never the secret.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Job {
    rank: usize,
    world_size: usize,
    local_rank: usize,
    master_addr: String,
    master_port: u16,
    /// The job's shared secret: every hello must present it (see the crate's docs).
    secret: Option<Box<[u8]>>,
}

impl std::fmt::Debug for Job {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Job")
            .field("rank", &self.rank)
            .field("world_size", &self.world_size)
            .field("local_rank", &self.local_rank)
            .field("master_addr", &self.master_addr)
            .field("master_port", &self.master_port)
            .field("secret", &self.secret.as_ref().map(|_| "<hidden>"))
            .finish()
    }
}

/// The largest world size: NCCL's `nranks` is a C `int`.
pub const MAX_WORLD_SIZE: usize = i32::MAX as usize;

impl Job {
    /// Reads the job from the launcher's environment: torchrun's `RANK`, `WORLD_SIZE`,
    /// `LOCAL_RANK`, `MASTER_ADDR`, `MASTER_PORT`; where `RANK`, `WORLD_SIZE` or `LOCAL_RANK`
    /// is unset, Open MPI's `OMPI_COMM_WORLD_RANK`, `OMPI_COMM_WORLD_SIZE`,
    /// `OMPI_COMM_WORLD_LOCAL_RANK`; the job's secret from `CUSTACK_RENDEZVOUS_SECRET`
    /// ([`SECRET_VAR`]) where set. See [`Job::from_env_with`] for every rule.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::LaunchEnvironment`] when a variable is missing or invalid; the detail names
    /// it and its value (never the secret's).
    ///
    /// [`ErrorKind::LaunchEnvironment`]: crate::ErrorKind::LaunchEnvironment
    pub fn from_env() -> Result<Job> {
        Self::from_env_with(|name| std::env::var_os(name).map(|v| v.to_string_lossy().into_owned()))
    }

    /// [`Job::from_env`] with the variables read through `var` (`None`: unset), for tests
    /// and for programs that keep their settings elsewhere.
    ///
    /// - The rank is `RANK`, else `OMPI_COMM_WORLD_RANK`; the world size `WORLD_SIZE`, else
    ///   `OMPI_COMM_WORLD_SIZE`. Both are required.
    /// - The local rank is `LOCAL_RANK`, else `OMPI_COMM_WORLD_LOCAL_RANK`, else **the rank**:
    ///   right on one host, where a launcher that sets no local rank usually runs; on several
    ///   hosts it gives a device ordinal past the host's GPUs, so the mistake shows as an
    ///   invalid device rather than every process sharing GPU 0.
    /// - The world size is at most [`MAX_WORLD_SIZE`] (`i32::MAX`: NCCL's `nranks` is a C
    ///   `int`).
    /// - `MASTER_ADDR` (a host name or an IP address) is required.
    /// - The port is `CUSTACK_RENDEZVOUS_PORT` where set. Otherwise `MASTER_PORT`, except under
    ///   torchrun's agent store (`TORCHELASTIC_USE_AGENT_STORE=True`, which torchrun sets when
    ///   its agent itself listens on `MASTER_PORT`): then `MASTER_PORT + 1`, the same on every
    ///   rank. Ports are 1 to 65535.
    /// - The job's secret is `CUSTACK_RENDEZVOUS_SECRET` ([`SECRET_VAR`]) where set, taken
    ///   byte for byte (white space included), 1 to [`MAX_SECRET_LEN`] bytes; set, every
    ///   hello must present it (see [`Job::with_secret`]). Unset: no secret, for a trusted
    ///   network only.
    ///
    /// Other values may carry surrounding white space.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::LaunchEnvironment`] when a required variable is unset, a value is not a
    /// number of the right range (a world size over [`MAX_WORLD_SIZE`] included), the rank (or
    /// local rank) is not below the world size, or the secret is empty or over
    /// [`MAX_SECRET_LEN`] bytes; the detail names the variable and its value (the secret's
    /// length only).
    ///
    /// # Examples
    ///
    /// ```
    /// use custack_rendezvous::Job;
    ///
    /// let env = [("RANK", "1"), ("WORLD_SIZE", "4"), ("MASTER_ADDR", "10.0.0.1"), ("MASTER_PORT", "29500")];
    /// let job = Job::from_env_with(|name| {
    ///     env.iter().find(|(n, _)| *n == name).map(|(_, v)| v.to_string())
    /// })?;
    /// assert_eq!((job.rank(), job.world_size(), job.local_rank()), (1, 4, 1));
    /// assert_eq!((job.master_addr(), job.master_port()), ("10.0.0.1", 29500));
    /// # Ok::<(), custack_rendezvous::Error>(())
    /// ```
    ///
    /// [`ErrorKind::LaunchEnvironment`]: crate::ErrorKind::LaunchEnvironment
    pub fn from_env_with(mut var: impl FnMut(&str) -> Option<String>) -> Result<Job> {
        let mut first_of = |names: &[&'static str]| {
            names
                .iter()
                .find_map(|&name| var(name).map(|value| (name, value)))
        };
        let rank = first_of(&["RANK", "OMPI_COMM_WORLD_RANK"]);
        let world = first_of(&["WORLD_SIZE", "OMPI_COMM_WORLD_SIZE"]);
        let local = first_of(&["LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK"]);
        let addr = first_of(&["MASTER_ADDR"]);
        let port = first_of(&["CUSTACK_RENDEZVOUS_PORT"]);
        let master_port = first_of(&["MASTER_PORT"]);
        let agent_store = first_of(&["TORCHELASTIC_USE_AGENT_STORE"]);
        let secret = first_of(&[SECRET_VAR]);

        let (rank_name, rank) = required(
            rank,
            "neither RANK (torchrun) nor OMPI_COMM_WORLD_RANK (Open MPI) is set",
        )?;
        let rank: usize = number(rank_name, &rank, "a rank (0, 1, 2, ...)")?;
        let (world_name, world) = required(
            world,
            "neither WORLD_SIZE (torchrun) nor OMPI_COMM_WORLD_SIZE (Open MPI) is set",
        )?;
        let world_size: usize = number(world_name, &world, "a world size (1, 2, ...)")?;
        if world_size == 0 {
            return Err(env_error(format!(
                "{world_name}=`{world}` is not a world size (1, 2, ...)"
            )));
        }
        if world_size > MAX_WORLD_SIZE {
            return Err(env_error(format!(
                "{world_name}=`{world}` is over the largest world size, {MAX_WORLD_SIZE} \
                 (NCCL's nranks is a C int)"
            )));
        }
        if rank >= world_size {
            return Err(env_error(format!(
                "{rank_name}={rank} is not below {world_name}={world_size}"
            )));
        }
        let local_rank = match local {
            Some((name, value)) => {
                let local: usize = number(name, &value, "a local rank (0, 1, 2, ...)")?;
                if local >= world_size {
                    return Err(env_error(format!(
                        "{name}={local} is not below {world_name}={world_size}"
                    )));
                }
                local
            }
            None => rank,
        };
        let (_, master_addr) = required(
            addr,
            "MASTER_ADDR is not set (torchrun sets it; with mpirun, pass -x MASTER_ADDR=<rank 0's host>)",
        )?;
        let master_addr = master_addr.trim().to_owned();
        if master_addr.is_empty() {
            return Err(env_error("MASTER_ADDR is empty"));
        }
        let master_port = if let Some((name, value)) = port {
            port_number(name, &value)?
        } else {
            let (name, value) = required(
                master_port,
                "MASTER_PORT is not set (torchrun sets it; with mpirun, pass -x MASTER_PORT=<a free port>)",
            )?;
            let port = port_number(name, &value)?;
            if agent_store.is_some_and(|(_, v)| v.trim().eq_ignore_ascii_case("true")) {
                port.checked_add(1).ok_or_else(|| {
                    env_error(format!(
                        "MASTER_PORT={port} is held by torchrun's agent store \
                         (TORCHELASTIC_USE_AGENT_STORE=True) and custack would take the next \
                         port, but there is none: set CUSTACK_RENDEZVOUS_PORT"
                    ))
                })?
            } else {
                port
            }
        };
        let job = Job::new(rank, world_size, local_rank, master_addr, master_port)?;
        match secret {
            None => Ok(job),
            Some((name, value)) => job
                .with_secret(value)
                .map_err(|e| env_error(format!("{name}: {}", e.detail()))),
        }
    }

    /// A job given explicitly: this process is `rank` of `world_size`, `local_rank` on its
    /// host, and rank 0 listens on `master_addr:master_port` (a host name or an IP address).
    ///
    /// Port 0 is accepted only for [`Job::listen`] on rank 0 (the system picks a free port,
    /// which [`RankZero::local_addr`] reports); [`Job::share`] refuses it.
    ///
    /// The job has no secret: see [`Job::with_secret`].
    ///
    /// # Errors
    ///
    /// [`ErrorKind::LaunchEnvironment`] when `world_size` is 0 or over [`MAX_WORLD_SIZE`]
    /// (`i32::MAX`: NCCL's `nranks` is a C `int`), `rank` or `local_rank` is not below it, or
    /// `master_addr` is empty. Nothing is allocated per rank, here or later.
    ///
    /// ```
    /// use custack_rendezvous::{ErrorKind, Job};
    ///
    /// let e = Job::new(0, usize::MAX, 0, "10.0.0.1", 29500).unwrap_err();
    /// assert_eq!(e.kind(), ErrorKind::LaunchEnvironment);
    /// assert!(e.detail().contains("over the largest world size, 2147483647"));
    /// ```
    ///
    /// [`RankZero::local_addr`]: crate::RankZero::local_addr
    /// [`ErrorKind::LaunchEnvironment`]: crate::ErrorKind::LaunchEnvironment
    pub fn new(
        rank: usize,
        world_size: usize,
        local_rank: usize,
        master_addr: impl Into<String>,
        master_port: u16,
    ) -> Result<Job> {
        let master_addr = master_addr.into();
        if world_size == 0 {
            return Err(env_error("a world size of 0"));
        }
        if world_size > MAX_WORLD_SIZE {
            return Err(env_error(format!(
                "a world size of {world_size}, over the largest world size, {MAX_WORLD_SIZE} \
                 (NCCL's nranks is a C int)"
            )));
        }
        if rank >= world_size {
            return Err(env_error(format!(
                "rank {rank} is not below the world size {world_size}"
            )));
        }
        if local_rank >= world_size {
            return Err(env_error(format!(
                "local rank {local_rank} is not below the world size {world_size}"
            )));
        }
        if master_addr.trim().is_empty() {
            return Err(env_error("the master address is empty"));
        }
        Ok(Job {
            rank,
            world_size,
            local_rank,
            master_addr,
            master_port,
            secret: None,
        })
    }

    /// This job with a shared secret, which every rank of the job must carry alike: rank 0
    /// then refuses a hello that does not present it (no secret, or another one) as a
    /// stranger's, which neither counts as a rank, nor takes a rank's place, nor receives the
    /// bytes; the stranger is told it was refused. [`Job::from_env`] takes the secret from
    /// `CUSTACK_RENDEZVOUS_SECRET` ([`SECRET_VAR`]).
    ///
    /// The secret travels in the clear, in each rank's hello, and so do the bytes
    /// [`Job::share`] carries (NCCL's unique id): it keeps strangers on a trusted network (a
    /// port scanner, another job's rank, a misdirected process) from joining the job, not an
    /// eavesdropper from reading it, and it proves the ranks to rank 0, not rank 0 to the ranks.
    /// Rank 0 compares it in time that depends only on its length. Without a secret, any
    /// process that reaches rank 0's port can join: the rendezvous is then for a trusted
    /// network only.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::LaunchEnvironment`] when `secret` is empty or over [`MAX_SECRET_LEN`]
    /// bytes.
    ///
    /// # Examples
    ///
    /// ```
    /// use custack_rendezvous::Job;
    ///
    /// let job = Job::new(1, 4, 1, "10.0.0.1", 29500)?.with_secret("a per-job random string")?;
    /// assert!(job.has_secret());
    /// assert!(!format!("{job:?}").contains("random"));
    /// # Ok::<(), custack_rendezvous::Error>(())
    /// ```
    ///
    /// [`ErrorKind::LaunchEnvironment`]: crate::ErrorKind::LaunchEnvironment
    pub fn with_secret(mut self, secret: impl AsRef<[u8]>) -> Result<Job> {
        let secret = secret.as_ref();
        if secret.is_empty() {
            return Err(env_error(
                "an empty secret (leave it unset for no secret, on a trusted network only)",
            ));
        }
        if secret.len() > MAX_SECRET_LEN {
            return Err(env_error(format!(
                "a secret of {} bytes, over the rendezvous's {MAX_SECRET_LEN} bytes",
                secret.len()
            )));
        }
        self.secret = Some(secret.into());
        Ok(self)
    }

    /// Whether the job carries a shared secret ([`Job::with_secret`]).
    pub fn has_secret(&self) -> bool {
        self.secret.is_some()
    }

    /// The job's secret, if it carries one.
    pub(crate) fn secret(&self) -> Option<&[u8]> {
        self.secret.as_deref()
    }

    /// The job's secret, empty when it carries none (as a hello carries it).
    pub(crate) fn secret_bytes(&self) -> &[u8] {
        self.secret.as_deref().unwrap_or_default()
    }

    /// This process's rank, `0..world_size`.
    pub fn rank(&self) -> usize {
        self.rank
    }
    /// How many processes the job has.
    pub fn world_size(&self) -> usize {
        self.world_size
    }
    /// This process's rank among those of its host: the GPU it usually takes.
    pub fn local_rank(&self) -> usize {
        self.local_rank
    }
    /// Rank 0's host: a name or an IP address.
    pub fn master_addr(&self) -> &str {
        &self.master_addr
    }
    /// The port rank 0 listens on.
    pub fn master_port(&self) -> u16 {
        self.master_port
    }

    /// `host:port`, brackets around an IPv6 address.
    pub(crate) fn endpoint(&self) -> String {
        endpoint(&self.master_addr, self.master_port)
    }
}

fn required(
    found: Option<(&'static str, String)>,
    missing: &str,
) -> Result<(&'static str, String)> {
    found.ok_or_else(|| env_error(missing))
}

fn number<T: std::str::FromStr>(name: &str, value: &str, what: &str) -> Result<T> {
    value
        .trim()
        .parse()
        .map_err(|_| env_error(format!("{name}=`{value}` is not {what}")))
}

fn port_number(name: &str, value: &str) -> Result<u16> {
    match value.trim().parse::<u16>() {
        Ok(port) if port != 0 => Ok(port),
        _ => Err(env_error(format!(
            "{name}=`{value}` is not a port (1 to 65535)"
        ))),
    }
}
