//! Hand-worked small trees, classified by every scheme. The tree, its
//! search order and the hand-made predictor are shared with the simulator's
//! scheme tests (`schemes`), which replay them.

use super::*;
use crate::tree::TreeSpec;
use crate::tree::artificial::Model;
use crate::value::{ROOT_ALPHA, ROOT_BETA, Window};
use NodeType::*;

/// The tree of these tests: b = 2, random ordering, depth 4, seed 12345.
/// Its search, as the search reports it (windows at entry; RA, RB the
/// root window; leaves omitted):
///
/// ```text
/// node     kind window       outcome
/// ()       MAX (RA, RB)      PV, searches both
/// (1)      MIN (RA, RB)      PV, searches both, returns 902
/// (1,1)    MAX (RA, RB)      PV, searches both
/// (1,1,1)  MIN (RA, RB)      PV, searches both
/// (1,1,2)  MIN (902, RB)     cut-off at move 2, its last move
/// (1,2)    MAX (RA, 902)     cut-off at move 1
/// (1,2,1)  MIN (RA, 902)     searches both
/// (2)      MIN (902, RB)     searches both, returns 1000
/// (2,1)    MAX (902, RB)     searches both, returns 1000
/// (2,1,1)  MIN (902, RB)     searches both
/// (2,1,2)  MIN (1000, RB)    cut-off at move 1
/// (2,2)    MAX (902, 1000)   cut-off at move 1
/// (2,2,1)  MIN (902, 1000)   searches both
/// ```
pub(crate) fn tree() -> Tree {
    TreeSpec { set: "t".into(), index: 1, seed: 12345, pscore: 1000, model: Model::Exponential, b: 2, wa: 0, wb: 0, depth: 4 }.check().unwrap()
}

/// `(ply, index)` of the tree's internal nodes in the order the search
/// enters them.
pub(crate) const ORDER: [(u32, u32); 13] = [(0, 0), (1, 1), (2, 1), (3, 1), (3, 2), (2, 2), (3, 1), (1, 2), (2, 1), (3, 1), (3, 2), (2, 2), (3, 1)];

fn types(trace: &Trace) -> Vec<NodeType> {
    let t = trace.as_ref().unwrap();
    assert_eq!(t.iter().map(|&(p, i, _)| (p, i)).collect::<Vec<_>>(), ORDER.to_vec());
    t.iter().map(|x| x.2).collect()
}

/// The search itself, so the hand-worked table above is the real one.
#[test]
fn the_tree_searches_as_described() {
    struct Log(Vec<(u32, i64, i64, Option<u32>, u32)>);
    impl Observer for Log {
        fn leave(&mut self, v: &Visit, o: &Outcome) {
            if !v.leaf {
                self.0.push((v.ply, v.window.alpha, v.window.beta, o.cutoff, o.searched));
            }
        }
    }
    let t = tree();
    let mut log = Log(vec![]);
    t.search(&mut log);
    let (ra, rb) = (ROOT_ALPHA, ROOT_BETA);
    // In the order the nodes return.
    let want = vec![
        (3, ra, rb, None, 2),       // (1,1,1)
        (3, 902, rb, Some(2), 2),   // (1,1,2): cut-off at its last move
        (2, ra, rb, None, 2),       // (1,1)
        (3, ra, 902, None, 2),      // (1,2,1)
        (2, ra, 902, Some(1), 1),   // (1,2)
        (1, ra, rb, None, 2),       // (1)
        (3, 902, rb, None, 2),      // (2,1,1)
        (3, 1000, rb, Some(1), 1),  // (2,1,2)
        (2, 902, rb, None, 2),      // (2,1)
        (3, 902, 1000, None, 2),    // (2,2,1)
        (2, 902, 1000, Some(1), 1), // (2,2)
        (1, 902, rb, None, 2),      // (2)
        (0, ra, rb, None, 2),       // root
    ];
    assert_eq!(log.0, want);
}

/// Scheme A: (1,1,2) Y-CUT cuts at its last move (True_CUT); (2) and
/// (2,1,1) are Y-CUT and search everything (False_CUT); the first
/// children of Y-CUT nodes, (1,2,1), (2,1), (2,2,1), are Y-ALL (True_ALL);
/// children of the Y-ALL (2,1) are Y-CUT; (2,2), a second child, is Y-CUT.
#[test]
fn scheme_a_by_hand() {
    let t = tree();
    let mut a = YbwcTypes::new(4);
    a.trace = Some(vec![]);
    t.search(&mut a);
    assert_eq!(types(&a.trace), vec![Pv, Pv, Pv, Pv, Cut, Cut, All, Cut, All, Cut, Cut, Cut, All]);
    assert_eq!(a.counts, PredictionCounts { true_cut: 4, false_cut: 2, true_all: 3, false_all: 0 });
    assert_eq!(a.counts.scored(), 9);
}

