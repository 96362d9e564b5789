//! Tidy checks: the workspace's conventions, enforced as ordinary tests.

use std::path::{Path, PathBuf};
use std::process::Command;

const CRATES: [&str; 11] = [
    "cpps-named-enum",
    "cpps-http",
    "cpps-proxmox-family",
    "cpps-proxmox",
    "cpps-pbs",
    "cpps-linstor",
    "cpps-vyos",
    "cpps-gpu",
    "cpps-topology",
    "examples",
    "xtask",
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace root")
        .to_path_buf()
}

/// Every file under `dir` (recursively) whose name ends with one of `extensions`.
fn files_under(dir: &Path, extensions: &[&str]) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(current) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&current) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if path.is_dir() {
                if name != "target" && !name.starts_with('.') && name != "node_modules" {
                    stack.push(path);
                }
            } else if extensions.iter().any(|ext| name.ends_with(ext)) {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

fn crate_root_file(krate: &str) -> PathBuf {
    let lib = root().join(krate).join("src/lib.rs");
    if lib.exists() {
        lib
    } else {
        root().join(krate).join("src/main.rs")
    }
}

#[test]
fn every_crate_has_a_crate_doc_and_workspace_lints() {
    for krate in CRATES {
        let manifest = std::fs::read_to_string(root().join(krate).join("Cargo.toml")).unwrap();
        assert!(
            manifest.contains("[lints]\nworkspace = true"),
            "{krate}/Cargo.toml must say `[lints] workspace = true`"
        );
        let source = std::fs::read_to_string(crate_root_file(krate)).unwrap();
        assert!(
            source.trim_start().starts_with("//!"),
            "{krate}: the crate root must start with a `//!` crate doc"
        );
    }
}

#[test]
fn unsafe_code_is_forbidden_outside_the_nvml_crate() {
    for krate in CRATES
        .iter()
        .filter(|k| !["cpps-gpu", "xtask"].contains(*k))
    {
        let source = std::fs::read_to_string(crate_root_file(krate)).unwrap();
        assert!(
            source.contains("#![forbid(unsafe_code)]"),
            "{krate}: the crate root must say #![forbid(unsafe_code)]"
        );
    }
    // xtask ships nothing; its bench link's TAP devices need system calls std does not wrap,
    // in that one module.
    let xtask = std::fs::read_to_string(crate_root_file("xtask")).unwrap();
    assert!(
        xtask.contains("#![deny(unsafe_code)]"),
        "xtask: #![deny(unsafe_code)]"
    );
    for file in files_under(&root().join("xtask").join("src"), &[".rs"]) {
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(
            !text.contains("allow(unsafe_code)") || file.ends_with("bench_link.rs"),
            "{}: unsafe code is for xtask/src/bench_link.rs only",
            file.display()
        );
    }
}

#[test]
fn libraries_have_no_todo_or_dbg() {
    let needles = ["todo!(", "dbg!(", "unimplemented!("];
    for krate in CRATES {
        for file in files_under(&root().join(krate).join("src"), &[".rs"]) {
            let text = std::fs::read_to_string(&file).unwrap();
            for (number, line) in text.lines().enumerate() {
                let code = line.split("//").next().unwrap_or_default();
                for needle in needles {
                    assert!(
                        !code.contains(needle),
                        "{}:{}: `{needle}` in shipped code",
                        file.display(),
                        number + 1
                    );
                }
            }
        }
    }
}

#[test]
fn the_pure_crates_do_not_depend_on_the_http_runtime() {
    for krate in ["cpps-topology", "cpps-gpu"] {
        let output = Command::new(env!("CARGO"))
            .args([
                "tree",
                "--offline",
                "-p",
                krate,
                "-e",
                "normal",
                "--prefix",
                "none",
                "--format",
                "{p}",
            ])
            .current_dir(root())
            .output()
            .expect("cargo tree runs");
        assert!(
            output.status.success(),
            "cargo tree failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let tree = String::from_utf8_lossy(&output.stdout);
        assert!(
            tree.contains(krate),
            "cargo tree printed nothing for {krate}"
        );
        for forbidden in ["cpps-http ", "reqwest "] {
            assert!(
                !tree.lines().any(|line| line.starts_with(forbidden)),
                "{krate} (default features) depends on {}",
                forbidden.trim()
            );
        }
    }
}

/// Fixture folders that hold upstream data verbatim, with why their secret-looking values are
/// not secrets.
const VERBATIM_UPSTREAM: [(&str, &str); 1] = [(
    "cpps-vyos/tests/fixtures/vyos-configs",
    "VyOS's own smoke-test configurations: public test keys and hashes published in vyos-1x",
)];

#[test]
fn no_fixture_holds_a_secret_looking_value() {
    let mut offenders = Vec::new();
    for krate in CRATES {
        let fixtures = root().join(krate).join("tests").join("fixtures");
        for file in files_under(
            &fixtures,
            &[
                ".json",
                ".yaml",
                ".yml",
                ".boot",
                ".commands",
                ".txt",
                ".pem",
                ".toml",
            ],
        ) {
            let relative = file
                .strip_prefix(root())
                .unwrap()
                .to_string_lossy()
                .into_owned();
            if VERBATIM_UPSTREAM
                .iter()
                .any(|(prefix, _)| relative.starts_with(prefix))
            {
                continue;
            }
            let Ok(text) = std::fs::read_to_string(&file) else {
                continue;
            };
            for (number, line) in text.lines().enumerate() {
                if let Some(why) = secret_looking(line) {
                    offenders.push(format!("{relative}:{}: {why}", number + 1));
                }
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "secret-looking values in fixtures:\n{}",
        offenders.join("\n")
    );
}

/// Why a line looks like it holds a real secret, if it does.
fn secret_looking(line: &str) -> Option<&'static str> {
    if line.contains("-----BEGIN") && line.contains("PRIVATE KEY") {
        return Some("a PEM private key");
    }
    if let Some(rest) = line
        .split("PVEAPIToken=")
        .nth(1)
        .or_else(|| line.split("PBSAPIToken=").nth(1))
    {
        // USER@REALM!TOKENID=SECRET: a UUID-shaped secret is a real-looking token.
        if rest
            .split(['=', ':'])
            .nth(1)
            .is_some_and(|s| s.len() >= 32 && s.chars().filter(|c| *c == '-').count() == 4)
        {
            return Some("an API token with a UUID secret");
        }
    }
    if line.contains("ghp_") || line.contains("glpat-") || line.contains("AKIA") {
        return Some("a cloud or forge access token");
    }
    None
}

#[test]
fn the_secret_detector_recognises_what_it_should() {
    assert!(
        secret_looking(
            "Authorization: PVEAPIToken=root@pam!ci=d6f1c7a0-5e2b-4c3e-9f1a-7b2e8c4d9a10"
        )
        .is_some()
    );
    assert!(secret_looking("-----BEGIN PRIVATE KEY-----").is_some());
    assert!(secret_looking(r#""tokenid": "root@pam!ci""#).is_none());
}

/// A crate's modules as paths (`k8s::nodes`, `health`), each with the modules its code names
/// through `crate::…` or `super::…` (comments ignored; a name resolves to the longest module
/// path it starts with).
fn module_graph(
    src: &Path,
) -> std::collections::BTreeMap<String, std::collections::BTreeSet<String>> {
    use std::collections::{BTreeMap, BTreeSet};
    let files = files_under(src, &[".rs"]);
    let module_of = |file: &Path| -> String {
        let rel = file
            .strip_prefix(src)
            .expect("under src")
            .with_extension("");
        let mut parts: Vec<String> = rel
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect();
        if matches!(
            parts.last().map(String::as_str),
            Some("mod" | "lib" | "main")
        ) {
            parts.pop();
        }
        parts.join("::")
    };
    let modules: BTreeSet<String> = files.iter().map(|f| module_of(f)).collect();
    let resolve = |path: &[&str]| -> Option<String> {
        (1..=path.len())
            .rev()
            .map(|n| path[..n].join("::"))
            .find(|m| modules.contains(m))
    };
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let from = module_of(file);
        let parent: Vec<&str> = from.split("::").filter(|p| !p.is_empty()).collect();
        // A mod.rs's `super` is its directory's parent; a file's is its directory.
        let base: Vec<&str> = parent[..parent.len().saturating_sub(1)].to_vec();
        let text = std::fs::read_to_string(file).expect("readable source");
        let deps = graph.entry(from.clone()).or_default();
        // Inside an inline `mod name { … }` (`mod tests`, `mod __private`), `super` is this
        // file's own module: the brace depth at which each inline module opened.
        let (mut depth, mut inline): (i64, Vec<i64>) = (0, Vec::new());
        for line in text.lines() {
            let code = line.split("//").next().unwrap_or("");
            let trimmed = code.trim_start();
            let opens_mod = ["mod ", "pub mod ", "pub(crate) mod "]
                .iter()
                .any(|p| trimmed.starts_with(p))
                && code.contains('{');
            if opens_mod {
                inline.push(depth);
            }
            depth += code.matches('{').count() as i64 - code.matches('}').count() as i64;
            let super_base = if inline.is_empty() {
                base.clone()
            } else {
                parent.clone()
            };
            if inline.last().is_some_and(|opened| depth <= *opened) {
                inline.pop();
            }
            for (prefix, root) in [("crate::", Vec::new()), ("super::", super_base)] {
                for (i, _) in code.match_indices(prefix) {
                    let rest = &code[i + prefix.len()..];
                    // `super::{a, b::c}` names several; `super::a::b` one.
                    let names: Vec<&str> = match rest.strip_prefix('{') {
                        Some(list) => list.split('}').next().unwrap_or("").split(',').collect(),
                        None => vec![rest],
                    };
                    for name in names {
                        let segments: Vec<&str> = name
                            .trim()
                            .split("::")
                            .map(|s| {
                                s.trim_matches(|c: char| !c.is_ascii_alphanumeric() && c != '_')
                            })
                            .take_while(|s| {
                                !s.is_empty()
                                    && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                            })
                            .collect();
                        let mut path = root.clone();
                        path.extend(segments);
                        if let Some(m) = resolve(&path)
                            && m != from
                            && !m.is_empty()
                        {
                            deps.insert(m);
                        }
                    }
                }
            }
        }
    }
    graph
}

/// Each pair of modules of a crate that name each other (a loop of two, the kind the reviews
/// found: `health` ↔ `policy`), a module and its own submodules apart.
fn module_loops(src: &Path) -> Vec<(String, String)> {
    let graph = module_graph(src);
    let mut loops = Vec::new();
    for (a, deps) in &graph {
        for b in deps {
            // A module and its own submodule share items by design (`mod.rs` re-exports).
            let nested = b.starts_with(&format!("{a}::")) || a.starts_with(&format!("{b}::"));
            if a < b && !nested && graph.get(b).is_some_and(|d| d.contains(a)) {
                loops.push((a.clone(), b.clone()));
            }
        }
    }
    loops
}

#[test]
fn no_two_modules_of_a_crate_import_each_other() {
    for krate in CRATES {
        let loops = module_loops(&root().join(krate).join("src"));
        assert!(
            loops.is_empty(),
            "{krate}: modules that import each other: {loops:?}"
        );
    }
}

#[test]
fn the_module_loop_finder_sees_a_loop() {
    let dir = std::env::temp_dir().join(format!("cpps-tidy-loops-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("k8s")).unwrap();
    std::fs::write(
        dir.join("lib.rs"),
        "pub mod health;\npub mod policy;\npub mod k8s;\n",
    )
    .unwrap();
    std::fs::write(dir.join("health.rs"), "use crate::policy::Pin;\n").unwrap();
    std::fs::write(
        dir.join("policy.rs"),
        "use crate::health::Severity; // crate::k8s\n",
    )
    .unwrap();
    std::fs::write(dir.join("k8s/mod.rs"), "pub mod nodes;\npub mod sharing;\n").unwrap();
    std::fs::write(
        dir.join("k8s/nodes.rs"),
        "const X: &str = super::sharing::LABEL;\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("k8s/sharing.rs"),
        "use super::{nodes::is_plugin, other};\n",
    )
    .unwrap();
    let loops = module_loops(&dir);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(
        loops,
        [
            ("health".to_owned(), "policy".to_owned()),
            ("k8s::nodes".to_owned(), "k8s::sharing".to_owned()),
        ]
    );
}

/// The public option and report structs of `text` (one file) that may grow fields but would
/// break a caller's struct literal or pattern when they do: `*Options` and `*Report` structs with
/// named fields that lack `#[non_exhaustive]`, and `*Options` structs with neither `Default` nor
/// a constructor (with `#[non_exhaustive]`, those are how a caller builds one; `crate_text` is the
/// whole crate, where the impl may live).
fn growable_structs_left_open(text: &str, crate_text: &str) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(rest) = line.trim_start().strip_prefix("pub struct ") else {
            continue;
        };
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let grows = name.ends_with("Options") || name.ends_with("Report");
        if !grows || !rest[name.len()..].trim_start().starts_with('{') {
            continue;
        }
        let attributes: Vec<&str> = lines[..i]
            .iter()
            .rev()
            .take_while(|l| {
                let l = l.trim_start();
                l.starts_with("#[") || l.starts_with("///") || l.starts_with("//")
            })
            .copied()
            .collect();
        if !attributes.iter().any(|l| l.contains("#[non_exhaustive]")) {
            found.push(format!("{name}: not #[non_exhaustive]"));
        }
        let derives_default = attributes
            .iter()
            .any(|l| l.contains("derive(") && l.contains("Default"));
        let has_default = derives_default
            || crate_text.contains(&format!("impl Default for {name} "))
            || crate_text.contains(&format!("impl Default for {name}{{"));
        // A struct with a required field has a constructor taking it instead.
        let has_constructor = crate_text
            .split(&format!("impl {name} {{"))
            .skip(1)
            .any(|body| {
                body.lines()
                    .take(30)
                    .any(|l| l.contains("pub fn") && l.contains("-> Self"))
            });
        if name.ends_with("Options") && !has_default && !has_constructor {
            found.push(format!("{name}: neither Default nor a constructor"));
        }
    }
    found
}

/// Issue 37, item 5: option and report structs gain fields between versions; a caller's struct
/// literal must not break when they do.
#[test]
fn option_and_report_structs_may_grow_without_breaking_callers() {
    let mut open = Vec::new();
    for krate in CRATES
        .iter()
        .filter(|k| !matches!(**k, "examples" | "xtask"))
    {
        let files = files_under(&root().join(krate).join("src"), &[".rs"]);
        let crate_text: String = files
            .iter()
            .map(|f| std::fs::read_to_string(f).unwrap())
            .collect();
        for file in &files {
            let text = std::fs::read_to_string(file).unwrap();
            for problem in growable_structs_left_open(&text, &crate_text) {
                open.push(format!("{}: {problem}", file.display()));
            }
        }
    }
    assert!(
        open.is_empty(),
        "structs that would break callers when they grow:\n{}",
        open.join("\n")
    );
}

#[test]
fn the_growable_struct_finder_sees_an_open_struct() {
    let text = "/// Doc.\n#[derive(Debug, Clone)]\npub struct HealthOptions {\n    pub a: u8,\n}\n\
                #[derive(Debug)]\n#[non_exhaustive]\npub struct HealthReport {\n    pub b: u8,\n}\n\
                #[derive(Debug, Default)]\n#[non_exhaustive]\npub struct FineOptions {\n}\n\
                pub struct Plain {\n}\npub struct TupleReport(u8);\n";
    assert_eq!(
        growable_structs_left_open(text, text),
        [
            "HealthOptions: not #[non_exhaustive]",
            "HealthOptions: neither Default nor a constructor"
        ]
    );
}

/// Functions still over the length limit, as (file, name, lines when listed). Each sits in a file
/// another change is rewriting right now, so its length moves; its entry must go once it is 100
/// lines or fewer, so the list never goes stale.
const LONG_FUNCTIONS_ALLOWED: &[(&str, &str, usize)] = &[];

/// Test functions still over the length limit, as (file, name, lines when listed, why). A table
/// of cases may stay long; a scenario that needs a server nobody could run when it was listed
/// waits for a round that can run it. The same staleness rule as `LONG_FUNCTIONS_ALLOWED`.
const LONG_TEST_FUNCTIONS_ALLOWED: &[(&str, &str, usize, &str)] = &[
    (
        "cpps-topology/tests/documents_table.rs",
        "units",
        193,
        "a table: the documents' units, one block per kind of line",
    ),
    (
        "cpps-vyos/tests/common/printers.rs",
        "sp_gw",
        171,
        "a table: SP's gateway configuration tree, one node per line",
    ),
];

/// The longest a function may be, in lines from its `fn` line to its closing brace.
const FUNCTION_LINES_LIMIT: usize = 100;

/// The name of the function whose signature starts `line`, with the line's indent: the item
/// qualifiers (`pub(crate)`, `const`, `async`, `unsafe`, `extern "C"`) are skipped.
fn function_start(line: &str) -> Option<(&str, &str)> {
    let rest = line.trim_start();
    let indent = &line[..line.len() - rest.len()];
    let mut rest = rest;
    loop {
        let before = rest;
        for qualifier in ["pub", "const", "async", "unsafe", "extern \"C\""] {
            if let Some(after) = rest.strip_prefix(qualifier) {
                if qualifier == "pub" && after.starts_with('(') {
                    rest = after.split_once(')').map_or(after, |(_, tail)| tail);
                    rest = rest.trim_start();
                } else if after.starts_with(char::is_whitespace) {
                    rest = after.trim_start();
                }
            }
        }
        if rest == before {
            break;
        }
    }
    let after_fn = rest.strip_prefix("fn")?;
    if !after_fn.starts_with(char::is_whitespace) {
        return None;
    }
    let after_fn = after_fn.trim_start();
    let end = after_fn
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(after_fn.len());
    (end > 0).then(|| (indent, &after_fn[..end]))
}

/// The functions of `text` (one file, rustfmt-formatted) with their length in lines, from the
/// `fn` line to the `}` at the same indent; declarations without a body are skipped. A plain
/// text scan, so the check stays fast and needs no parser.
fn function_lengths(text: &str) -> Vec<(String, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    for (start, line) in lines.iter().enumerate() {
        let Some((indent, name)) = function_start(line) else {
            continue;
        };
        if line.trim_end().ends_with(';') {
            continue;
        }
        if line.contains('{') && line.trim_end().ends_with('}') {
            found.push((name.to_owned(), 1));
            continue;
        }
        for (offset, later) in lines[start + 1..].iter().enumerate() {
            if later.strip_prefix(indent) == Some("}") {
                found.push((name.to_owned(), offset + 2));
                break;
            }
            let at_indent = later
                .strip_prefix(indent)
                .is_some_and(|t| !t.is_empty() && !t.starts_with(char::is_whitespace));
            let continues = ["where", ")", "{", "->", "}"]
                .iter()
                .any(|p| later.trim_start().starts_with(p));
            let item = [
                "fn ",
                "pub",
                "struct ",
                "enum ",
                "impl",
                "trait ",
                "type ",
                "const ",
                "static ",
                "mod ",
                "use ",
                "#[",
                "//",
                "async ",
                "unsafe ",
                "macro_rules!",
            ]
            .iter()
            .any(|p| later.trim_start().starts_with(p));
            if at_indent && !continues && item {
                // Another item at the same indent first: this was a declaration (a trait's). A
                // line of a raw string at the indent (a YAML key at column 0) is no item.
                break;
            }
        }
    }
    found
}

#[test]
fn the_function_length_scanner_counts_from_fn_to_its_brace() {
    let text = "fn one() {}\n\
                pub(crate) async fn two(\n    a: u8,\n) -> u8\nwhere\n    u8: Copy,\n{\n    a\n}\n\
                trait T {\n    fn declared(&self)\n        -> u8;\n    fn body(&self) {\n        \
                let x = 1;\n    }\n}\n\
                impl X {\n    pub const unsafe fn three() {\n        if a {\n        }\n    }\n}\n\
                const fnord: u8 = 1;\n\
                fn yaml() {\n    let y = r\"\nsites:\n  - a\n\";\n}\n";
    let names: Vec<(String, usize)> = function_lengths(text);
    assert_eq!(
        names,
        [
            ("one".to_owned(), 1),
            ("two".to_owned(), 8),
            ("body".to_owned(), 3),
            ("three".to_owned(), 4),
            ("yaml".to_owned(), 6),
        ]
    );
}

#[test]
fn no_function_is_over_a_hundred_lines_unless_listed() {
    let root = root();
    let dirs: Vec<PathBuf> = CRATES.iter().map(|k| root.join(k).join("src")).collect();
    let listed: Vec<(&str, &str)> = LONG_FUNCTIONS_ALLOWED
        .iter()
        .map(|(f, n, _)| (*f, *n))
        .collect();
    let problems = long_function_problems(&root, &dirs, &listed, "LONG_FUNCTIONS_ALLOWED");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn no_test_function_is_over_a_hundred_lines_unless_listed() {
    let root = root();
    let dirs: Vec<PathBuf> = CRATES.iter().map(|k| root.join(k).join("tests")).collect();
    let listed: Vec<(&str, &str)> = LONG_TEST_FUNCTIONS_ALLOWED
        .iter()
        .map(|(f, n, _, _)| (*f, *n))
        .collect();
    let problems = long_function_problems(&root, &dirs, &listed, "LONG_TEST_FUNCTIONS_ALLOWED");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// What is wrong with the lengths of the functions in the `.rs` files under `dirs`, against the
/// allow-list `listed` (file relative to `root`, function name) named `list`: a function over the
/// limit that is not listed, a listed one that is no longer over it, and a listed one that is
/// gone, so the list never goes stale.
fn long_function_problems(
    root: &Path,
    dirs: &[PathBuf],
    listed: &[(&str, &str)],
    list: &str,
) -> Vec<String> {
    let mut problems = Vec::new();
    let mut seen = Vec::new();
    for dir in dirs {
        for file in files_under(dir, &[".rs"]) {
            let rel = file
                .strip_prefix(root)
                .expect("under the root")
                .to_string_lossy()
                .replace('\\', "/");
            let text = std::fs::read_to_string(&file).unwrap();
            for (name, length) in function_lengths(&text) {
                if listed.iter().any(|(f, n)| *f == rel && *n == name) {
                    seen.push((rel.clone(), name.clone()));
                    if length <= FUNCTION_LINES_LIMIT {
                        problems.push(format!(
                            "{rel}: `{name}` is {length} lines now: take it off {list}"
                        ));
                    }
                } else if length > FUNCTION_LINES_LIMIT {
                    problems.push(format!(
                        "{rel}: `{name}` is {length} lines (limit {FUNCTION_LINES_LIMIT}): split it"
                    ));
                }
            }
        }
    }
    for (file, name) in listed {
        if !seen.iter().any(|(f, n)| f == file && n == name) {
            problems.push(format!("{file}: `{name}` is gone: take it off {list}"));
        }
    }
    problems
}
