//! Runs the built `exporter` and scrapes `/metrics` over HTTP on 127.0.0.1: SP's LINSTOR is a
//! wiremock controller serving cpps-linstor's payload fixtures, SP's GPU host reads the fake
//! NVML library through the real nvml-wrapper (two A5000, XIDs 79 and 13), Franca's Proxmox is a
//! closed port, and SP's Proxmox is fakepve when `CPPS_TEST_FAKEPVE` is set. Also checks that
//! every expression of `examples/alerts/cpps.rules.yml` uses only metrics the exporter emits.

#[path = "../../cpps-proxmox/tests/common/mod.rs"]
mod pve;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use cpps_gpu::test_util::{FakeNvml, fake_nvml_library};
use cpps_http::{HttpClient, Request, RetryPolicy};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(rel)
}

fn fixture(name: &str) -> serde_json::Value {
    let file = repo("cpps-linstor/tests/fixtures").join(name);
    let text = std::fs::read_to_string(&file)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", file.display()));
    serde_json::from_str(&text).unwrap()
}

async fn linstor() -> MockServer {
    let server = MockServer::start().await;
    for (route, file) in [
        ("/v1/nodes", "nodes.json"),
        ("/v1/view/storage-pools", "storage_pools.json"),
        ("/v1/resource-groups", "resource_groups.json"),
        ("/v1/resource-definitions", "resource_definitions.json"),
        ("/v1/view/resources", "resources.json"),
    ] {
        Mock::given(method("GET"))
            .and(path(route))
            .respond_with(ResponseTemplate::new(200).set_body_json(fixture(file)))
            .mount(&server)
            .await;
    }
    server
}

fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

struct Exporter(Child);

