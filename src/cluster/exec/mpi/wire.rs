//! Messages on the wire (`docs/model.md` §9.8): a [`Msg`] in postcard's
//! compact binary format (serde; variable-length integers), so that a
//! message variant added to the policies is encoded with no code here.

use crate::cluster::exec::transport::Msg;
use serde::Serialize;
use serde::de::DeserializeOwned;

/// The bytes of `msg`.
pub fn encode<N: Serialize>(msg: &Msg<N>) -> Result<Vec<u8>, postcard::Error> {
    postcard::to_stdvec(msg)
}

/// The message of `bytes` (all of them).
pub fn decode<N: DeserializeOwned>(bytes: &[u8]) -> Result<Msg<N>, postcard::Error> {
    postcard::from_bytes(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::exec::transport::{SharedEntry, Task};
    use crate::value::Window;
    use std::fmt::Debug;

    fn round_trip<N: Serialize + DeserializeOwned + PartialEq + Debug + Clone>(node: N) -> Vec<usize> {
        let w = Window { alpha: -5, beta: 1 << 40 };
        let msgs = [
            Msg::Task(Task { id: 7, node: node.clone(), max: false, ply: 3, depth: 9, window: w }),
            Msg::Result { id: u32::MAX, value: i64::MIN },
            Msg::Stop,
            Msg::Work { job: Task { id: 1, node: node.clone(), max: true, ply: 2, depth: 4, window: w }, pass: 12, sig: vec![0, 3, 65535] },
            Msg::Report { id: 2, depth: 4, window: w, value: -17 },
            Msg::Pass { pass: 3 },
            Msg::Share { entries: vec![SharedEntry { node, ply: 1, depth: 2, value: 3, bound: crate::tt::Bound::Upper, best: 4, origin: 5 }] },
            Msg::Seek { origin: 4095, seen: 12 },
            Msg::Help { origin: 3, id: 1 << 20 },
            Msg::NoWork,
            Msg::Narrow { id: 9, window: w },
        ];
        msgs.iter()
            .map(|m| {
                let b = encode(m).unwrap();
                assert_eq!(&decode::<N>(&b).unwrap(), m);
                // One byte short is an error, never another message.
                assert!(b.len() < 2 || decode::<N>(&b[..b.len() - 1]).is_err() || matches!(m, Msg::Stop | Msg::NoWork));
                b.len()
            })
            .collect()
    }

    #[test]
    fn every_message_of_every_source_round_trips() {
        use crate::game::{TreeSource, chess, othello};
        use crate::tree::{artificial, incremental};
        let inc = incremental::INode { key: u64::MAX, value: -3 };
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
        let bad = postcard::to_stdvec(&Msg::Task(Task { id: 0, node: (1u64, 1u64, true), max: true, ply: 0, depth: 1, window: Window::ROOT })).unwrap();
        assert!(decode::<othello::Position>(&bad).is_err());
    }
}
