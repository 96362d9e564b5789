//! Runs the built `exporter` and scrapes `/metrics` over HTTP on 127.0.0.1: SP's LINSTOR is a
//! wiremock controller serving cpps-linstor's payload fixtures, SP's GPU host reads the fake
//! NVML library through the real nvml-wrapper (two A5000, XIDs 79 and 13), Franca's Proxmox is a
//! closed port, and SP's Proxmox is fakepve when `CPPS_TEST_FAKEPVE` is set. With
//! `CPPS_TEST_PROMETHEUS`/`CPPS_TEST_PROMTOOL` (set by `cargo xtask test`), a real Prometheus
//! scrapes it, `promtool check metrics` lints what it serves, and `promtool check rules` /
//! `promtool test rules` check and unit-test `examples/alerts/cpps.rules.yml`. Also checks that
//! every expression of the rules uses only metrics the exporter emits.

#[path = "../../cpps-proxmox/tests/common/mod.rs"]
mod pve;

mod common;

use std::collections::BTreeSet;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{Running, free_port, repo, scrape};
use cpps_gpu::test_util::{FakeNvml, fake_nvml_library};
use cpps_http::{HttpClient, Request, RetryPolicy};
use wiremock::MockServer;

/// What Prometheus 2.42 sends when it scrapes (`scrape.acceptHeader` in prometheus
/// `scrape/scrape.go`): OpenMetrics first, the 0.0.4 text as the fallback.
const PROMETHEUS_ACCEPT: &str = "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1";
const OPENMETRICS: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";
const TEXT_004: &str = "text/plain; version=0.0.4; charset=utf-8";

async fn linstor() -> MockServer {
    let server = MockServer::start().await;
    cpps_linstor::test_util::mount_cluster_state(&server, None).await;
    server
}

/// Starts the exporter on `port` for the two-site fixture topology, with `endpoints` (YAML).
fn exporter(dir: &Path, endpoints: &str, port: u16, env: Vec<(String, String)>) -> Running {
    exporter_with(dir, endpoints, port, env, &[])
}

/// [`exporter`] with more arguments.
fn exporter_with(
    dir: &Path,
    endpoints: &str,
    port: u16,
    env: Vec<(String, String)>,
    more: &[&std::ffi::OsStr],
) -> Running {
    let file = dir.join("endpoints.yaml");
    std::fs::write(&file, endpoints).unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_exporter"))
        .arg("--topology")
        .arg(repo("cpps-topology/tests/fixtures/live/two-sites.yaml"))
        .arg("--endpoints")
        .arg(&file)
        .args(["--listen", &format!("127.0.0.1:{port}"), "--interval", "1"])
        .args(more)
        .envs(env)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("exporter runs");
    Running(child)
}

fn franca_closed() -> String {
    format!(
        "  franca:\n    proxmox:\n      url: https://127.0.0.1:{}/\n      token_env: CPPS_TEST_TOKEN\n",
        free_port()
    )
}

fn franca_token() -> (String, String) {
    (
        "CPPS_TEST_TOKEN".to_owned(),
        "root@pam!x=00000000-0000-0000-0000-000000000000".to_owned(),
    )
}

