//! Messages on the wire (`docs/model.md` §9.8): a [`Msg`] in postcard's
//! compact binary format (serde; variable-length integers), so that an
//! algorithm's own messages are encoded with no code here.

use crate::cluster::exec::transport::Msg;
use serde::Serialize;
use serde::de::DeserializeOwned;

/// The bytes of `msg`.
pub fn encode<N: Serialize, A: Serialize>(msg: &Msg<N, A>) -> Result<Vec<u8>, postcard::Error> {
    postcard::to_stdvec(msg)
}

/// The message of `bytes` (all of them).
pub fn decode<N: DeserializeOwned, A: DeserializeOwned>(bytes: &[u8]) -> Result<Msg<N, A>, postcard::Error> {
    postcard::from_bytes(bytes)
}

/// Encodes and decodes every message of `msgs`, checking each comes back
/// equal and that one byte short is an error, never another message: their
/// sizes in bytes (the tests of every algorithm's messages).
#[cfg(test)]
pub(crate) fn round_trips<N, A>(msgs: &[Msg<N, A>]) -> Vec<usize>
where
    N: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug,
    A: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug,
{
    msgs.iter()
        .map(|m| {
            let b = encode(m).unwrap();
            assert_eq!(&decode::<N, A>(&b).unwrap(), m);
            assert!(b.len() < 2 || decode::<N, A>(&b[..b.len() - 1]).is_err(), "{m:?} one byte short decodes");
            b.len()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::exec::transport::{NoOwn, Task};
    use crate::value::Window;
    use serde::Deserialize;
    use std::fmt::Debug;

    /// An algorithm's own messages, as the executor sees them: one with a
    /// task and a vector, one with fields, one unit.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    enum Own<N> {
        Job { job: Task<N>, sig: Vec<u16> },
        Pair { a: u32, b: i64 },
        Unit,
    }

    /// The executor's messages and an algorithm's, with `node` in the
    /// tasks: the sizes of the executor's own.
    fn round_trip<N: Serialize + DeserializeOwned + PartialEq + Debug + Clone>(node: N) -> Vec<usize> {
        let w = Window { alpha: -5, beta: 1 << 40 };
        let job = Task { id: 1, node: node.clone(), max: true, ply: 2, depth: 4, window: w };
        round_trips::<N, Own<N>>(&[
            Msg::Own(Own::Job { job, sig: vec![0, 3, 65535] }),
            Msg::Own(Own::Pair { a: u32::MAX, b: -17 }),
            Msg::Own(Own::Unit),
            Msg::Stop,
        ]);
        round_trips::<N, NoOwn>(&[
            Msg::Task(Task { id: 7, node, max: false, ply: 3, depth: 9, window: w }),
            Msg::Result { id: u32::MAX, value: i64::MIN },
            Msg::Stop,
            Msg::Abort { id: 1 << 30 },
        ])
    }

    #[test]
    fn every_message_of_every_source_round_trips() {
        use crate::game::{TreeSource, chess, othello};
        use crate::tree::{artificial, incremental};
        let inc = incremental::INode { key: u64::MAX, value: -3, error: 7 };
        let sizes = round_trip(inc);
        // A result is 1 (variant) + 5 (u32::MAX) + 10 (i64::MIN) bytes; stop is its variant.
        assert_eq!((sizes[1], sizes[2]), (16, 1));
        round_trip(artificial::Node { seed: 12345, pscore: 9 });
        let p = chess::Position::parse("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").unwrap();
        round_trip(p.clone());
        let mut buf = vec![Default::default(); chess::Chess.slots()];
        let mut moves = chess::Chess.moves(&p, true, &mut buf);
        use crate::game::MoveList;
        let k = moves.next().unwrap();
        round_trip(moves.child(&p, k));
        round_trip(othello::Position::start());
        // A bad board is an error, not a panic.
        let bad =
            postcard::to_stdvec(&Msg::<_, NoOwn>::Task(Task { id: 0, node: (1u64, 1u64, true), max: true, ply: 0, depth: 1, window: Window::ROOT })).unwrap();
        assert!(decode::<othello::Position, NoOwn>(&bad).is_err());
    }
}
