//! What the bench binaries share.

/// The command line's positional arguments: `cargo bench` adds flags such as `--bench`, which
/// are left out.
pub(crate) fn positional_args() -> Vec<String> {
    std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect()
}