/// Scheme B, n = 1, by the rules of `docs/model.md` §4:
/// - (1,1,2) MIN with beta = RB: D-CUT; cuts at its last move: True_CUT.
/// - (1,2) MAX with alpha = RA: D-CUT, True_CUT. (1,2,1) MIN (RA, 902):
///   D-ALL, True_ALL.
/// - (2) MIN (902, RB): D-CUT, searches both: False_CUT. Its first child
///   (2,1), MAX (902, RB), is D-ALL (True_ALL); under it (2,1,1) and
///   (2,1,2), MIN with beta = RB, are D-CUT (False_CUT, True_CUT).
/// - After (2,1) finishes, (2) has searched n = 1 move without a cut-off
///   and turns D-ALL; its second child (2,2), MAX (902, 1000), is D-ALL by
///   its window under a D-ALL parent: the one allowed pair, forced. It
///   cuts off: False_ALL.
/// - (2,2,1) lies below the pair: it ignores its window (D-ALL) and
///   alternates: D-CUT, and searches both: False_CUT.
#[test]
fn scheme_b_n1_by_hand() {
    let t = tree();
    let mut b = DtsTypes::new(1, 4);
    b.trace = Some(vec![]);
    t.search(&mut b);
    assert_eq!(types(&b.trace), vec![Pv, Pv, Pv, Pv, Cut, Cut, All, Cut, All, Cut, Cut, All, Cut]);
    assert_eq!(b.counts, PredictionCounts { true_cut: 3, false_cut: 3, true_all: 2, false_all: 1 });
}

/// Scheme B, n = 2: (2) has finished only one move when it creates (2,2),
/// so it is still D-CUT and (2,2) is D-ALL by its window, not forced. Now
/// (2,2)'s child (2,2,1), D-ALL by its window under a D-ALL parent, forms
/// the pair: D-ALL (True_ALL).
#[test]
fn scheme_b_n2_by_hand() {
    let t = tree();
    let mut b = DtsTypes::new(2, 4);
    b.trace = Some(vec![]);
    t.search(&mut b);
    assert_eq!(types(&b.trace), vec![Pv, Pv, Pv, Pv, Cut, Cut, All, Cut, All, Cut, Cut, All, All]);
    assert_eq!(b.counts, PredictionCounts { true_cut: 3, false_cut: 2, true_all: 3, false_all: 1 });
}

/// The rules one at a time on node states.
#[test]
fn scheme_b_rules_on_states() {
    let w = |alpha, beta| Window { alpha, beta };
    let (ra, rb) = (ROOT_ALPHA, ROOT_BETA);
    let root = DtsNode::ROOT;
    // Windows: the PV path, MIN with the root's beta, MAX with the root's alpha.
    assert_eq!(root.child(false, w(ra, rb)).ty, Pv);
    assert_eq!(root.child(false, w(5, rb)).ty, Cut);
    assert_eq!(root.child(true, w(ra, 5)).ty, Cut);
    assert_eq!(root.child(true, w(5, rb)).ty, All);
    assert_eq!(root.child(false, w(ra, 5)).ty, All);
    // A D-CUT child of a D-ALL parent: not forced, but remembers the parent.
    let all = DtsNode { ty: All, cur: All, ..DtsNode::ROOT };
    let mut c = all.child(false, w(7, rb));
    assert_eq!((c.ty, c.forced, c.parent_all), (Cut, false, true));
    // The override after n = 2 finished moves; it completes a pair, so
    // the children created afterwards alternate regardless of window.
    c.finished(1, 2);
    assert_eq!((c.cur, c.forced), (Cut, false));
    c.finished(2, 2);
    assert_eq!((c.cur, c.forced), (All, true));
    let g = c.child(true, w(ra, 9));
    assert_eq!((g.ty, g.forced), (Cut, true), "forced children alternate: D-CUT under a D-ALL");
    // A forced D-CUT is never overridden, and its children are D-ALL.
    let mut g2 = g;
    for done in 1..=5 {
        g2.finished(done, 1);
    }
    assert_eq!(g2.cur, Cut);
    assert_eq!(g2.child(false, w(3, rb)).ty, All);
    // Without a D-ALL parent, the override does not force.
    let mut d = root.child(false, w(5, rb));
    d.finished(1, 1);
    assert_eq!((d.cur, d.forced), (All, false));
    // ... and the next D-ALL child forms the pair.
    let e = d.child(true, w(5, 9));
    assert_eq!((e.ty, e.forced), (All, true));
    // A D-PV child is never forced, even under a forced parent.
    assert_eq!(g.child(false, w(ra, rb)), DtsNode { ty: Pv, cur: Pv, forced: false, parent_all: false });
}

