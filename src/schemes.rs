//! Split-point selection schemes of PABSim (thesis §6.2–6.3; `docs/model.md` §5.4, node types from `docs/model.md` §4): A (strong YBWC types,
//! [`YbwcSplit`]), B (DTS types with a confidence value,
//! [`ConfidenceSplit`]) and C (types and waits from the neural network,
//! [`NetworkSplit`]). Each types its nodes with the rule `classify` scores
//! (`crate::classify::node_types`), so the two tools cannot drift apart.
//!
//! The engine knows nothing about the schemes beyond [`SplitScheme`]: a scheme
//! keeps its own per-node data (`Data`), fills it when a node is created,
//! updates it when one of the node's moves finishes, and says whether a
//! valid node is eligible and with what "progress" measure (finished moves,
//! or scheme B's confidence). The preference order shared by all schemes is
//! [`Candidate::better`].

use crate::classify::{DtsNode, NnNode, NodeType, Predictor, nn_node};
use crate::value::Window;

/// What a scheme may look at when it judges a node.
#[derive(Clone, Copy, Debug)]
pub struct View {
    /// Distance from the root.
    pub ply: u32,
    /// On the PV path (root, first child, first child's first child, ...).
    pub pv: bool,
    /// 1-based position among its siblings in search order (0 at the root).
    pub index: u32,
    /// A MAX node.
    pub max: bool,
    /// Moves whose search has finished.
    pub finished: u32,
    /// Moves not yet handed out.
    pub left: u32,
}

/// A way of choosing split points.
pub trait SplitScheme: Sync {
    /// Per-node data.
    type Data: Copy + Default + std::fmt::Debug;
    /// The root's data.
    fn root(&self) -> Self::Data;
    /// The data of a child created at 1-based position `index` of a parent
    /// with view `parent` and data `pd`, with window `window` at creation.
    fn child(&self, parent: &View, pd: &Self::Data, index: u32, child_max: bool, window: Window) -> Self::Data;
    /// One more move of the node has finished (`v.finished` already counts it).
    #[inline(always)]
    fn finished(&self, _v: &View, _d: &mut Self::Data) {}
    /// For a valid node: `Some(progress)` if it is eligible as a split point.
    fn eligible(&self, v: &View, d: &Self::Data) -> Option<i64>;
}

/// A candidate split point, for the shared preference order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// Distance from the root.
    pub ply: u32,
    /// Finished moves (scheme B: confidence), capped at `b / 4`.
    pub progress: i64,
    /// Moves still to hand out.
    pub left: u32,
}

impl Candidate {
    /// The candidate with the shared caps applied.
    #[inline(always)]
    pub fn new(ply: u32, progress: i64, left: u32, b: u32) -> Candidate {
        Candidate { ply, progress: progress.min((b / 4) as i64), left }
    }

    /// `docs/model.md` §5.4: higher in the tree; then more progress (up to b/4);
    /// then more moves to hand out. Equal candidates: the first found wins.
    #[inline(always)]
    pub fn better(&self, o: &Candidate) -> bool {
        (o.ply, self.progress, self.left) > (self.ply, o.progress, o.left)
    }
}

pub use crate::params::DEFAULT_PV_WAIT;

/// Scheme A: YBWC. Eligible once a move has finished; Y-CUT nodes need `m_a`.
#[derive(Clone, Copy, Debug)]
pub struct YbwcSplit {
    /// Finished moves a Y-CUT node needs.
    pub m_a: u32,
    /// Finished moves a Y-PV node needs ([`DEFAULT_PV_WAIT`]; 0 is the
    /// control experiment for scheme C's literal PV rule).
    pub pv_wait: u32,
}

