//! The node-typing rules of schemes A, B and C (`docs/model.md` §4), one
//! home each: `classify` scores them over a sequential search and the
//! simulator's split schemes (`schemes`) type the nodes they create
//! with the same functions, so the two tools cannot drift apart.
//!
//! - Scheme A, strong YBWC types: [`NodeType::ybwc_child`].
//! - Scheme B, DTS types: [`DtsNode`], a node's typing state, with
//!   [`DtsNode::child`] (the type at creation, from the window) and
//!   [`DtsNode::finished`] (the override after `n` finished moves).
//! - Scheme C, the network: [`nn_node`] over a [`Predictor`].

use crate::nn::Network;
use crate::value::{ROOT_ALPHA, ROOT_BETA, Window};

/// A node type of schemes A and B: Y-PV/Y-CUT/Y-ALL (strong YBWC) or
/// D-PV/D-CUT/D-ALL (DTS).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum NodeType {
    /// Y-PV / D-PV.
    #[default]
    Pv,
    /// Y-CUT / D-CUT: predicts a cut-off.
    Cut,
    /// Y-ALL / D-ALL: predicts that every move is searched.
    All,
}

impl NodeType {
    /// Scheme A: the strong YBWC type of the child at 1-based `index` of a
    /// node of this type. The root is Y-PV; a Y-PV node's first child is
    /// Y-PV, its others Y-CUT; a Y-CUT node's first child is Y-ALL, its
    /// others Y-CUT; every child of a Y-ALL node is Y-CUT.
    #[inline(always)]
    pub fn ybwc_child(self, index: u32) -> NodeType {
        match (self, index) {
            (NodeType::Pv, 1) => NodeType::Pv,
            (NodeType::Pv, _) => NodeType::Cut,
            (NodeType::Cut, 1) => NodeType::All,
            (NodeType::Cut, _) => NodeType::Cut,
            (NodeType::All, _) => NodeType::Cut,
        }
    }
}

/// Scheme B's typing state of one node (`docs/model.md` §4.2), the rule
/// read the way that reproduces the thesis's Table 5.3.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DtsNode {
    /// The type at creation (the one `classify` scores).
    pub ty: NodeType,
    /// The current type (a D-CUT node may turn D-ALL).
    pub cur: NodeType,
    /// Lies below a D-ALL, D-ALL pair: its children's types alternate,
    /// whatever their windows; it is never overridden.
    pub forced: bool,
    /// The parent's current type was D-ALL when this node was created.
    pub parent_all: bool,
}

impl DtsNode {
    /// The root: D-PV.
    pub const ROOT: DtsNode = DtsNode { ty: NodeType::Pv, cur: NodeType::Pv, forced: false, parent_all: false };

    /// The state of a child created under this node with window `w` (a MAX
    /// node if `child_max`): the first half of the rule's loop. The window
    /// compared with the root's gives D-PV (the root's own), D-CUT (bounded
    /// only by the root's bound on the side the child cannot move) or D-ALL;
    /// below a D-ALL, D-ALL pair types alternate instead, and a D-ALL child
    /// of a D-ALL node forms that pair.
    #[inline(always)]
    pub fn child(&self, child_max: bool, w: Window) -> DtsNode {
        let base = if w.is_root() {
            NodeType::Pv
        } else if (!child_max && w.beta == ROOT_BETA) || (child_max && w.alpha == ROOT_ALPHA) {
            NodeType::Cut
        } else {
            NodeType::All
        };
        let (ty, forced) = if base == NodeType::Pv {
            (NodeType::Pv, false)
        } else if self.forced {
            (if self.cur == NodeType::All { NodeType::Cut } else { NodeType::All }, true)
        } else if self.cur == NodeType::All && base == NodeType::All {
            (NodeType::All, true)
        } else {
            (base, false)
        };
        DtsNode { ty, cur: ty, forced, parent_all: self.cur == NodeType::All }
    }

    /// The override, the second half of the loop: once `finished` moves of
    /// a D-CUT node (not forced) have finished without a cut-off and
    /// `finished >= n`, it turns D-ALL; under a D-ALL parent that completes
    /// a pair, so its later children alternate. (A node that was forced at
    /// creation is never overridden; one forced by the override is D-ALL
    /// already.)
    #[inline(always)]
    pub fn finished(&mut self, finished: u32, n: u32) {
        if self.ty == NodeType::Cut && !self.forced && self.cur == NodeType::Cut && finished >= n {
            self.cur = NodeType::All;
            if self.parent_all {
                self.forced = true;
            }
        }
    }
}

/// What scheme C needs from the network of `docs/model.md` §3.2: the
/// root's averaged type and wait and, for a child off the PV path, the
/// network's type (0..100) and wait (moves). A test can stand in a
/// hand-made predictor.
pub trait Predictor: Sync {
    /// The root's averaged type, stored with the network.
    fn root_type(&self) -> f64;
    /// The root's averaged wait, stored with the network.
    fn root_wait(&self) -> f64;
    /// `(type, wait)` for the child at 1-based `index` of a parent with type
    /// `parent_type` (on the PV path if `pv`).
    fn predict(&self, pv: bool, parent_type: f64, index: u32) -> (f64, f64);
}

impl Predictor for Network {
    fn root_type(&self) -> f64 {
        Network::root_type(self)
    }
    fn root_wait(&self) -> f64 {
        Network::root_wait(self)
    }
    #[inline]
    fn predict(&self, pv: bool, parent_type: f64, index: u32) -> (f64, f64) {
        Network::predict(self, pv, parent_type, index)
    }
}

/// A node's type and wait under scheme C.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct NnNode {
    /// On the PV path: N-PV.
    pub pv: bool,
    /// Type, 0..100 (beyond a little: outputs are not clamped).
    pub ty: f64,
    /// Wait, in moves.
    pub wait: f64,
}

/// Scheme C's typing rule (`docs/model.md` §4.3; thesis §5.5: "the neural
/// network output is not used and the node is defined to be an N-PV
/// node"). `parent` is the parent's PV flag and type, `None` at the root.
/// A node on the PV path (the root, its first child, that child's first
/// child, ...) is N-PV and takes the root's averaged type and wait; every
/// other node takes the network's output for (its parent is PV, its
/// parent's type, its index). So the PV path's types stay at the root's (0
/// for every ordering), and the non-PV children of a PV node are asked
/// with exactly the inputs of their training patterns.
#[inline]
pub fn nn_node<P: Predictor + ?Sized>(net: &P, parent: Option<(bool, f64)>, index: u32) -> NnNode {
    match parent {
        Some((pv, pt)) if !(pv && index == 1) => {
            let (ty, wait) = net.predict(pv, pt, index);
            NnNode { pv: false, ty, wait }
        }
        _ => NnNode { pv: true, ty: net.root_type(), wait: net.root_wait() },
    }
}
