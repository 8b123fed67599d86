//! Rank 0's address: `host:port` as the messages show it, and the addresses it stands for,
//! resolved within the call's deadline.

use crate::deadline::remaining;
use crate::error::{Error, ErrorKind, Result, env_error, failed};
use std::net::{IpAddr, SocketAddr, ToSocketAddrs};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The addresses of `host:port`. An IP address is taken as it is; a host name is resolved on
/// a helper thread, waited for until `deadline` (the system resolver has no timeout of its
/// own; a hung resolver leaves the thread behind, not the caller).
pub(crate) fn addresses_of(host: &str, port: u16, deadline: Instant) -> Result<Vec<SocketAddr>> {
    let bare = host.trim().trim_start_matches('[').trim_end_matches(']');
    if let Ok(ip) = bare.parse::<IpAddr>() {
        return Ok(vec![SocketAddr::new(ip, port)]);
    }
    let (tx, rx) = mpsc::channel();
    let name = bare.to_owned();
    let spawned = std::thread::Builder::new()
        .name("custack-resolve".into())
        .spawn(move || {
            let _ = tx.send(
                (name.as_str(), port)
                    .to_socket_addrs()
                    .map(Iterator::collect::<Vec<_>>),
            );
        });
    if let Err(e) = spawned {
        return Err(failed(format!("could not start a thread to resolve `{host}`")).with_source(e));
    }
    let left = remaining(deadline).unwrap_or(Duration::from_millis(1));
    match rx.recv_timeout(left) {
        Ok(Ok(addrs)) if !addrs.is_empty() => Ok(addrs),
        Ok(Ok(_)) => Err(env_error(format!(
            "the master address `{host}` resolves to no address"
        ))),
        Ok(Err(e)) => Err(env_error(format!(
            "the master address `{host}` does not resolve ({})",
            endpoint(host, port)
        ))
        .with_source(e)),
        Err(_) => Err(Error::new(
            ErrorKind::Timeout,
            format!(
                "resolving the master address `{host}` ({}) did not finish in time",
                endpoint(host, port)
            ),
        )),
    }
}

/// `host:port`, brackets around an IPv6 address.
pub(crate) fn endpoint(host: &str, port: u16) -> String {
    if host.contains(':') && !host.starts_with('[') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_bracket_ipv6() {
        assert_eq!(endpoint("::1", 80), "[::1]:80");
        assert_eq!(endpoint("[::1]", 80), "[::1]:80");
        assert_eq!(endpoint("node-0", 29500), "node-0:29500");
    }

    #[test]
    fn ip_addresses_need_no_resolver() {
        let far = Instant::now() + Duration::from_secs(5);
        assert_eq!(
            addresses_of("[::1]", 7, far).unwrap(),
            vec![SocketAddr::from(([0, 0, 0, 0, 0, 0, 0, 1], 7))]
        );
        assert_eq!(
            addresses_of("127.0.0.1", 7, far).unwrap(),
            vec![SocketAddr::from(([127, 0, 0, 1], 7))]
        );
    }
}
