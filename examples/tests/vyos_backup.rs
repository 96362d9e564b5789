//! Runs the built `vyos-backup` binary: against a wiremock router answering as VyOS does
//! (`{"success","data","error"}` in `text/html`, vyos-1x `src/services/api/rest/models.py`), and
//! against a router that accepts connections and never answers, where `--timeout` bounds the
//! whole run.

mod common;

use std::io::Read;
use std::net::TcpListener;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::json;
use wiremock::matchers::{body_partial_json, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

const KEY: &str = "vyos-backup-test-key";

fn vyos_ok(data: serde_json::Value) -> ResponseTemplate {
    ResponseTemplate::new(200)
        .insert_header("content-type", "text/html; charset=utf-8")
        .set_body_string(json!({"success": true, "data": data, "error": null}).to_string())
}

fn backup_cmd(url: &str, out: &std::path::Path, timeout: u64) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_vyos-backup"));
    cmd.args([
        "--out",
        out.to_str().unwrap(),
        "--timeout",
        &timeout.to_string(),
    ])
    .env("VYOS_URL", url)
    .env("VYOS_API_KEY", KEY)
    .env_remove("VYOS_FINGERPRINT")
    .env_remove("CPPS_FINGERPRINT");
    cmd
}

#[test]
fn help_documents_the_timeout_the_variables_and_the_file_modes() {
    let help = common::help_documenting_timeout(env!("CARGO_BIN_EXE_vyos-backup"));
    for needle in [
        "VYOS_URL",
        "VYOS_API_KEY",
        "VYOS_FINGERPRINT",
        "0600",
        "0700",
    ] {
        assert!(help.contains(needle), "--help lacks `{needle}`:\n{help}");
    }
    assert!(!help.contains("CPPS_FINGERPRINT"));
}

#[tokio::test]
async fn a_backup_is_a_saved_file_with_the_router_footer() {
    // `showConfig` `raw` answers the running configuration with a blank first column (vyatta-cfg
    // `src/cnode/cnode-algorithm.cpp`, through `retrieve_op` in vyos-1x
    // `src/services/api/rest/routers.py`); `show system commit file 0` the archived config.boot
    // with its footer (`show_commit_file` in vyos-1x `python/vyos/config_mgmt.py`).
    let server = MockServer::start().await;
    let shown = " system {\n     host-name sp-gw\n     login {\n         user vyos {\n             authentication {\n                 plaintext-password Hunter2\n             }\n         }\n     }\n }\n";
    let footer = "// Warning: Do not remove the following line.\n// vyos-config-version: \"system@27\"\n// Release version: 1.4.0\n";
    Mock::given(method("POST"))
        .and(path("/retrieve"))
        .and(body_partial_json(
            json!({"key": KEY, "op": "showConfig", "configFormat": "raw"}),
        ))
        .respond_with(vyos_ok(json!(shown)))
        .expect(1)
        .mount(&server)
        .await;
    // `show system commit`: `ConfigMgmt.format_log_data` (vyos-1x `python/vyos/config_mgmt.py`)
    // with commit-revisions set, so no "stale" header (`show_commit_log` in
    // `src/op_mode/config_mgmt.py`) and revision 0 is the newest commit.
    Mock::given(method("POST"))
        .and(path("/show"))
        .and(body_partial_json(
            json!({"op": "show", "path": ["system", "commit"]}),
        ))
        .respond_with(vyos_ok(json!(
            "0  2025-01-10 10:00:00  by vyos  via vyos-http-api\n"
        )))
        // Below the `file 0` mock: a partial JSON match takes this path as a prefix of that one.
        .with_priority(10)
        .expect(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path("/show"))
        .and(body_partial_json(
            json!({"op": "show", "path": ["system", "commit", "file", "0"]}),
        ))
        .respond_with(vyos_ok(json!(format!(
            "system {{\n    host-name sp-gw\n}}\n{footer}"
        ))))
        .expect(1)
        .mount(&server)
        .await;
    let dir = tempfile::tempdir().unwrap();
    let url = server.uri();
    let out = tokio::task::spawn_blocking({
        let dir = dir.path().to_owned();
        move || backup_cmd(&url, &dir, 10).output().unwrap()
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("footer: // vyos-config-version: \"system@27\""),
        "{stdout}"
    );
    let boot = stdout
        .lines()
        .find_map(|l| {
            l.strip_prefix("saved ")
                .filter(|p| p.ends_with(".config.boot"))
        })
        .unwrap();
    assert!(
        boot.contains("/127.0.0.1_"),
        "one folder per router: {boot}"
    );
    // Written as `save` writes it (vyos-1x `src/helpers/vyos-save-config.py`; vyos1x-config
    // `src/config_tree.ml` `render_values`: every value quoted), then a blank line and the
    // footer (`python/vyos/component_version.py` `write_string`).
    assert_eq!(
        std::fs::read_to_string(boot).unwrap(),
        format!(
            "system {{\n    host-name \"sp-gw\"\n    login {{\n        user vyos {{\n            authentication {{\n                plaintext-password \"Hunter2\"\n            }}\n        }}\n    }}\n}}\n\n{footer}"
        )
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(boot).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }
    for text in [&stdout, &stderr] {
        assert!(!text.contains(KEY) && !text.contains("Hunter2"), "{text}");
    }
}

/// A router that accepts the connection and never answers: the run ends within `--timeout` plus
/// a margin for starting the process (before, `--timeout 30` waited 60 s: the deadline was twice
/// the timeout and the read was retried).
#[test]
fn timeout_bounds_the_whole_run() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().flatten() {
            let mut s = stream;
            let mut buf = [0u8; 1024];
            let _ = s.set_read_timeout(Some(Duration::from_millis(50)));
            let _ = s.read(&mut buf);
            held.push(s);
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let out = backup_cmd(&format!("http://127.0.0.1:{port}/"), dir.path(), 2)
        .output()
        .unwrap();
    let took = started.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        took < Duration::from_millis(3500),
        "took {took:?}: {stderr}"
    );
    assert!(stderr.contains("vyos-backup:"), "{stderr}");
    assert!(!stderr.contains(KEY), "{stderr}");
}