/// Per-node data: the node's strong YBWC type (`docs/model.md` §4.1).
impl SplitScheme for YbwcSplit {
    type Data = NodeType;
    fn root(&self) -> NodeType {
        NodeType::Pv
    }
    #[inline(always)]
    fn child(&self, _p: &View, pd: &NodeType, index: u32, _max: bool, _w: Window) -> NodeType {
        pd.ybwc_child(index)
    }
    #[inline(always)]
    fn eligible(&self, v: &View, d: &NodeType) -> Option<i64> {
        let need = match d {
            NodeType::Cut => self.m_a.max(1),
            NodeType::Pv => self.pv_wait,
            NodeType::All => 1,
        };
        (v.finished >= need).then_some(v.finished as i64)
    }
}

/// Scheme B: DTS types (per-node data: the node's [`DtsNode`], `docs/model.md`
/// §4.2) with a confidence value. A D-CUT node turns D-ALL once `m_b` moves
/// have finished.
#[derive(Clone, Copy, Debug)]
pub struct ConfidenceSplit {
    /// Finished moves after which a D-CUT node becomes D-ALL.
    pub m_b: u32,
    /// Finished moves a D-PV node needs ([`DEFAULT_PV_WAIT`]; 0 is the
    /// control experiment for scheme C's literal PV rule).
    pub pv_wait: u32,
}

impl ConfidenceSplit {
    /// The confidence: finished moves at D-PV and D-ALL nodes; falling with
    /// finished moves at a D-CUT node; counted from the change at a node
    /// that turned D-ALL.
    #[inline(always)]
    pub fn confidence(&self, d: &DtsNode, finished: u32) -> i64 {
        match (d.ty, d.cur) {
            (NodeType::Cut, NodeType::Cut) => -(finished as i64),
            (NodeType::Cut, _) => finished as i64 - self.m_b as i64,
            _ => finished as i64,
        }
    }
}

impl SplitScheme for ConfidenceSplit {
    type Data = DtsNode;
    fn root(&self) -> DtsNode {
        DtsNode::ROOT
    }
    #[inline(always)]
    fn child(&self, _p: &View, pd: &DtsNode, _index: u32, child_max: bool, window: Window) -> DtsNode {
        pd.child(child_max, window)
    }
    #[inline(always)]
    fn finished(&self, v: &View, d: &mut DtsNode) {
        d.finished(v.finished, self.m_b);
    }
    #[inline(always)]
    fn eligible(&self, v: &View, d: &DtsNode) -> Option<i64> {
        // D-ALL needs confidence 1; D-PV needs `pv_wait` finished moves,
        // by default 1: a PV node splits only after its first move, as in
        // DTS and YBWC (our reading, docs/decisions.md).
        let c = self.confidence(d, v.finished);
        let need = if d.cur == NodeType::Pv { self.pv_wait as i64 } else { 1 };
        (d.cur != NodeType::Cut && c >= need).then_some(c)
    }
}

/// Scheme C's per-node data.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct NnData {
    /// Predicted type, 0..100.
    pub ty: f64,
    /// Finished moves needed before the node is eligible.
    pub need: i32,
}

/// Scheme C: the network. N-CUT if the type is within `cut_width` of 50.
pub struct NetworkSplit<'a, P: Predictor + ?Sized> {
    /// The network.
    pub net: &'a P,
    /// The classification width m of §5.5.
    pub cut_width: f64,
    /// Added to the wait at every node.
    pub m_ca: i32,
    /// Added again at N-CUT nodes.
    pub m_cc: i32,
    /// Nodes at this remaining depth or less are never split points (leaves):
    /// the engine passes their ply so the network is not run for them.
    pub leaf_ply: u32,
}

impl<P: Predictor + ?Sized> NetworkSplit<'_, P> {
    /// The data of a node typed by the classifier's rule ([`nn_node`]):
    /// type and wait from the network, or the root's averages at an N-PV
    /// node.
    fn data(&self, n: NnNode) -> NnData {
        let NnNode { pv, ty, wait } = n;
        let cut = !pv && crate::nn::is_cut(ty, self.cut_width);
        // The wait is a number of moves: rounded to the nearest whole move.
        let w = wait.round() as i32;
        // §6.5: "At all N-ALL and N-PV nodes, w + m_Ca branches have to be
        // searched sequentially before the node may become a split-point":
        // no minimum, so with a negative m_Ca a PV node (the root included)
        // may split before its first move has finished (docs/decisions.md).
        let need = w + self.m_ca + if cut { self.m_cc } else { 0 };
        NnData { ty, need }
    }
}