/// The 0.0.4 text exposition: every source's reachability, LINSTOR and DRBD states, the GPUs
/// as dcgm-exporter labels them, the findings by rule, fakepve's series when `with_pve`, and
/// every series well formed with a known name.
fn expect_text_exposition(text: &str, with_pve: bool) {
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
    if with_pve {
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
}

/// What Prometheus asks for is OpenMetrics with the same series; anything but `/metrics` is a
/// 404 and a POST a 405.
async fn expect_openmetrics_and_routes(port: u16) {
    // What Prometheus asks for: OpenMetrics, with the unit of the `_seconds` gauges and the
    // closing `# EOF`, and the same series.
    let om = scrape(port, Some(PROMETHEUS_ACCEPT), Duration::from_secs(5))
        .await
        .expect("the second scrape answers at once");
    assert_eq!(om.content_type, OPENMETRICS);
    assert!(om.text.ends_with("# EOF\n"), "{}", om.text);
    common::assert_has_lines(
        &om.text,
        &[
            "# TYPE cpps_observation_timestamp_seconds gauge",
            "# UNIT cpps_observation_timestamp_seconds seconds",
            r#"cpps_linstor_resource_degraded{site="sp",resource="vm-101-disk-0",pool="ssd-pool"} 1"#,
        ],
    );

    // Anything but /metrics is a 404; a POST is a 405.
    let client = HttpClient::builder(format!("http://127.0.0.1:{port}/").parse().unwrap())
        .retry(RetryPolicy::none())
        .build()
        .unwrap();
    let r = client.execute(Request::get("nope")).await.unwrap();
    assert_eq!(r.status().as_u16(), 404);
    let r = client.execute(Request::post("metrics")).await.unwrap();
    assert_eq!(r.status().as_u16(), 405);
    assert_eq!(
        r.headers().get("allow").and_then(|v| v.to_str().ok()),
        Some("GET, HEAD")
    );
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
    let mut env = vec![franca_token()];
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
    let port = free_port();
    let _exporter = exporter(
        dir.path(),
        &format!("sites:\n{sp}{}", franca_closed()),
        port,
        env,
    );
    let scraped = scrape(port, None, Duration::from_secs(60))
        .await
        .expect("metrics within 60 s");
    // Without an Accept header naming OpenMetrics: the 0.0.4 text.
    assert_eq!(scraped.content_type, TEXT_004);
    expect_text_exposition(&scraped.text, fakepve.is_some());
    expect_openmetrics_and_routes(port).await;
}

#[test]
fn label_values_are_escaped_in_both_expositions() {
    use cpps_topology::live::facts::{Observation, PbsFacts, SiteObservation, Sourced};
    use cpps_topology::live::metrics::{Exposition, Metrics};
    // A site name is whatever the topology says: quotes, backslashes and newlines must come
    // out escaped (OpenMetrics 1.0 ABNF `escaped-string`; the 0.0.4 text format's label
    // values alike), or the scrape cannot be parsed.
    let mut site = SiteObservation::new("a\"b\\c\nd");
    site.pbs = Sourced::Observed(PbsFacts::default());
    let observed = Observation {
        taken_at: 1_780_000_000,
        sites: vec![site],
    };
    let metrics = Metrics::new(&observed, None);
    for exposition in [Exposition::OpenMetrics, Exposition::PrometheusText] {
        let text = metrics.encode(exposition);
        let lines: Vec<&str> = text.lines().collect();
        for line in [
            "cpps_observation_timestamp_seconds 1780000000",
            r#"pbs_up{site="a\"b\\c\nd"} 1"#,
            r#"cpps_up{site="a\"b\\c\nd",source="pbs"} 1"#,
        ] {
            assert!(
                lines.contains(&line),
                "{exposition:?}: no `{line}` in\n{text}"
            );
        }
    }
    assert_eq!(
        Exposition::negotiate(Some(PROMETHEUS_ACCEPT)),
        Exposition::OpenMetrics
    );
    assert_eq!(
        Exposition::negotiate(Some("application/openmetrics-text;q=0,text/plain")),
        Exposition::PrometheusText
    );
    assert_eq!(Exposition::negotiate(None), Exposition::PrometheusText);
}

/// `CPPS_TEST_PROMETHEUS` and `CPPS_TEST_PROMTOOL`, or `None` after printing a skip line.
fn prometheus_tools(test: &str) -> Option<(PathBuf, PathBuf)> {
    match (
        std::env::var_os("CPPS_TEST_PROMETHEUS"),
        std::env::var_os("CPPS_TEST_PROMTOOL"),
    ) {
        (Some(p), Some(t)) => Some((p.into(), t.into())),
        _ => {
            eprintln!(
                "skipping {test}: CPPS_TEST_PROMETHEUS/CPPS_TEST_PROMTOOL not set (run `cargo xtask test`)"
            );
            None
        }
    }
}

/// Runs promtool with `args` and `stdin`; its exit status and everything it printed.
fn promtool(tool: &Path, args: &[&str], stdin: &str) -> (bool, String) {
    let mut child = Command::new(tool)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("promtool runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

/// `GET /api/v1/query?query=…` on Prometheus: the result vector.
async fn query(client: &HttpClient, promql: &str) -> Vec<serde_json::Value> {
    let r = client
        .execute(Request::get("api/v1/query").query("query", promql))
        .await
        .unwrap();
    let v: serde_json::Value = r.json().unwrap();
    assert_eq!(v["status"], "success", "{v}");
    v["data"]["result"].as_array().cloned().unwrap_or_default()
}

/// What `promtool check metrics` says of the exposition `text`: only the camelCase labels of
/// the GPU series, which lint clean without them.
fn expect_promtool_lints(promtool_bin: &Path, text: &str) {
    // `promtool check metrics` lints the text format (prometheus `cmd/promtool/main.go`,
    // CheckMetrics: client_golang `prometheus/testutil/promlint/promlint.go` over expfmt's text
    // parser; exit status 3 on any problem). Its only complaint may be the camelCase label
    // names (`modelName`) that dcgm-exporter puts on its series and that the exporter keeps on
    // its GPU series so that dcgm dashboards and joins work.
    let (ok, out) = promtool(promtool_bin, &["check", "metrics"], text);
    let problems: BTreeSet<String> = out
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect();
    let camel = "label names should be written in 'snake_case' not 'camelCase'";
    assert_eq!(
        problems,
        BTreeSet::from([
            format!("DCGM_FI_DEV_XID_ERRORS {camel}"),
            format!("cpps_gpu_health_status {camel}"),
        ]),
        "promtool check metrics (ok: {ok}):\n{out}\n{text}"
    );
    // Without the GPU series the text lints clean.
    let without_gpus: String = text
        .lines()
        .filter(|l| !l.contains("DCGM_FI_DEV_XID_ERRORS") && !l.contains("cpps_gpu_health_status"))
        .map(|l| format!("{l}\n"))
        .collect();
    let (ok, out) = promtool(promtool_bin, &["check", "metrics"], &without_gpus);
    assert!(ok, "promtool check metrics:\n{out}\n{without_gpus}");
}

/// A Prometheus on a free port of 127.0.0.1 scraping the exporter on `port` every second, its
/// data and log under `dir`: the running process and its port.
fn start_prometheus(prometheus: &Path, dir: &Path, port: u16) -> (Running, u16) {
    let prom_port = free_port();
    let config = dir.join("prometheus.yml");
    std::fs::write(
        &config,
        format!(
            "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nscrape_configs:\n  - job_name: cpps\n    static_configs:\n      - targets: ['127.0.0.1:{port}']\n"
        ),
    )
    .unwrap();
    let log = std::fs::File::create(dir.join("prometheus.log")).unwrap();
    let running = Running(
        Command::new(prometheus)
            .arg(format!("--config.file={}", config.display()))
            .arg(format!("--web.listen-address=127.0.0.1:{prom_port}"))
            .arg(format!(
                "--storage.tsdb.path={}",
                dir.join("tsdb").display()
            ))
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("prometheus runs"),
    );
    (running, prom_port)
}

#[tokio::test]
async fn a_real_prometheus_scrapes_the_exporter() {
    let Some((prometheus, promtool_bin)) =
        prometheus_tools("a_real_prometheus_scrapes_the_exporter")
    else {
        return;
    };
    let controller = linstor().await;
    let nvml = fake_nvml_library(FakeNvml::TwoA5000WithXids).expect("gcc builds the fake NVML");
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let _exporter = exporter(
        dir.path(),
        &format!(
            "sites:\n  sp:\n    linstor:\n      controllers: {}\n    nvml:\n      - host: pve-ippri-31\n        library: {}\n{}",
            controller.uri(),
            nvml.display(),
            franca_closed()
        ),
        port,
        vec![franca_token()],
    );
    let scraped = scrape(port, None, Duration::from_secs(60))
        .await
        .expect("metrics within 60 s");

    expect_promtool_lints(&promtool_bin, &scraped.text);

    let (_prometheus, prom_port) = start_prometheus(&prometheus, dir.path(), port);
    let client = HttpClient::builder(format!("http://127.0.0.1:{prom_port}/").parse().unwrap())
        .retry(RetryPolicy::none())
        .build()
        .unwrap();
    let started = Instant::now();
    let (up, degraded) = loop {
        let ready = client
            .execute(Request::get("-/ready"))
            .await
            .is_ok_and(|r| r.status().as_u16() == 200);
        if ready {
            let up = query(&client, r#"up{job="cpps"}"#).await;
            let degraded = query(
                &client,
                r#"cpps_linstor_resource_degraded{resource="vm-101-disk-0"}"#,
            )
            .await;
            if !up.is_empty() && !degraded.is_empty() {
                break (up, degraded);
            }
        }
        let log = std::fs::read_to_string(dir.path().join("prometheus.log")).unwrap_or_default();
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "Prometheus has no sample of the exporter after 60 s; its log:\n{log}"
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    };
    assert_eq!(up[0]["value"][1], "1", "{up:?}");
    assert_eq!(degraded[0]["value"][1], "1", "{degraded:?}");
    assert_eq!(degraded[0]["metric"]["site"], "sp", "{degraded:?}");
    assert_eq!(degraded[0]["metric"]["pool"], "ssd-pool", "{degraded:?}");
    // Franca's Proxmox is a closed port: reported down, not absent.
    let franca = query(&client, r#"cpps_up{site="franca",source="proxmox"}"#).await;
    assert_eq!(
        franca.first().map(|s| s["value"][1].clone()),
        Some("0".into()),
        "{franca:?}"
    );
    // The scrape was OpenMetrics: only that format carries units, and Prometheus keeps the
    // unit of the timestamp gauge in its metadata (`GET /api/v1/metadata`).
    let r = client
        .execute(
            Request::get("api/v1/metadata").query("metric", "cpps_observation_timestamp_seconds"),
        )
        .await
        .unwrap();
    let meta: serde_json::Value = r.json().unwrap();
    let entry = &meta["data"]["cpps_observation_timestamp_seconds"][0];
    assert_eq!(entry["type"], "gauge", "{meta}");
    assert_eq!(entry["unit"], "seconds", "{meta}");
}

#[test]
fn the_alert_rules_pass_promtool() {
    let Some((_, promtool_bin)) = prometheus_tools("the_alert_rules_pass_promtool") else {
        return;
    };
    // `promtool check rules FILE` or `promtool test rules FILE`, which must succeed: its output.
    let promtool_rules = |verb: &str, file: &Path| {
        let (ok, out) = promtool(&promtool_bin, &[verb, "rules", &file.to_string_lossy()], "");
        assert!(ok, "promtool {verb} rules:\n{out}");
        out
    };
    let rules = repo("examples/alerts/cpps.rules.yml");
    let out = promtool_rules("check", &rules);
    // promtool counts every rule of the file.
    let parsed: serde_json::Value =
        serde_saphyr::from_str(&std::fs::read_to_string(&rules).unwrap()).unwrap();
    let count: usize = parsed["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["rules"].as_array().map_or(0, Vec::len))
        .sum();
    assert!(
        out.contains(&format!("SUCCESS: {count} rules found")),
        "{out}"
    );
    // Each of the five basic alerts fires on a series that should fire it and stays silent on
    // one that should not (examples/alerts/tests/cpps.rules.test.yml says which).
    let out = promtool_rules("test", &repo("examples/alerts/tests/cpps.rules.test.yml"));
    assert!(out.contains("SUCCESS"), "{out}");
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
        "last_over_time",
        "max",
        "min",
        "count",
        "abs",
        "vector",
        "absent",
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

/// `--kernel-log` over a saved `/dev/kmsg` (cpps-gpu/tests/fixtures/kmsg/nvrm-xid.kmsg, lines
/// from NVIDIA/open-gpu-kernel-modules; see its README): the XID history per GPU, XID and
/// class in both expositions (before OpenMetrics' `# EOF`), linted by `promtool check metrics`
/// when `cargo xtask test` provides it; an unreadable log is `cpps_gpu_xid_log_up 0`, never an
/// empty history.
#[tokio::test]
async fn the_exporter_serves_the_xid_history_of_the_kernel_log() {
    let dir = tempfile::tempdir().unwrap();
    let kmsg = repo("cpps-gpu/tests/fixtures/kmsg/nvrm-xid.kmsg");
    let port = free_port();
    let endpoints = format!("sites:\n{}", franca_closed());
    let _exporter = exporter_with(
        dir.path(),
        &endpoints,
        port,
        vec![franca_token()],
        &[
            "--kernel-log".as_ref(),
            kmsg.as_os_str(),
            // No NVML: the history is judged by the log alone, whatever GPU this host has.
            "--nvml-library".as_ref(),
            dir.path().join("no-libnvidia-ml.so").as_os_str(),
        ],
    );
    let text = scrape(port, None, Duration::from_secs(60))
        .await
        .expect("metrics within 60 s")
        .text;
    let expected = [
        "cpps_gpu_xid_log_up 1",
        r#"cpps_gpu_xid_log_lines{pci_bus_id="0000:01:00",xid="94",class="warning"} 2"#,
        r#"cpps_gpu_xid_log_lines{pci_bus_id="0000:41:00",xid="79",class="critical"} 1"#,
        r#"cpps_gpu_xid_log_current_lines{pci_bus_id="0000:41:00",xid="79",class="critical"} 1"#,
        r#"cpps_gpu_xid_log_lines{pci_bus_id="0000:41:00",xid="154",class="warning"} 1"#,
        r#"cpps_gpu_xid_log_last_seconds_since_boot{pci_bus_id="0000:41:00",xid="79",class="critical"} 9.000000"#,
        "cpps_gpu_xid_log_complete 1",
        "cpps_gpu_xid_log_unparsed 1",
        // The topology's own series are still there.
        r#"cpps_up{site="franca",source="proxmox"} 0"#,
    ];
    common::assert_has_lines(&text, &expected);
    let om = scrape(port, Some(PROMETHEUS_ACCEPT), Duration::from_secs(5))
        .await
        .expect("the second scrape answers at once")
        .text;
    common::assert_has_lines(&om, &expected);
    assert!(om.ends_with("# EOF\n"), "{om}");
    assert_eq!(om.matches("# EOF").count(), 1, "{om}");
    if let Some((_, promtool_bin)) =
        prometheus_tools("the_exporter_serves_the_xid_history_of_the_kernel_log (promtool)")
    {
        let (ok, out) = promtool(&promtool_bin, &["check", "metrics"], &text);
        assert!(ok, "promtool check metrics:\n{out}\n{text}");
    }

    let port = free_port();
    let missing = dir.path().join("no-such-kmsg");
    let _unread = exporter_with(
        dir.path(),
        &endpoints,
        port,
        vec![franca_token()],
        &["--kernel-log".as_ref(), missing.as_os_str()],
    );
    let text = scrape(port, None, Duration::from_secs(60))
        .await
        .expect("metrics within 60 s")
        .text;
    common::assert_has_lines(&text, &["cpps_gpu_xid_log_up 0"]);
    assert!(!text.contains("cpps_gpu_xid_log_lines{"), "{text}");
}

/// A GPU reset sets the recovery action back to None without logging XID 154: the adapter's
/// `gpuPostConstruct_IMPL` starts from UNKNOWN and `_gpuRefreshRecoveryActionInLock` logs only
/// `if (oldAction != GPU_RECOVERY_ACTION_UNKNOWN)` (open-gpu-kernel-modules
/// `src/nvidia/src/kernel/gpu/gpu.c`). The exporter reads NVML's current action (field 230,
/// the fake NVML answering 0 for both GPUs of the kmsg fixture's addresses) and serves the
/// history as history, with the action as a gauge; a pending reset keeps it current.
#[tokio::test]
async fn the_exporter_judges_the_xid_history_by_nvmls_current_recovery_action() {
    let dir = tempfile::tempdir().unwrap();
    let kmsg = repo("cpps-gpu/tests/fixtures/kmsg/nvrm-xid.kmsg");
    let endpoints = format!("sites:\n{}", franca_closed());
    for (action, name, current) in [(0, "none", 0), (1, "gpu_reset", 1)] {
        let nvml = fake_nvml_library(FakeNvml::Xid92And154WithRecoveryAction(action))
            .expect("gcc builds the fake NVML");
        let port = free_port();
        let _exporter = exporter_with(
            dir.path(),
            &endpoints,
            port,
            vec![franca_token()],
            &[
                "--kernel-log".as_ref(),
                kmsg.as_os_str(),
                "--nvml-library".as_ref(),
                nvml.as_os_str(),
            ],
        );
        let text = scrape(port, None, Duration::from_secs(60))
            .await
            .expect("metrics within 60 s")
            .text;
        common::assert_has_lines(
            &text,
            &[
                "cpps_gpu_xid_log_up 1",
                r#"cpps_gpu_xid_log_lines{pci_bus_id="0000:41:00",xid="79",class="critical"} 1"#,
                &format!(
                    r#"cpps_gpu_xid_log_current_lines{{pci_bus_id="0000:41:00",xid="79",class="critical"}} {current}"#
                ),
                &format!(
                    r#"cpps_gpu_xid_log_current_lines{{pci_bus_id="0000:01:00",xid="95",class="critical"}} {current}"#
                ),
                &format!(
                    r#"cpps_gpu_recovery_action{{pci_bus_id="0000:01:00",action="{name}"}} {action}"#
                ),
                &format!(
                    r#"cpps_gpu_recovery_action{{pci_bus_id="0000:41:00",action="{name}"}} {action}"#
                ),
            ],
        );
    }
}

/// `examples/alerts/gpu-xid.rules.yml` passes `promtool check rules` and its unit tests
/// (`examples/alerts/tests/gpu-xid.rules.test.yml`), and uses only series the XID history
/// serves.
#[test]
fn the_xid_alert_rules_pass_promtool_and_use_served_metrics() {
    use cpps_gpu::kernel_log::{KernelLog, XidHistory, exposition, exposition_unreadable};
    let rules = repo("examples/alerts/gpu-xid.rules.yml");
    let parsed: serde_json::Value =
        serde_saphyr::from_str(&std::fs::read_to_string(&rules).unwrap()).unwrap();
    let fixture = std::fs::read_to_string(repo("cpps-gpu/tests/fixtures/kmsg/nvrm-xid.kmsg"));
    let log = KernelLog {
        text: fixture.unwrap(),
        records_lost: false,
    };
    let served = exposition(&XidHistory::from_log(&log)) + &exposition_unreadable();
    // The same exporter serves the live metrics too (GPU health, for the per-host rule).
    let live: BTreeSet<&str> = cpps_topology::live::metrics::METRICS
        .iter()
        .map(|(n, _)| *n)
        .collect();
    let mut count = 0;
    for rule in parsed["groups"][0]["rules"].as_array().unwrap() {
        let expr = rule["expr"].as_str().unwrap();
        let used = metric_names(expr);
        assert!(!used.is_empty(), "no metric in `{expr}`");
        for metric in used {
            assert!(
                served.contains(&format!("# TYPE {metric} gauge"))
                    || live.contains(metric.as_str()),
                "`{metric}` is not served (`{expr}`)"
            );
        }
        count += 1;
    }
    assert_eq!(count, 8);
    let Some((_, promtool_bin)) = prometheus_tools("the_xid_alert_rules_pass_promtool") else {
        return;
    };
    let (ok, out) = promtool(
        &promtool_bin,
        &["check", "rules", &rules.to_string_lossy()],
        "",
    );
    assert!(ok && out.contains("SUCCESS: 8 rules found"), "{out}");
    let tests = repo("examples/alerts/tests/gpu-xid.rules.test.yml");
    let (ok, out) = promtool(
        &promtool_bin,
        &["test", "rules", &tests.to_string_lossy()],
        "",
    );
    assert!(ok && out.contains("SUCCESS"), "{out}");
}
