//! The crate's top-level modules depend on each other without a cycle: `finding` (what rules
//! produce) sits under `rules` and `report`, which both import it, and `rules` does not import
//! `report`. Read from the sources (`crate::module` in code, comments ignored), so a new import
//! that closes a cycle fails here.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src is readable") {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Top-level module → the top-level modules its code names through `crate::`.
fn module_graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let modules: BTreeSet<String> = files
        .iter()
        .filter_map(|f| {
            let rel = f.strip_prefix(&src).ok()?;
            let first = rel.components().next()?.as_os_str().to_str()?;
            Some(first.trim_end_matches(".rs").to_owned())
        })
        .filter(|m| m != "lib")
        .collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let rel = file.strip_prefix(&src).expect("under src");
        let from = rel
            .components()
            .next()
            .and_then(|c| c.as_os_str().to_str())
            .expect("a file name")
            .trim_end_matches(".rs")
            .to_owned();
        if from == "lib" {
            continue;
        }
        let text = std::fs::read_to_string(file).expect("source is readable");
        let deps = graph.entry(from.clone()).or_default();
        for line in text.lines() {
            let code = line.split("//").next().unwrap_or("");
            for (i, _) in code.match_indices("crate::") {
                let name: String = code[i + "crate::".len()..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if name != from && modules.contains(&name) {
                    deps.insert(name);
                }
            }
        }
    }
    graph
}

fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|n| n == node) {
            let mut cycle = path[at..].to_vec();
            cycle.push(node.to_owned());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_owned());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(next, graph, path, done) {
                return Some(cycle);
            }
        }
        path.pop();
        done.insert(node.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|start| visit(start, graph, &mut Vec::new(), &mut done))
}

#[test]
fn the_top_level_modules_form_no_cycle() {
    let graph = module_graph();
    assert!(graph.contains_key("rules") && graph.contains_key("report"));
    assert_eq!(find_cycle(&graph), None, "module graph: {graph:?}");
}

#[test]
fn findings_depend_on_the_model_only_and_rules_do_not_import_reports() {
    let graph = module_graph();
    let finding: Vec<&str> = graph["finding"].iter().map(String::as_str).collect();
    assert_eq!(finding, ["model"]);
    assert!(graph["rules"].contains("finding"));
    assert!(graph["report"].contains("finding"));
    assert!(!graph["rules"].contains("report"), "{:?}", graph["rules"]);
}

#[test]
fn the_cycle_finder_sees_a_cycle() {
    let graph: BTreeMap<String, BTreeSet<String>> =
        [("a", &["b"][..]), ("b", &["c"][..]), ("c", &["a"][..])]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v.iter().map(|s| (*s).to_owned()).collect()))
            .collect();
    assert_eq!(
        find_cycle(&graph),
        Some(vec!["a".into(), "b".into(), "c".into(), "a".into()])
    );
}

/// The live half's system folders (`live/pve/`, …): one room per system.
const LIVE_SYSTEMS: [&str; 6] = ["gpu", "kube", "linstor", "pbs", "pve", "vyos"];

/// The other system folders a file of `folder` names, through `live::X::` or `super::super::X`
/// (comments ignored). The shared vocabulary (`live::facts`, `live::sources`, `live::diff`,
/// `live::rules`) is not a folder, so naming it is fine.
fn folders_named(text: &str, folder: &str) -> Vec<String> {
    let code: String = text
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    LIVE_SYSTEMS
        .iter()
        .filter(|other| **other != folder)
        .filter(|other| {
            code.contains(&format!("live::{other}::"))
                || code.contains(&format!("super::super::{other}"))
        })
        .map(|other| (*other).to_owned())
        .collect()
}

/// Each `(folder, other folder)` where a file of the first names the second.
fn live_folder_imports() -> Vec<(String, String)> {
    let live = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/live");
    let mut found = Vec::new();
    for folder in LIVE_SYSTEMS {
        let mut files = Vec::new();
        rust_files(&live.join(folder), &mut files);
        assert!(!files.is_empty(), "live/{folder}/ has no Rust file");
        for file in files {
            let text = std::fs::read_to_string(&file).expect("source is readable");
            for other in folders_named(&text, folder) {
                found.push((folder.to_owned(), other));
            }
        }
    }
    found
}

#[test]
fn the_live_system_folders_do_not_import_each_other() {
    assert_eq!(live_folder_imports(), Vec::<(String, String)>::new());
}

#[test]
fn a_folder_naming_another_is_seen() {
    let text = "use crate::live::pve::index::PveIndex;\n// live::vyos:: in a comment\n";
    assert_eq!(folders_named(text, "pbs"), ["pve"]);
    assert_eq!(
        folders_named("use super::super::kube::facts;", "gpu"),
        ["kube"]
    );
    assert!(folders_named("use crate::live::facts::PveFacts;", "pbs").is_empty());
}

/// `lib.rs` declares modules and re-exports only, so no module can call back up into code of
/// its own (the loader once called `crate::try_default_topology`, defined there).
#[test]
fn lib_rs_defines_no_code_a_module_could_call_back_into() {
    let lib = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs"))
        .expect("lib.rs is readable");
    let defining: Vec<&str> = lib
        .lines()
        .map(str::trim_start)
        .filter(|l| !l.starts_with("//"))
        .filter(|l| {
            [
                "fn ",
                "pub fn ",
                "const ",
                "pub const ",
                "static ",
                "pub static ",
                "impl ",
            ]
            .iter()
            .any(|k| l.starts_with(k))
        })
        .collect();
    assert!(defining.is_empty(), "{defining:?}");
}
