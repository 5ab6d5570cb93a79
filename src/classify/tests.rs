//! Unit tests of `classify`: bad requests, the choice of the best m, scheme A's rules.

use super::*;
use crate::tree::artificial::Model;

#[test]
fn bad_requests_are_typed_errors() {
    let t = [crate::tree::TreeSpec { set: "t".into(), index: 1, seed: 12345, pscore: 1000, model: Model::Exponential, b: 2, wa: 0, wb: 0, depth: 2 }
        .check()
        .unwrap()];
    let run = |cfg: Scoring| classify(&t, &cfg, &crate::progress::Progress::hidden()).map(|_| ()).unwrap_err();
    assert_eq!(run(Scoring::default()), ClassifyError::NoScheme);
    assert_eq!(run(Scoring { b: vec![1, 0], ..Scoring::default() }), ClassifyError::ZeroN);
    assert_eq!(run(Scoring { c: vec![10], ..Scoring::default() }), ClassifyError::NoNetwork);
}

#[test]
fn first_m_is_the_smallest_closed_interval() {
    assert_eq!(NetworkTypes::first_m(50.0, 50), 0);
    assert_eq!(NetworkTypes::first_m(60.0, 50), 10);
    assert_eq!(NetworkTypes::first_m(40.0, 50), 10);
    assert_eq!(NetworkTypes::first_m(60.5, 50), 11);
    assert_eq!(NetworkTypes::first_m(39.99, 50), 11);
    assert_eq!(NetworkTypes::first_m(-2.0, 50), 51);
    assert_eq!(NetworkTypes::first_m(101.0, 50), 51);
    assert_eq!(NetworkTypes::first_m(f64::NAN, 50), 51);
    assert_eq!(NetworkTypes::first_m(0.0, 50), 50);
    for k in 0..2000 {
        let t = -10.0 + k as f64 * 0.0613;
        let m = NetworkTypes::first_m(t, 50);
        for mm in 0..=50 {
            assert_eq!(is_cut(t, mm as f64), mm >= m, "t {t} m {mm}");
        }
    }
}

#[test]
fn scheme_a_rules() {
    use NodeType::*;
    assert_eq!(Pv.ybwc_child(1), Pv);
    assert_eq!(Pv.ybwc_child(2), Cut);
    assert_eq!(Cut.ybwc_child(1), All);
    assert_eq!(Cut.ybwc_child(3), Cut);
    assert_eq!(All.ybwc_child(1), Cut);
    assert_eq!(All.ybwc_child(2), Cut);
}
