//! The one rule for options that no chosen algorithm reads. Each parallel
//! algorithm (and each split-point scheme) declares the options it reads
//! ([`crate::policy::Policy::options`],
//! [`crate::policy::Scheme::options`],
//! [`crate::cluster::Policy::reads`]); an option the command
//! line gives that none of the chosen ones reads would change nothing
//! without a word (`--m-b` under scheme A, `--epsilon` with even-split), so
//! it is refused, in one line naming it, what reads it and what the run
//! chose. Not a thesis concept: it keeps the tools honest about their
//! options (`docs/formats.md`).

use super::Error;

/// An algorithm or a scheme as a reader of options.
#[derive(Clone, Debug)]
pub struct Reader {
    /// The option that chooses it: `--algorithm`, `--scheme`.
    pub flag: &'static str,
    /// Its name there: `steal`, `b`.
    pub name: &'static str,
    /// The options it reads.
    pub options: std::borrow::Cow<'static, [&'static str]>,
    /// Whether the command line chose it.
    pub chosen: bool,
}

/// `a`, `a or b`, `a, b or c`.
pub fn or_list(names: &[&str]) -> String {
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => names.join(""),
    }
}

/// Refuses the first option of `given` (each option's name and whether it
/// was given) that none of the chosen `readers` reads: `--m-b applies to
/// --scheme b only (this run: RUN)`, `run` saying what the command line
/// chose. An option no reader declares is not this rule's to judge.
pub fn refuse_unread(given: &[(&'static str, bool)], readers: &[Reader], run: &str) -> Result<(), Error> {
    for &(option, on) in given {
        let by: Vec<&Reader> = readers.iter().filter(|r| r.options.contains(&option)).collect();
        if !on || by.is_empty() || by.iter().any(|r| r.chosen) {
            continue;
        }
        // The readers by the flag that chooses them, in their order.
        let mut groups: Vec<(&str, Vec<&str>)> = vec![];
        for r in by {
            match groups.iter_mut().find(|g| g.0 == r.flag) {
                Some(g) => g.1.push(r.name),
                None => groups.push((r.flag, vec![r.name])),
            }
        }
        let what: Vec<String> = groups.iter().map(|(flag, names)| format!("{flag} {}", or_list(names))).collect();
        return Err(Error::Value(format!("{option} applies to {} only (this run: {run})", what.join(" or "))));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const READERS: [Reader; 4] = [
        Reader { flag: "--algorithm", name: "x", options: std::borrow::Cow::Borrowed(&["--depth", "--width"]), chosen: true },
        Reader { flag: "--algorithm", name: "y", options: std::borrow::Cow::Borrowed(&["--width", "--seed"]), chosen: false },
        Reader { flag: "--algorithm", name: "z", options: std::borrow::Cow::Borrowed(&["--seed"]), chosen: false },
        Reader { flag: "--scheme", name: "s", options: std::borrow::Cow::Borrowed(&["--seed", "--wait"]), chosen: false },
    ];

    /// An option read by a chosen reader passes, whoever else reads it; one
    /// read by none of them is refused naming every reader, grouped by the
    /// flag that chooses them; options not given, or that no reader
    /// declares, pass.
    #[test]
    fn an_option_no_chosen_reader_reads_is_refused() {
        let given = |o: &'static str| [("--depth", false), (o, true)];
        assert!(refuse_unread(&given("--depth"), &READERS, "x").is_ok());
        assert!(refuse_unread(&given("--width"), &READERS, "x").is_ok());
        assert!(refuse_unread(&given("--other"), &READERS, "x").is_ok());
        assert!(refuse_unread(&[("--seed", false)], &READERS, "x").is_ok());
        assert_eq!(
            refuse_unread(&given("--seed"), &READERS, "--algorithm x").unwrap_err().to_string(),
            "--seed applies to --algorithm y or z or --scheme s only (this run: --algorithm x)"
        );
        assert_eq!(refuse_unread(&given("--wait"), &READERS, "x").unwrap_err().to_string(), "--wait applies to --scheme s only (this run: x)");
        assert_eq!(or_list(&["a", "b", "c"]), "a, b or c");
        assert_eq!(or_list(&["a"]), "a");
        assert_eq!(or_list(&[]), "");
    }
}
