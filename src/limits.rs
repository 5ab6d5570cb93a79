//! The memory this process may still take (beyond the thesis): the least
//! of three limits, each what is left of it now:
//!
//! - the machine's available memory (`MemAvailable` of `/proc/meminfo`);
//! - the process's address-space limit (`RLIMIT_AS`, `ulimit -v`), less
//!   what the process already maps (`VmSize`);
//! - its control group's memory limit (cgroup v2 `memory.max`, v1
//!   `memory.limit_in_bytes`; the least over the group and the groups
//!   above it), less what the group already uses besides its page cache,
//!   which the kernel reclaims first. A Slurm job's `--mem` and a
//!   container's memory limit are such limits.
//!
//! A limit that cannot be read (another system, no such file) or is not
//! set (`unlimited`, `max`) does not count; `None` when none counts.
//! `pabsim --memory`'s default and `trainset`'s refusal of a training set
//! that cannot fit are computed from it.

use std::path::{Path, PathBuf};

/// The least of the limits above, bytes (`None` where none can be read).
pub fn memory_available() -> Option<u64> {
    [machine_available(), address_space_left(), cgroup_left()].into_iter().flatten().min()
}

/// The value after `key` in a `key value [kB]` text, in the text's unit.
fn field(text: &str, key: &str) -> Option<u64> {
    text.lines().find_map(|l| l.strip_prefix(key))?.split_whitespace().next()?.parse().ok()
}

/// `MemAvailable`, bytes.
pub fn machine_available() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    Some(field(&info, "MemAvailable:")?.saturating_mul(1024))
}

/// `RLIMIT_AS` less what the process maps now, bytes (`None` when there is
/// no limit).
pub fn address_space_left() -> Option<u64> {
    let mut lim = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit writes one rlimit through the valid pointer given.
    if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut lim) } != 0 || lim.rlim_cur == libc::RLIM_INFINITY {
        return None;
    }
    let mapped = std::fs::read_to_string("/proc/self/status").ok().and_then(|s| field(&s, "VmSize:")).unwrap_or(0).saturating_mul(1024);
    Some(lim.rlim_cur.saturating_sub(mapped))
}

/// Limits at or above this are "no limit" (cgroup v1 writes the largest
/// page-aligned `i64` for none).
const NO_LIMIT: u64 = 1 << 60;

/// What the process's control group may still take, bytes: the least over
/// its group and the groups above it of the limit less the group's use
/// besides page cache.
pub fn cgroup_left() -> Option<u64> {
    let own = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let mut least: Option<u64> = None;
    for dir in cgroup_dirs(&own) {
        if let Some(left) = group_left(&dir) {
            least = Some(least.map_or(left, |l| l.min(left)));
        }
    }
    least
}

/// The memory controller's directories of the process's group and of the
/// groups above it, from `/proc/self/cgroup`'s text `own`: cgroup v2 (line
/// `0::/path` under `/sys/fs/cgroup`) and v1 (the `memory` hierarchy under
/// `/sys/fs/cgroup/memory`). Where the group's directory is not there (a
/// container mounts its own group as the root), the root alone.
fn cgroup_dirs(own: &str) -> Vec<PathBuf> {
    let mut out = vec![];
    for line in own.lines() {
        let mut parts = line.splitn(3, ':');
        let (Some(id), Some(controllers), Some(path)) = (parts.next(), parts.next(), parts.next()) else { continue };
        let root = if id == "0" && controllers.is_empty() {
            Path::new("/sys/fs/cgroup")
        } else if controllers.split(',').any(|c| c == "memory") {
            Path::new("/sys/fs/cgroup/memory")
        } else {
            continue;
        };
        let own = root.join(path.trim_start_matches('/'));
        if own.is_dir() && own != root {
            out.extend(own.ancestors().take_while(|d| d.starts_with(root)).map(Path::to_path_buf));
        } else {
            out.push(root.to_path_buf());
        }
    }
    out
}

/// One group's limit less its use besides page cache (v2 files first,
/// then v1's); `None` when it sets no limit.
fn group_left(dir: &Path) -> Option<u64> {
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).ok();
    let number = |name: &str| read(name).and_then(|t| t.trim().parse::<u64>().ok());
    let (limit, usage, cache) = if let Some(max) = read("memory.max") {
        (max.trim().parse::<u64>().ok()?, number("memory.current"), read("memory.stat").and_then(|s| field(&s, "file ")))
    } else {
        let stat = read("memory.stat");
        let cache = stat.as_deref().and_then(|s| field(s, "total_cache ").or_else(|| field(s, "cache ")));
        (number("memory.limit_in_bytes")?, number("memory.usage_in_bytes"), cache)
    };
    if limit >= NO_LIMIT {
        return None;
    }
    let used = usage.unwrap_or(0).saturating_sub(cache.unwrap_or(0));
    Some(limit.saturating_sub(used))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_least_limit_counts() {
        // Whatever this machine sets, the least is no more than each.
        let least = memory_available();
        for l in [machine_available(), address_space_left(), cgroup_left()].into_iter().flatten() {
            assert!(least.unwrap() <= l);
        }
    }

    #[test]
    fn cgroup_lines_name_the_memory_hierarchy() {
        // Groups that are not there on this machine: the roots alone.
        let dirs = cgroup_dirs("0::/no/such/group\n4:memory:/none/here\n3:cpu:/x\n");
        assert_eq!(dirs, [PathBuf::from("/sys/fs/cgroup"), PathBuf::from("/sys/fs/cgroup/memory")]);
        assert!(cgroup_dirs("garbage\n").is_empty());
    }

    #[test]
    fn fields_are_read_after_their_key() {
        assert_eq!(field("MemTotal: 10 kB\nMemAvailable:  2048 kB\n", "MemAvailable:"), Some(2048));
        assert_eq!(field("anon 5\nfile 7\n", "file "), Some(7));
        assert_eq!(field("anon 5\n", "file "), None);
    }
}
