//! The program `peer` (C19): peer access and peer copies between two contexts, synchronous and in a
//! stream scope, both directions; access enabled while used, then disabled, where the contexts'
//! devices are peers (a second enabling leaves it as found); refused between two contexts of one
//! device, as on the one-GPU machine and the double.

use crate::common::N;
use custack::{Context, DeviceMemory, Result, Stack, StackTop};

/// Peer access and peer copies between two contexts: B's buffer parked beside A's guard,
/// copied from and to synchronously, and in a stream scope of A's (both directions, B's
/// buffers borrowed by the scope); peer access enabled from A to B while it is used, then
/// disabled, and a second enabling of the same access ("already enabled") leaves it as found,
/// where A's and B's devices are peers; between two contexts of one device the enabling is
/// refused (`PeerAccessUnsupported`) and the copies go without it.
#[allow(
    clippy::many_single_char_names,
    reason = "contexts A and B and their buffers, named as the pattern describes them"
)]
pub(crate) fn peer(a: &Context, b: &Context) -> Result<Vec<u32>> {
    let mut stack = Stack::new()?;
    let (parked_b, mut out_b) = stack.with_pushed(b, |gb| -> Result<_> {
        Ok((
            gb.park(gb.alloc_from(&vec![1u32; N])?),
            gb.park(gb.alloc::<u32>(N)?),
        ))
    })??;
    let guard = stack.push(a)?;
    // Two contexts of one device are not peers: the driver refuses (the one-GPU machine, and the
    // double); between two devices access is enabled, and a second enabling leaves it as found.
    let access = match guard.enable_peer_access(b) {
        Ok(access) => {
            let again = guard.enable_peer_access(b)?; // already enabled: dropping it changes nothing
            drop(again);
            Some(access)
        }
        Err(e)
            if e.kind() == custack::ErrorKind::PeerAccessUnsupported
                && a.device() == b.device() =>
        {
            None
        }
        Err(e) => return Err(e),
    };
    let mut mine = guard.alloc::<u32>(N)?;
    guard.copy_from_peer(&mut mine, &parked_b)?;
    guard.copy_to_peer(&mut out_b, &mine)?;
    let stream = guard.stream()?;
    let mut second = guard.alloc::<u32>(N)?;
    stream.scope(|s| -> Result<()> {
        let mut d = s.bind_mut(&mut second);
        s.copy_from_peer(&mut d, &parked_b)?;
        s.fill_u32(&mut d, 3)?;
        s.copy_to_peer(&mut out_b, &d)
    })??;
    drop(access);
    let mut back = second.to_vec()?;
    back.extend(mine.to_vec()?);
    drop((mine, second, stream));
    guard.pop()?;
    back.extend(stack.with_pushed(b, |gb| -> Result<Vec<u32>> {
        let (x, y) = (gb.attach(parked_b)?, gb.attach(out_b)?);
        let mut v = x.to_vec()?;
        v.extend(y.to_vec()?);
        Ok(v)
    })??);
    Ok(back)
}
