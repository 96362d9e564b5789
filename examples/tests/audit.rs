//! Runs the built `audit`: exit codes like `cargo xtask check` (0/1/2), an inline secret in the
//! endpoints file refused with its line and column, both sites cut off reported site by site,
//! and, with `CPPS_TEST_FAKEPVE`, SP fully audited against fakepve while Franca is cut off
//! (JSON and SARIF on stdout, no progress bar outside a terminal).

#[path = "../../cpps-proxmox/tests/common/mod.rs"]
mod pve;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(rel)
}

fn closed_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

fn audit(endpoints: &str, extra: &[&str], env: &[(&str, String)]) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("endpoints.yaml");
    std::fs::write(&file, endpoints).unwrap();
    Command::new(env!("CARGO_BIN_EXE_audit"))
        .arg("--topology")
        .arg(repo("cpps-topology/tests/fixtures/live/two-sites.yaml"))
        .arg("--endpoints")
        .arg(&file)
        .args(extra)
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .env_remove("CI")
        .output()
        .expect("audit runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn findings(o: &Output) -> Vec<(String, String, String)> {
    let v: serde_json::Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", text(&o.stdout)));
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_owned(),
                f["subject"].as_str().unwrap().to_owned(),
                f["message"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn an_inline_secret_is_refused_with_its_place() {
    let o = audit(
        "sites:\n  sp:\n    proxmox:\n      url: https://127.0.0.1:8006/\n      token: root@pam!x=s3cr3t\n",
        &[],
        &[],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stdout.is_empty());
    let err = text(&o.stderr);
    assert!(
        err.contains(":5:14: `sites.sp.proxmox.token` is a secret written inline; name an environment variable with `token_env` or a file with `token_file` instead"),
        "{err}"
    );
    assert!(!err.contains("s3cr3t"), "the secret is never echoed: {err}");
}

#[test]
fn unknown_sites_formats_and_keys_exit_2() {
    let o = audit("sites:\n  mars: {}\n", &[], &[]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        text(&o.stderr),
        "audit: sites.mars: the topology has no site `mars`\n"
    );
    let o = audit("sites: {}\n", &["--format", "junit"], &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("unknown format `junit`"));
    let o = audit("sites:\n  sp:\n    proxmox:\n      uri: x\n", &[], &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("endpoints.yaml:4:"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn both_sites_cut_off_are_each_reported() {
    let endpoints = format!(
        "sites:\n  sp:\n    proxmox:\n      url: https://127.0.0.1:{}/\n      token_env: T\n  franca:\n    proxmox:\n      url: https://127.0.0.1:{}/\n      token_env: T\n",
        closed_port(),
        closed_port()
    );
    let token = (
        "T",
        "root@pam!x=00000000-0000-0000-0000-000000000000".to_owned(),
    );
    let o = audit(
        &endpoints,
        &["--format", "json"],
        std::slice::from_ref(&token),
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    assert!(
        o.stderr.is_empty(),
        "no progress bar with JSON: {}",
        text(&o.stderr)
    );
    let f = findings(&o);
    for site in ["sp", "franca"] {
        let cut: Vec<_> = f
            .iter()
            .filter(|(rule, subject, _)| rule == "STATE-002" && subject == site)
            .collect();
        assert_eq!(cut.len(), 1, "{f:#?}");
        assert!(
            cut[0].2.starts_with(&format!(
                "site {site} cannot be observed through proxmox at https://127.0.0.1:"
            )),
            "{}",
            cut[0].2
        );
    }
    // Nothing is called missing when it could not be seen.
    assert!(
        !f.iter().any(|(_, _, m)| m.contains("do not show it")),
        "{f:#?}"
    );

    // Text: the sources' summary follows the report.
    let o = audit(&endpoints, &[], &[token]);
    assert_eq!(o.status.code(), Some(1));
    let out = text(&o.stdout);
    assert!(
        out.contains("\nsite franca: 0/1 sources answered\n"),
        "{out}"
    );
    assert!(out.contains("\nsite sp: 0/1 sources answered\n"), "{out}");
    assert!(
        out.trim_end()
            .ends_with("evidence: 1 not observed, 11 unknown"),
        "{out}"
    );
}

#[tokio::test]
async fn sp_audited_against_fakepve_while_franca_is_cut_off() {
    let Some(s) = pve::fakepve("sp_audited_against_fakepve_while_franca_is_cut_off").await else {
        return;
    };
    let endpoints = format!(
        "sites:\n  sp:\n    proxmox:\n      url: {}\n      token_file: {}\n      ca_file: {}\n  franca:\n    proxmox:\n      url: https://127.0.0.1:{}/\n      user: root@pam\n      password_env: FRANCA_PASSWORD\n",
        s.pve.url,
        {
            let path =
                std::env::temp_dir().join(format!("cpps-audit-token-{}", std::process::id()));
            std::fs::write(
                &path,
                format!("{}={}\n", s.pve.token_id, s.pve.token_secret),
            )
            .unwrap();
            path.display().to_string()
        },
        s.pve.ca_file.display(),
        closed_port()
    );
    let o = audit(
        &endpoints,
        &["--format", "json"],
        &[("FRANCA_PASSWORD", "secret".to_owned())],
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    let live: Vec<(String, String)> = findings(&o)
        .into_iter()
        .filter(|(rule, _, _)| ["STATE-002", "STATE-003", "PVE-003"].contains(&rule.as_str()))
        .map(|(rule, subject, _)| (rule, subject))
        .collect();
    let pairs: Vec<(&str, &str)> = live.iter().map(|(r, s)| (r.as_str(), s.as_str())).collect();
    assert_eq!(
        pairs,
        [
            ("STATE-002", "franca"),
            ("STATE-002", "ghost"),
            ("PVE-003", "legacy-nfs"),
            ("STATE-002", "sp"),
            ("STATE-003", "legacy-nfs"),
        ]
    );
    let sarif = audit(
        &endpoints,
        &["--format", "sarif"],
        &[("FRANCA_PASSWORD", "secret".to_owned())],
    );
    let v: serde_json::Value = serde_json::from_slice(&sarif.stdout).unwrap();
    let results = v["runs"][0]["results"].as_array().unwrap();
    assert!(results.iter().any(|r| {
        r["ruleId"] == "STATE-002"
            && r["message"]["text"]
                .as_str()
                .unwrap()
                .contains("guest ghost is declared validated")
    }));
}