impl<P: Predictor + ?Sized> SplitScheme for NetworkSplit<'_, P> {
    type Data = NnData;
    fn root(&self) -> NnData {
        // N-PV: the root's averaged type and wait, like every PV node.
        self.data(nn_node(self.net, None, 0))
    }
    #[inline]
    fn child(&self, p: &View, pd: &NnData, index: u32, _max: bool, _w: Window) -> NnData {
        if p.ply + 1 >= self.leaf_ply {
            return NnData::default();
        }
        self.data(nn_node(self.net, Some((p.pv, pd.ty)), index))
    }
    #[inline(always)]
    fn eligible(&self, v: &View, d: &NnData) -> Option<i64> {
        (v.finished as i64 >= d.need as i64).then_some(v.finished as i64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::ROOT_BETA;

    #[test]
    fn ybwc_types() {
        use NodeType::*;
        let a = YbwcSplit { m_a: 3, pv_wait: 1 };
        let v = |finished| View { ply: 1, pv: false, index: 2, max: false, finished, left: 5 };
        // The types are the classifier's rule (tested there).
        assert_eq!(a.child(&v(0), &Pv, 2, true, Window::ROOT), Cut);
        assert_eq!(a.eligible(&v(0), &All), None);
        assert_eq!(a.eligible(&v(1), &All), Some(1));
        assert_eq!(a.eligible(&v(2), &Cut), None);
        assert_eq!(a.eligible(&v(3), &Cut), Some(3));
        // A Y-PV node waits for its first move; with pv_wait 0 it does not.
        assert_eq!(a.eligible(&v(0), &Pv), None);
        assert_eq!(a.eligible(&v(1), &Pv), Some(1));
        assert_eq!(YbwcSplit { pv_wait: 0, ..a }.eligible(&v(0), &Pv), Some(0));
        assert_eq!(YbwcSplit { pv_wait: 0, ..a }.eligible(&v(0), &All), None);
    }

    #[test]
    fn dts_types_and_confidence() {
        let b = ConfidenceSplit { m_b: 2, pv_wait: 1 };
        let v = |finished| View { ply: 1, pv: false, index: 2, max: false, finished, left: 9 };
        let w = |alpha, beta| Window { alpha, beta };
        // The types are the classifier's rule (tested there): D-PV on the
        // root's window, D-CUT with the root's beta at a MIN node, then
        // D-ALL, the D-ALL pair, and alternating types below it.
        let root = b.root();
        let pv = b.child(&v(0), &root, 1, false, Window::ROOT);
        let cut = b.child(&v(0), &root, 2, false, w(5, ROOT_BETA));
        let all = b.child(&v(0), &cut, 1, true, w(5, 9));
        let pair = b.child(&v(0), &all, 1, false, w(5, 9));
        let f1 = b.child(&v(0), &pair, 1, true, w(5, 9));
        assert_eq!([pv.ty, cut.ty, all.ty, pair.ty, f1.ty], [NodeType::Pv, NodeType::Cut, NodeType::All, NodeType::All, NodeType::Cut]);
        assert!(f1.forced);
        // Override and confidence with m_b = 2.
        let mut c = cut;
        b.finished(&v(1), &mut c);
        assert_eq!(c.cur, NodeType::Cut);
        assert_eq!(b.confidence(&c, 1), -1);
        assert_eq!(b.eligible(&v(1), &c), None);
        b.finished(&v(2), &mut c);
        assert_eq!(c.cur, NodeType::All);
        assert_eq!(b.eligible(&v(2), &c), None);
        assert_eq!(b.eligible(&v(3), &c), Some(1));
        // A forced D-CUT is never overridden.
        let mut f = f1;
        b.finished(&v(7), &mut f);
        assert_eq!(f.cur, NodeType::Cut);
        // D-PV needs one finished move.
        assert_eq!(b.eligible(&v(0), &pv), None);
        assert_eq!(b.eligible(&v(1), &pv), Some(1));
        // The control for scheme C's literal rule: D-PV at once, nothing else changes.
        let eager = ConfidenceSplit { pv_wait: 0, ..b };
        assert_eq!(eager.eligible(&v(0), &pv), Some(0));
        assert_eq!(eager.eligible(&v(2), &c), None);
        assert_eq!(eager.eligible(&v(0), &all), None);
    }

    #[test]
    fn preference_order() {
        let b = 32;
        let high = Candidate::new(1, 0, 3, b);
        let low = Candidate::new(2, 8, 30, b);
        assert!(high.better(&low) && !low.better(&high));
        // Progress counts only up to b/4 = 8; then moves left decide.
        let p8 = Candidate::new(2, 8, 10, b);
        let p20 = Candidate::new(2, 20, 5, b);
        assert!(p8.better(&p20));
        let p3 = Candidate::new(2, 3, 25, b);
        assert!(p8.better(&p3));
        assert!(!p8.better(&p8));
    }

    struct Fixed;
    impl Predictor for Fixed {
        fn root_type(&self) -> f64 {
            0.0
        }
        fn root_wait(&self) -> f64 {
            1.4
        }
        fn predict(&self, _pv: bool, parent_type: f64, index: u32) -> (f64, f64) {
            if parent_type < 25.0 { (50.0, 1.4) } else { (90.0 - index as f64, 2.6) }
        }
    }

    #[test]
    fn neural_types_and_waits() {
        let c = NetworkSplit { net: &Fixed, cut_width: 10.0, m_ca: -1, m_cc: 3, leaf_ply: 6 };
        let root = c.root();
        let rv = View { ply: 0, pv: true, index: 0, max: true, finished: 0, left: 32 };
        // The root and the PV child: N-PV, with the root's averaged type and
        // wait (the network would say type 50 for the PV child).
        // round(1.4) - 1 = 0, and §6.5 sets no minimum: the root may split
        // before its first move has finished.
        assert_eq!((root.ty, root.need), (0.0, 0));
        let pvc = c.child(&rv, &root, 1, false, Window::ROOT);
        assert_eq!((pvc.ty, pvc.need), (0.0, 0));
        let pv2 = c.child(&View { ply: 1, index: 1, ..rv }, &pvc, 1, true, Window::ROOT);
        assert_eq!((pv2.ty, pv2.need), (0.0, 0));
        assert_eq!(c.eligible(&rv, &root), Some(0));
        // With a more negative m_Ca the need goes below zero: still eligible at once.
        let early = NetworkSplit { m_ca: -5, ..c };
        assert_eq!(early.root().need, -4);
        assert_eq!(early.eligible(&rv, &early.root()), Some(0));
        // The root's wait still counts when it is larger.
        let late = NetworkSplit { m_ca: 2, ..c };
        assert_eq!(late.child(&rv, &late.root(), 1, false, Window::ROOT).need, 3);
        // Second child: type 50, N-CUT: need = 1 - 1 + 3 = 3.
        let cut = c.child(&rv, &root, 2, false, Window::ROOT);
        assert_eq!(cut.need, 3);
        // Its children: type 90 - index, N-ALL: need = round(2.6) - 1 = 2.
        let cv = View { ply: 1, pv: false, index: 2, max: false, finished: 0, left: 3 };
        let all = c.child(&cv, &cut, 1, true, Window::ROOT);
        assert_eq!((all.ty, all.need), (89.0, 2));
        assert_eq!(c.eligible(&View { finished: 1, ..cv }, &all), None);
        assert_eq!(c.eligible(&View { finished: 2, ..cv }, &all), Some(2));
        // At the leaf level no prediction is made.
        let deep = View { ply: 5, ..cv };
        assert_eq!(c.child(&deep, &all, 1, true, Window::ROOT), NnData::default());
    }

    /// Both tools type with the one rule: the simulator's scheme C, replayed
    /// over the nodes of `classify`'s hand-worked search in the order they are
    /// created, gives every node the type `classify` gave it, on a real network
    /// too; its waits are the rule's (root wait 2 at N-PV nodes, network waits
    /// below).
    #[test]
    fn the_simulator_types_scheme_c_as_classify_does() {
        use crate::classify::NetworkTypes;
        use crate::classify::hand::{Hand, ORDER, tree};
        use crate::nn::{HiddenWeights, Network, OutputWeights, TrainedFor, Training};
        use crate::tree::artificial::{Model, Ordering};
        use NetworkSplit as SimC;
        fn replay<P: Predictor + ?Sized>(net: &P) -> (Vec<f64>, Vec<f64>, Vec<i32>) {
            let t = tree();
            let mut c = NetworkTypes::new(net, 50, 4);
            c.trace = Some(vec![]);
            t.search(&mut c);
            let classified: Vec<f64> = c.trace.unwrap().iter().map(|x| x.2).collect();
            // m_Ca = 0, m_Cc = 1, width 10; leaf_ply 4: nodes at ply 3 are
            // still typed (their children are the leaves).
            let sim = SimC { net, cut_width: 10.0, m_ca: 0, m_cc: 1, leaf_ply: 4 };
            let mut path = vec![(View { ply: 0, pv: true, index: 0, max: true, finished: 0, left: 2 }, sim.root())];
            let mut types = vec![path[0].1.ty];
            let mut needs = vec![path[0].1.need];
            for &(ply, index) in &ORDER[1..] {
                path.truncate(ply as usize);
                let (pv, pd) = path[ply as usize - 1];
                let d = sim.child(&pv, &pd, index, ply % 2 == 0, Window::ROOT);
                types.push(d.ty);
                needs.push(d.need);
                path.push((View { ply, pv: pv.pv && index == 1, index, max: ply % 2 == 0, finished: 0, left: 2 }, d));
            }
            (classified, types, needs)
        }
        let (classified, simulated, needs) = replay(&Hand);
        assert_eq!(simulated, classified);
        // N-PV: round(2) + 0 = 2; (1,1,2), (1,2), (2): type 42 is N-CUT,
        // 1 + 0 + 1 = 2; (1,2,1), (2,1): 78 is N-ALL, wait 3; (2,1,1),
        // (2,1,2): N-CUT, 3 + 1 = 4; (2,2): 77, 3; (2,2,1): 60.5, N-ALL, 3.
        assert_eq!(needs, vec![2, 2, 2, 2, 2, 2, 3, 2, 3, 4, 4, 3, 3]);
        let wh = HiddenWeights::from_fn(|r, c| ((r * 3 + c * 5) % 7) as f64 - 3.0);
        let wo = OutputWeights::from_fn(|r, c| ((r * 11 + c * 3) % 5) as f64 / 2.0 - 1.0);
        let tr = Training { rng: "ChaCha8".into(), seed: 0, init: 0.0, iterations: 0, eta: 0.1, shuffle: false, patterns: 0 };
        let net = Network::new(wh, wo, TrainedFor::artificial(Model::Exponential, Ordering { b: 2, wa: 0, wb: 0 }), 30.0, tr).unwrap().with_root_wait(1.5);
        let (classified, simulated, _) = replay(&net);
        assert_eq!(simulated, classified);
        assert_eq!(classified[..4], [30.0; 4]);
        assert_eq!(classified[4], net.predict(true, 30.0, 2).0);
        assert_eq!(classified[10], net.predict(false, classified[8], 2).0);
    }
}