impl Drop for Exporter {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Scrapes until `/metrics` answers 200 (the first observation is done), at most 60 s.
async fn scrape(port: u16) -> String {
    let client = HttpClient::builder(format!("http://127.0.0.1:{port}/").parse().unwrap())
        .retry(RetryPolicy::none())
        .build()
        .unwrap();
    let started = Instant::now();
    loop {
        if let Ok(r) = client.execute(Request::get("metrics")).await {
            if r.status().as_u16() == 200 {
                let ct = r
                    .headers()
                    .get("content-type")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("")
                    .to_owned();
                assert_eq!(ct, "text/plain; version=0.0.4; charset=utf-8");
                return r.text();
            }
            assert_eq!(r.status().as_u16(), 503, "{}", r.text());
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no metrics after 60 s"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn scraped_metrics_name_every_subject() {
    let fakepve = pve::fakepve("scraped_metrics_name_every_subject").await;
    let controller = linstor().await;
    let nvml = fake_nvml_library(FakeNvml::TwoA5000WithXids).expect("gcc builds the fake NVML");
    let dir = tempfile::tempdir().unwrap();
    let mut sp = format!(
        "  sp:\n    linstor:\n      controllers: {}\n    nvml:\n      - host: pve-ippri-31\n        library: {}\n",
        controller.uri(),
        nvml.display()
    );
    let mut env = vec![(
        "CPPS_TEST_TOKEN".to_owned(),
        "root@pam!x=00000000-0000-0000-0000-000000000000".to_owned(),
    )];
    if let Some(s) = &fakepve {
        sp.push_str(&format!(
            "    proxmox:\n      url: {}\n      token_env: CPPS_TEST_SP_TOKEN\n      ca_file: {}\n",
            s.pve.url,
            s.pve.ca_file.display()
        ));
        env.push((
            "CPPS_TEST_SP_TOKEN".to_owned(),
            format!("{}={}", s.pve.token_id, s.pve.token_secret),
        ));
    }
    let endpoints = format!(
        "sites:\n{sp}  franca:\n    proxmox:\n      url: https://127.0.0.1:{}/\n      token_env: CPPS_TEST_TOKEN\n",
        free_port()
    );
    let file = dir.path().join("endpoints.yaml");
    std::fs::write(&file, endpoints).unwrap();
    let port = free_port();
    let child = Command::new(env!("CARGO_BIN_EXE_exporter"))
        .arg("--topology")
        .arg(repo("cpps-topology/tests/fixtures/live/two-sites.yaml"))
        .arg("--endpoints")
        .arg(&file)
        .args(["--listen", &format!("127.0.0.1:{port}"), "--interval", "1"])
        .envs(env)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("exporter runs");
    let _guard = Exporter(child);
    let text = scrape(port).await;
    let lines: BTreeSet<&str> = text.lines().collect();
    let has = |line: &str| {
        assert!(lines.contains(line), "missing `{line}` in:\n{text}");
    };
    // Reachability of every source, by site.
    has(r#"cpps_up{site="franca",source="proxmox"} 0"#);
    has(r#"cpps_up{site="sp",source="linstor"} 1"#);
    has(r#"cpps_up{site="sp",source="nvml",id="pve-ippri-31"} 1"#);
    // LINSTOR degraded and DRBD desync, naming the resource and its pool.
    has(
        r#"cpps_linstor_resource_degraded{site="sp",resource="vm-100-disk-0",pool="DfltDisklessStorPool,ssd-pool"} 0"#,
    );
    has(r#"cpps_linstor_resource_degraded{site="sp",resource="vm-101-disk-0",pool="ssd-pool"} 1"#);
    has(r#"cpps_drbd_resource_desynced{site="sp",resource="vm-102-disk-0",pool="ssd-pool"} 1"#);
    has(r#"cpps_linstor_node_online{site="sp",node="pve-ippri-33"} 0"#);
    // GPUs as dcgm-exporter labels them; the driver is the fake library's.
    let dcgm: Vec<&&str> = lines
        .iter()
        .filter(|l| l.starts_with("DCGM_FI_DEV_XID_ERRORS{"))
        .collect();
    assert_eq!(dcgm.len(), 2, "{text}");
    assert!(dcgm.iter().all(|l| l.contains(r#"Hostname="pve-ippri-31""#)
        && l.contains(r#"modelName="NVIDIA RTX A5000""#)
        && l.contains(r#"DCGM_FI_DRIVER_VERSION="550.54.15""#)));
    assert!(
        dcgm.iter().any(|l| l.ends_with(" 13")),
        "the last XID of GPU 1: {dcgm:?}"
    );
    // The audit's findings, counted by site, rule and severity.
    has(r#"cpps_findings{site="franca",rule="STATE-002",severity="error"} 1"#);
    has(r#"cpps_findings{site="sp",rule="LINSTOR-007",severity="error"} 4"#);
    if fakepve.is_some() {
        has("# TYPE pve_up gauge");
        has(r#"pve_up{site="sp",id="node/pve-ippri-31"} 1"#);
        has(r#"pve_up{site="sp",id="qemu/101"} 0"#);
        has(r#"pve_ha_state{site="sp",id="qemu/100",state="started"} 1"#);
        has(
            r#"pve_guest_info{site="sp",id="lxc/200",node="pve-ippri-31",name="dns1",type="lxc"} 1"#,
        );
    }
    // Every series is well formed: `name{labels} value` with a known name and a number.
    let known: BTreeSet<&str> = cpps_topology::live::metrics::METRICS
        .iter()
        .map(|(n, _)| *n)
        .collect();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let name = line.split(['{', ' ']).next().unwrap();
        assert!(known.contains(name), "{line}");
        let value = line.rsplit(' ').next().unwrap();
        assert!(value.parse::<f64>().is_ok(), "{line}");
    }

    // Anything but /metrics is a 404.
    let client = HttpClient::builder(format!("http://127.0.0.1:{port}/").parse().unwrap())
        .retry(RetryPolicy::none())
        .build()
        .unwrap();
    let r = client.execute(Request::get("nope")).await.unwrap();
    assert_eq!(r.status().as_u16(), 404);
}

/// The metric names an alert expression uses: identifiers outside label matchers and strings
/// that are neither PromQL functions, keywords nor numbers.
fn metric_names(expr: &str) -> BTreeSet<String> {
    const NOT_METRICS: &[&str] = &[
        "time",
        "sum",
        "by",
        "on",
        "and",
        "or",
        "unless",
        "without",
        "ignoring",
        "group_left",
        "group_right",
        "rate",
        "avg_over_time",
        "max",
        "min",
        "count",
        "abs",
        "vector",
    ];
    let mut out = BTreeSet::new();
    let mut depth = 0_i32;
    let mut in_string = false;
    let mut word = String::new();
    let mut after_paren_keyword = false;
    let flush = |word: &mut String, out: &mut BTreeSet<String>, label_list: bool| {
        if !word.is_empty()
            && !label_list
            && !word.chars().next().unwrap().is_ascii_digit()
            && !NOT_METRICS.contains(&word.as_str())
        {
            out.insert(word.clone());
        }
        word.clear();
    };
    let chars: Vec<char> = expr.chars().collect();
    for &c in &chars {
        if in_string {
            in_string = c != '"';
            continue;
        }
        if c == '"' {
            in_string = true;
            continue;
        }
        if depth > 0 {
            if c == '}' {
                depth -= 1;
            }
            continue;
        }
        if c.is_ascii_alphanumeric() || c == '_' || c == ':' {
            word.push(c);
            continue;
        }
        // `by (...)` and `on(...)` hold label names, not metrics.
        let keyword = matches!(word.as_str(), "by" | "on" | "without" | "ignoring");
        flush(&mut word, &mut out, after_paren_keyword);
        if keyword {
            after_paren_keyword = true;
        } else if c == ')' {
            after_paren_keyword = false;
        }
        if c == '{' {
            depth += 1;
        }
    }
    flush(&mut word, &mut out, after_paren_keyword);
    out
}

#[test]
fn every_alert_uses_metrics_the_exporter_emits() {
    let text = std::fs::read_to_string(repo("examples/alerts/cpps.rules.yml")).unwrap();
    let rules: serde_json::Value = serde_saphyr::from_str(&text).unwrap();
    let known: BTreeSet<&str> = cpps_topology::live::metrics::METRICS
        .iter()
        .map(|(n, _)| *n)
        .collect();
    let mut alerts = Vec::new();
    for group in rules["groups"].as_array().unwrap() {
        for rule in group["rules"].as_array().unwrap() {
            let name = rule["alert"].as_str().unwrap();
            let expr = rule["expr"].as_str().unwrap();
            let used = metric_names(expr);
            assert!(!used.is_empty(), "{name}: no metric in `{expr}`");
            for metric in &used {
                assert!(
                    known.contains(metric.as_str()),
                    "{name}: `{metric}` is not a metric the exporter emits (`{expr}`)"
                );
            }
            alerts.push(name.to_owned());
        }
    }
    // The five basic alerts of the documents are there.
    for basic in [
        "CppsNodeDown",
        "CppsLinstorDegraded",
        "CppsDrbdDesync",
        "CppsArgoCdOutOfSync",
        "CppsCertificateExpiring",
    ] {
        assert!(alerts.iter().any(|a| a == basic), "{basic} missing");
    }
    // The extractor itself: labels, strings, functions and `on(...)` lists are not metrics.
    assert_eq!(
        metric_names(
            r#"pbs_snapshot_vm_last_verify == 0 and on(vm_id, datastore) (time() - pbs_snapshot_vm_last_timestamp{x="a b"} > 2 * 3600)"#
        ),
        BTreeSet::from([
            "pbs_snapshot_vm_last_verify".to_owned(),
            "pbs_snapshot_vm_last_timestamp".to_owned()
        ])
    );
}
