//! The cluster's algorithms in legends and tables: their names there and
//! their order, both read from the library's registry
//! ([`parab::cluster::ClusterAlgorithm`]), so a new algorithm appears in
//! every section with its label and nothing here changes.

use parab::cluster::{Algorithm, ClusterAlgorithm};
use parab::formats::ClusterRow;

/// The name of algorithm `a` in legends and tables: its label.
pub fn name(a: &str) -> String {
    ClusterAlgorithm::label_of(a)
}

/// The parallel algorithms of some rows, in the registry's order; names
/// outside it (YBWC's other sets of switches, an unknown name) after, by
/// name.
pub fn algorithms(rows: &[&ClusterRow]) -> Vec<String> {
    order(&rows.iter().map(|r| r.algorithm.as_str()).collect::<Vec<_>>())
}

/// The parallel ones of algorithm names `names` (with repeats), in the
/// order of [`algorithms`].
fn order(names: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = ClusterAlgorithm::parallel().iter().map(|a| a.name().to_string()).filter(|a| names.contains(&a.as_str())).collect();
    let mut rest: Vec<String> = names.iter().map(|a| a.to_string()).filter(|a| a != "seq" && !out.contains(a)).collect();
    rest.sort();
    rest.dedup();
    out.extend(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every registered algorithm has a label of its own, and the legends
    /// are those labels, in the registry's order.
    #[test]
    fn legends_come_from_the_registry() {
        let all = ClusterAlgorithm::parallel();
        let labels: std::collections::BTreeSet<String> = all.iter().map(|a| a.label()).collect();
        assert_eq!(labels.len(), all.len(), "two algorithms share a label");
        assert_eq!(name("ybwc-full-no-helpful"), "full YBWC, no helpful");
        assert_eq!(name("fox"), "Fox et al. master/slave");
        assert_eq!(name("nonesuch"), "nonesuch");
        assert_eq!(order(&["seq", "ybwc-full-no-helpful", "fox", "even-split", "fox"]), ["even-split", "fox", "ybwc-full-no-helpful"]);
    }
}