/// A hand-made predictor, so the types below can be worked by hand:
/// the root's averages are type 0 and wait 2; a PV parent's child j gets
/// 40 + j, any other parent's child j gets 100 - t/2 - j (t the parent's
/// type); waits 1 and 3.
#[derive(Debug)]
pub(crate) struct Hand;
impl Predictor for Hand {
    fn root_type(&self) -> f64 {
        0.0
    }
    fn root_wait(&self) -> f64 {
        2.0
    }
    fn predict(&self, pv: bool, t: f64, j: u32) -> (f64, f64) {
        if pv { (40.0 + j as f64, 1.0) } else { (100.0 - t / 2.0 - j as f64, 3.0) }
    }
}

/// The PV rule by hand: the PV path (), (1), (1,1), (1,1,1) keeps the
/// root's type 0 (the old rule fed the network's output down it: 41,
/// 41, 41); the non-PV children of PV nodes, (1,1,2), (1,2) and (2),
/// get the network's 40 + 2 = 42; below them 100 - t/2 - j:
/// (1,2,1) and (2,1) 100 - 21 - 1 = 78, (2,1,1) 100 - 39 - 1 = 60,
/// (2,1,2) 59, (2,2) 100 - 21 - 2 = 77, (2,2,1) 100 - 38.5 - 1 = 60.5.
/// Against the outcomes of the table above, at m = 10 ([40, 60], closed):
/// CUT and cut off (1,1,2), (1,2), (2,1,2); CUT, searched all (2),
/// (2,1,1); ALL, searched all (1,2,1), (2,1), (2,2,1); ALL, cut off (2,2).
#[test]
fn scheme_c_by_hand() {
    let t = tree();
    let mut c = NetworkTypes::new(&Hand, 50, 4);
    c.trace = Some(vec![]);
    t.search(&mut c);
    let tr = c.trace.clone().unwrap();
    assert_eq!(tr.iter().map(|&(p, i, _)| (p, i)).collect::<Vec<_>>(), ORDER.to_vec());
    let types: Vec<f64> = tr.iter().map(|x| x.2).collect();
    assert_eq!(types, vec![0.0, 0.0, 0.0, 0.0, 42.0, 42.0, 78.0, 42.0, 78.0, 60.0, 59.0, 77.0, 60.5]);
    assert_eq!(c.counts(10), PredictionCounts { true_cut: 3, false_cut: 2, true_all: 3, false_all: 1 });
    // m = 5: nothing is CUT; m = 8: the three 42s; m = 27: all but the 78s; m = 30: all.
    assert_eq!(c.counts(5), PredictionCounts { true_cut: 0, false_cut: 0, true_all: 5, false_all: 4 });
    assert_eq!(c.counts(8), PredictionCounts { true_cut: 2, false_cut: 1, true_all: 4, false_all: 2 });
    assert_eq!(c.counts(27), PredictionCounts { true_cut: 4, false_cut: 3, true_all: 2, false_all: 0 });
    assert_eq!(c.counts(30), PredictionCounts { true_cut: 4, false_cut: 5, true_all: 0, false_all: 0 });
    // The rule itself: N-PV nodes take the root's averages, wait included.
    assert_eq!(nn_node(&Hand, None, 0), NnNode { pv: true, ty: 0.0, wait: 2.0 });
    assert_eq!(nn_node(&Hand, Some((true, 0.0)), 1), NnNode { pv: true, ty: 0.0, wait: 2.0 });
    assert_eq!(nn_node(&Hand, Some((true, 0.0)), 3), NnNode { pv: false, ty: 43.0, wait: 1.0 });
    assert_eq!(nn_node(&Hand, Some((false, 42.0)), 1), NnNode { pv: false, ty: 78.0, wait: 3.0 });
}
