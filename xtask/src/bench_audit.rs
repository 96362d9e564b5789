//! `cargo xtask bench audit`: the live `audit` (release build) timed whole against two sites
//! of servers on 127.0.0.1, each site with its Proxmox VE (fakepve, `xtask/env/fakepve.sh`, on
//! an estate of `xtask/bench/estate.py`), a PBS and a VyOS router (`xtask/bench/audit_fakes.py
//! serve`: the answers the cpps-topology live tests mount), LINSTOR (Prism on the LINSTOR
//! OpenAPI file, `xtask/env/prism.sh`), the GPU cluster (the real kube-apiserver,
//! `xtask/env/kube-start.sh`, with the Kueue, Argo CD and cert-manager CRDs and two GPU nodes)
//! and the fake NVML library (cpps-gpu's `tests/fake-nvml/fake_nvml.c`, built with gcc).
//!
//! The audit runs at SP, `--near` round-trip time from SP's servers and `--far` from Franca's.
//! By default (`--delay-by segment`, as root) `audit` runs in a network namespace joined to
//! the servers' namespace by a link of two lanes (`bench_link`), one per site, each holding
//! every TCP segment half its site's RTT each way; the servers still listen on 127.0.0.1, and
//! each is reached on its lane's address through a forwarder in the servers' namespace (no
//! delay of its own). fakepve is then pinned by its certificate's fingerprint and the
//! kube-apiserver's certificate is not checked (they name 127.0.0.1 only). With
//! `--delay-by proxy`, or where the link cannot be built, every TCP server is reached through
//! the latency proxy (bench `latency_proxy` of cpps-proxmox, which delays every chunk). The
//! topology is the real one (`cpps-topology/topology/cpps.yaml`).
//!
//! Printed, medians of `--rounds` runs, each run under `audit_fakes.py measure` (`wait4`): the
//! wall time of `audit`, its user+system CPU and peak RSS, the phases of the run
//! (`audit --timings`), when each system answered in the whole audit, and each system's own
//! time: the same system audited alone (an endpoints file with that system only), which is its
//! critical path with nothing beside it. Target: the audit's wall time ≤ 1.3× the slowest
//! system's own time.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use anyhow::{Context, Result, bail};

use crate::bench_link::{self, Link};
use crate::bench_sweep::DelayBy;
use crate::tools::{bench_executable, cargo, run_step};

/// Arguments of `cargo xtask bench audit`.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct AuditArgs {
    /// Round-trip time to SP's servers (the audit runs at SP); 0ms for none.
    #[arg(long, default_value = "1ms", value_parser = parse_ms)]
    near: u64,
    /// Round-trip time to Franca's servers; 0ms for none.
    #[arg(long, default_value = "10ms", value_parser = parse_ms)]
    far: u64,
    /// How the round-trip times are added: per TCP segment (a link between network namespaces,
    /// as root) or per request (a TCP proxy in front of each server).
    #[arg(long, value_enum, default_value_t = DelayBy::Segment)]
    delay_by: DelayBy,
    /// Runs of the whole audit and of each system alone; medians are printed.
    #[arg(long, default_value_t = 5)]
    rounds: usize,
    /// Proxmox nodes of each site's estate.
    #[arg(long, default_value_t = 7)]
    nodes: usize,
    /// Guests of each site's estate.
    #[arg(long, default_value_t = 60)]
    guests: usize,
    /// `audit --concurrency` (sources asked at once; default: audit's own, 8).
    #[arg(long)]
    concurrency: Option<usize>,
    /// An `audit` executable to time instead of building this checkout's (release).
    #[arg(long, value_name = "PATH")]
    audit_bin: Option<PathBuf>,
    /// A latency proxy executable (bench `latency_proxy` of cpps-proxmox) instead of building it.
    #[arg(long, value_name = "PATH")]
    proxy_bin: Option<PathBuf>,
}

fn parse_ms(text: &str) -> Result<u64, String> {
    text.trim()
        .strip_suffix("ms")
        .and_then(|n| n.parse().ok())
        .filter(|n| *n <= 1000)
        .ok_or_else(|| format!("`{text}`: give whole milliseconds, such as 10ms (at most 1000)"))
}

/// The two sites, the audit's own first: (site id, its GPU host in the real topology).
const SITES: [(&str, &str); 2] = [("sp", "pve-ippri-31"), ("franca", "pve-labri-31")];

/// The systems of a site, as `audit --timings` names their sources.
const SYSTEMS: [&str; 6] = ["proxmox", "linstor", "pbs", "vyos", "kubernetes", "nvml"];

pub(crate) fn run_audit(root: &Path, args: &AuditArgs) -> Result<()> {
    // A Ctrl-C must not leave the link's namespaces behind (their processes die with them).
    bench_link::clean_up_on_signals();
    let dir = root.join("target").join("xtask-bench").join("audit");
    std::fs::create_dir_all(&dir)?;
    let audit = match &args.audit_bin {
        Some(path) => path.clone(),
        None => audit_executable(root)?,
    };
    let servers = Servers::start(root, &dir, args)?;
    let mut delay_by = args.delay_by;
    if delay_by == DelayBy::Segment
        && let Some(why) = bench_link::unavailable()
    {
        println!("audit_delay_by: proxy (per segment unavailable: {why})");
        delay_by = DelayBy::Proxy;
    } else {
        let name = match delay_by {
            DelayBy::Segment => "segment",
            DelayBy::Proxy => "proxy",
        };
        println!("audit_delay_by: {name}");
    }
    let (sites, held) = match delay_by {
        DelayBy::Segment => segment_sites(&servers, args)?,
        DelayBy::Proxy => proxy_sites(root, &servers, args)?,
    };
    let files = EndpointFiles::write(&dir, &servers, &sites)?;
    let namespace = match &held {
        Delays::Link(link) => Some(link.client_ns.clone()),
        Delays::Proxies { .. } => None,
    };
    println!("audit_rtt_near_ms: {}", args.near);
    println!("audit_rtt_far_ms: {}", args.far);
    println!(
        "audit_concurrency: {}",
        args.concurrency
            .map_or("audit's default".to_owned(), |c| c.to_string())
    );
    println!(
        "audit_estate_per_site: {} nodes, {} guests",
        args.nodes, args.guests
    );
    let run = |file: &Path| run_once(&audit, file, args.concurrency, namespace.as_deref());
    let rounds = args.rounds.max(1);
    // A warm-up (page cache, the servers' first answers), then the rounds.
    run(&files.all)?;
    let mut whole = Vec::new();
    let mut alone: BTreeMap<(String, String), Vec<f64>> = BTreeMap::new();
    for _ in 0..rounds {
        whole.push(run(&files.all)?);
        for ((site, system), file) in &files.alone {
            let one = run(file)?;
            if let Some(at) = one.answered(site, system) {
                alone
                    .entry((site.clone(), system.clone()))
                    .or_default()
                    .push(at);
            } else {
                println!(
                    "audit_system_{site}_{system}_alone_failed: {:?}",
                    one.unobserved
                );
            }
        }
    }
    // The link first (its namespaces and forwarders), then the servers.
    drop(held);
    if let Some(last) = whole.last() {
        for failure in &last.unobserved {
            println!("audit_unobserved: {failure}");
        }
    }
    report(&whole, &alone);
    drop(servers);
    Ok(())
}

/// What holds the delays, until dropped: the link (every segment) or the proxies (every
/// request).
enum Delays {
    Link(Link),
    Proxies { _held: Vec<Held> },
}

/// Each site's servers on its own lane of a link, reached through forwarders.
fn segment_sites(servers: &Servers, args: &AuditArgs) -> Result<(Vec<SiteEndpoints>, Delays)> {
    let one_way = |rtt_ms: u64| Duration::from_micros(rtt_ms * 500);
    let link = Link::up_lanes(&[one_way(args.near), one_way(args.far)])?;
    let mut sites = Vec::new();
    for (i, (site, host)) in SITES.iter().enumerate() {
        let address = bench_link::server_address(i);
        // The same port numbers as on 127.0.0.1: the server namespace has every port free.
        for port in [
            servers.pve[i].port,
            servers.fakes[i].port,
            servers.prism_port,
            servers.kube_port,
        ] {
            link.forward(&address, port, port)?;
        }
        sites.push(SiteEndpoints {
            site,
            gpu_host: host,
            host: address,
            pinned: true,
            proxmox: servers.pve[i].port,
            fakes: servers.fakes[i].port,
            linstor: servers.prism_port,
            kube: servers.kube_port,
        });
    }
    Ok((sites, Delays::Link(link)))
}

/// Each site's servers behind latency proxies on 127.0.0.1.
fn proxy_sites(
    root: &Path,
    servers: &Servers,
    args: &AuditArgs,
) -> Result<(Vec<SiteEndpoints>, Delays)> {
    let proxy = match &args.proxy_bin {
        Some(path) => path.clone(),
        None => bench_executable(root, "cpps-proxmox", "latency_proxy")?,
    };
    let rtts = [args.near, args.far];
    let mut proxies = Vec::new();
    let mut sites = Vec::new();
    for (i, (site, host)) in SITES.iter().enumerate() {
        let mut port = |upstream: u16| -> Result<u16> {
            if rtts[i] == 0 {
                return Ok(upstream);
            }
            let p = LatencyProxy::start(&proxy, upstream, rtts[i])?;
            let port = p.port;
            proxies.push(p);
            Ok(port)
        };
        sites.push(SiteEndpoints {
            site,
            gpu_host: host,
            host: "127.0.0.1".to_owned(),
            pinned: false,
            proxmox: port(servers.pve[i].port)?,
            fakes: port(servers.fakes[i].port)?,
            linstor: port(servers.prism_port)?,
            kube: port(servers.kube_port)?,
        });
    }
    Ok((sites, Delays::Proxies { _held: proxies }))
}

/// The `audit` example, built in release mode.
fn audit_executable(root: &Path) -> Result<PathBuf> {
    let output = Command::new(cargo())
        .args([
            "build",
            "--release",
            "-p",
            "cpps-examples",
            "--bin",
            "audit",
        ])
        .arg("--message-format=json")
        .current_dir(root)
        .stderr(Stdio::inherit())
        .output()
        .context("building audit")?;
    if !output.status.success() {
        bail!("building audit failed");
    }
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|m| m["target"]["name"] == "audit")
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
        .context("cargo did not report the audit executable")
}

/// One run of `audit`, as `audit_fakes.py measure` and `audit --timings` saw it.
#[derive(Debug, Clone, Default)]
struct Run {
    wall_s: f64,
    cpu_s: f64,
    maxrss_kib: f64,
    phases: BTreeMap<String, f64>,
    /// (site, system) → (seconds from the start of the observation, answered).
    sources: BTreeMap<(String, String), (f64, bool)>,
    /// The report's findings that a source could not be observed (their messages).
    unobserved: Vec<String>,
}

impl Run {
    fn answered(&self, site: &str, system: &str) -> Option<f64> {
        self.sources
            .get(&(site.to_owned(), system.to_owned()))
            .filter(|(_, ok)| *ok)
            .map(|(at, _)| *at)
    }

    /// Reads `measure`'s `process_*` lines (stdout) and `audit`'s `timing:` lines (stderr).
    fn parse(stdout: &str, stderr: &str) -> Result<Run> {
        let mut run = Run::default();
        let field = |name: &str| -> Result<f64> {
            stdout
                .lines()
                .find_map(|l| l.strip_prefix(name))
                .with_context(|| format!("no `{name}` from measure"))?
                .trim()
                .parse()
                .with_context(|| format!("`{name}` is not a number"))
        };
        run.wall_s = field("process_wall_s:")?;
        run.cpu_s = field("process_cpu_s:")?;
        run.maxrss_kib = field("process_maxrss_kib:")?;
        // The JSON report comes first, on its own lines, before `measure`'s.
        let report = stdout.split("\nprocess_wall_s:").next().unwrap_or_default();
        if let Ok(report) = serde_json::from_str::<serde_json::Value>(report) {
            let findings = report["findings"].as_array().cloned().unwrap_or_default();
            run.unobserved = findings
                .iter()
                .filter_map(|f| f["message"].as_str())
                .filter(|m| m.contains("cannot be observed through"))
                .map(str::to_owned)
                .collect();
        }
        for line in stderr.lines().filter_map(|l| l.strip_prefix("timing: ")) {
            let words: Vec<&str> = line.split_whitespace().collect();
            match words[..] {
                ["phase", name, s] => {
                    run.phases.insert(name.to_owned(), s.parse()?);
                }
                ["source", site, system, s, ok] => {
                    let key = (site.to_owned(), system.to_owned());
                    run.sources.insert(key, (s.parse()?, ok == "ok"));
                }
                _ => bail!("unexpected timing line `{line}`"),
            }
        }
        Ok(run)
    }
}

/// Runs `audit` on the real topology with `endpoints`, JSON to a pipe, under `measure`, in
/// `namespace` when one is given.
fn run_once(
    audit: &Path,
    endpoints: &Path,
    concurrency: Option<usize>,
    namespace: Option<&str>,
) -> Result<Run> {
    let concurrency = concurrency.map(|c| ["--concurrency".to_owned(), c.to_string()]);
    let mut command = match namespace {
        Some(ns) => {
            let mut c = Command::new("ip");
            c.args(["netns", "exec", ns, "python3"]);
            c
        }
        None => Command::new("python3"),
    };
    let output = command
        .arg(crate::workspace_root()?.join("xtask/bench/audit_fakes.py"))
        .arg("measure")
        .arg(audit)
        .args(["--format", "json", "--timings", "--endpoints"])
        .arg(endpoints)
        .args(concurrency.iter().flatten())
        .env("CPPS_BENCH_PBS_SECRET", "0b7a0c4e-bench")
        .env_remove("KUBECONFIG")
        .output()
        .context("running audit")?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    // 0: nothing fails, 1: findings (the real topology has some); 2 means it could not run.
    if !matches!(output.status.code(), Some(0 | 1)) {
        bail!("audit failed ({}): {stderr}", output.status);
    }
    Run::parse(&String::from_utf8_lossy(&output.stdout), &stderr)
}

fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples.get(samples.len() / 2).copied().unwrap_or(f64::NAN)
}

fn verdict(pass: bool) -> &'static str {
    if pass { "PASS" } else { "MISS" }
}

/// Prints the medians, the per-system lines and the target.
fn report(whole: &[Run], alone: &BTreeMap<(String, String), Vec<f64>>) {
    let of = |f: fn(&Run) -> f64| median(whole.iter().map(f).collect());
    let wall = of(|r| r.wall_s);
    println!("audit_rounds: {}", whole.len());
    println!("audit_wall_s: {wall:.4}");
    println!("audit_wall_s_all: {}", list(whole.iter().map(|r| r.wall_s)));
    println!("audit_cpu_s: {:.4}", of(|r| r.cpu_s));
    println!("audit_peak_rss_mib: {:.1}", of(|r| r.maxrss_kib) / 1024.0);
    let phases: Vec<&String> = whole
        .first()
        .map(|r| r.phases.keys().collect())
        .unwrap_or_default();
    for phase in phases {
        let took = median(
            whole
                .iter()
                .filter_map(|r| r.phases.get(phase).copied())
                .collect(),
        );
        println!("audit_phase_{phase}_s: {took:.4}");
    }
    let mut slowest = (0.0_f64, String::new());
    for ((site, system), own) in alone {
        let own = median(own.clone());
        let key = (site.clone(), system.clone());
        let in_audit = whole
            .iter()
            .filter_map(|r| r.sources.get(&key))
            .collect::<Vec<_>>();
        let failed = in_audit.iter().filter(|(_, ok)| !*ok).count();
        let answered = median(in_audit.iter().map(|(at, _)| *at).collect());
        println!(
            "audit_system_{site}_{system}: alone {own:.4} s, answered in the audit at {answered:.4} s{}",
            if failed > 0 {
                format!(" ({failed} runs failed)")
            } else {
                String::new()
            }
        );
        if own > slowest.0 {
            slowest = (own, format!("{site} {system}"));
        }
    }
    let (critical, name) = slowest;
    println!("audit_slowest_system: {name} ({critical:.4} s alone)");
    println!("audit_wall_over_slowest_system: {:.2}", wall / critical);
    println!(
        "target audit wall <= 1.3x the slowest system's own time: {}",
        verdict(wall <= 1.3 * critical)
    );
}

fn list(values: impl Iterator<Item = f64>) -> String {
    values
        .map(|v| format!("{v:.4}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Where one site's servers are reached (its lane of the link, or its latency proxies).
struct SiteEndpoints {
    site: &'static str,
    gpu_host: &'static str,
    /// The address the servers are reached at.
    host: String,
    /// Whether TLS is checked by fingerprint (fakepve) or not at all (kube-apiserver): their
    /// certificates name 127.0.0.1 only.
    pinned: bool,
    proxmox: u16,
    fakes: u16,
    linstor: u16,
    kube: u16,
}

/// The endpoints files: the whole audit's, and one per (site, system) with that system only.
struct EndpointFiles {
    all: PathBuf,
    alone: BTreeMap<(String, String), PathBuf>,
}

impl EndpointFiles {
    fn write(dir: &Path, servers: &Servers, sites: &[SiteEndpoints]) -> Result<EndpointFiles> {
        let mut systems: Vec<(String, String, String)> = Vec::new();
        for (i, s) in sites.iter().enumerate() {
            let kubeconfig = dir.join(format!("kubeconfig-{}", s.site));
            servers.kubeconfig_at(&kubeconfig, &s.host, s.kube, s.pinned)?;
            let token = dir.join(format!("pve-token-{}", s.site));
            std::fs::write(&token, format!("{}\n", servers.pve[i].token))?;
            let key = dir.join("vyos-key");
            std::fs::write(&key, "bench-key\n")?;
            let trust = if s.pinned {
                format!("fingerprint: {}", servers.pve[i].fingerprint)
            } else {
                format!("ca_file: {}", servers.pve[i].ca_file.display())
            };
            let host = &s.host;
            let yaml = [
                format!(
                    "    proxmox:\n      url: https://{host}:{}/\n      token_file: {}\n      {trust}\n",
                    s.proxmox,
                    token.display(),
                ),
                format!(
                    "    linstor:\n      controllers: http://{host}:{}\n",
                    s.linstor
                ),
                format!(
                    "    pbs:\n      repository: report@pbs!ro@{host}:store1\n      url: http://{host}:{}\n      password_env: CPPS_BENCH_PBS_SECRET\n",
                    s.fakes
                ),
                format!(
                    "    vyos:\n      url: http://{host}:{}\n      key_file: {}\n",
                    s.fakes,
                    key.display()
                ),
                format!(
                    "    kubernetes:\n      k3s-gpu-{}: {{ kubeconfig: {} }}\n",
                    s.site,
                    kubeconfig.display()
                ),
                format!(
                    "    nvml:\n      - {{ host: {}, library: {} }}\n",
                    s.gpu_host,
                    servers.nvml.display()
                ),
            ];
            for (system, part) in SYSTEMS.iter().zip(yaml) {
                systems.push((s.site.to_owned(), (*system).to_owned(), part));
            }
        }
        let file = |name: &str, parts: &[&(String, String, String)]| -> Result<PathBuf> {
            let mut text = String::from("sites:\n");
            for (site, _) in SITES {
                let mine: Vec<&str> = parts
                    .iter()
                    .filter(|p| p.0 == site)
                    .map(|p| p.2.as_str())
                    .collect();
                if !mine.is_empty() {
                    text.push_str(&format!("  {site}:\n{}", mine.concat()));
                }
            }
            let path = dir.join(name);
            std::fs::write(&path, text)?;
            Ok(path)
        };
        let all = file("endpoints.yaml", &systems.iter().collect::<Vec<_>>())?;
        let mut alone = BTreeMap::new();
        for s in &systems {
            let path = file(&format!("endpoints-{}-{}.yaml", s.0, s.1), &[s])?;
            alone.insert((s.0.clone(), s.1.clone()), path);
        }
        Ok(EndpointFiles { all, alone })
    }
}

/// One fakepve: its port, `token_id=secret`, CA and certificate fingerprint; stopped on drop.
struct Pve {
    port: u16,
    token: String,
    ca_file: PathBuf,
    fingerprint: String,
    pid_file: PathBuf,
}

/// A child whose standard input we hold: it stops when that closes.
struct Held {
    child: Child,
    port: u16,
}

impl Drop for Held {
    fn drop(&mut self) {
        drop(self.child.stdin.take());
        let _ = self.child.wait();
    }
}

/// Every server of both sites; all stopped on drop.
struct Servers {
    root: PathBuf,
    dir: PathBuf,
    pve: Vec<Pve>,
    fakes: Vec<Held>,
    prism_port: u16,
    kube_port: u16,
    kubeconfig: String,
    nvml: PathBuf,
}

impl Servers {
    fn start(root: &Path, dir: &Path, args: &AuditArgs) -> Result<Servers> {
        let mut servers = Servers {
            root: root.to_owned(),
            dir: dir.to_owned(),
            pve: Vec::new(),
            fakes: Vec::new(),
            prism_port: 0,
            kube_port: 0,
            kubeconfig: String::new(),
            nvml: build_fake_nvml(root, dir)?,
        };
        let estate = dir.join("estate.json");
        run_step(
            "generate the estate",
            Command::new("python3")
                .arg(root.join("xtask/bench/estate.py"))
                .arg(args.nodes.to_string())
                .arg(args.guests.to_string())
                .arg(&estate),
        )?;
        for (site, _) in SITES {
            servers.pve.push(start_fakepve(
                root,
                &dir.join(format!("fakepve-{site}")),
                &estate,
            )?);
            servers
                .fakes
                .push(start_fakes(root, &dir.join(format!("fakes-{site}.port")))?);
        }
        let prism = script_lines(root, "xtask/env/prism.sh", &dir.join("prism"))?;
        servers.prism_port = url_port(&prism, "CPPS_TEST_PRISM_URL=http://127.0.0.1:")?;
        let kube = script_lines(root, "xtask/env/kube-start.sh", &dir.join("kube"))?;
        let kubeconfig = kube
            .lines()
            .find_map(|l| l.strip_prefix("CPPS_TEST_KUBECONFIG="))
            .context("kube-start.sh printed no kubeconfig")?;
        run_step(
            "create the GPU cluster's objects",
            Command::new("python3")
                .arg(root.join("xtask/bench/audit_fakes.py"))
                .args(["kube", kubeconfig])
                .arg(root),
        )?;
        servers.kubeconfig = std::fs::read_to_string(kubeconfig)?;
        servers.kube_port = url_port(&servers.kubeconfig, "server: https://127.0.0.1:")?;
        Ok(servers)
    }

    /// Writes the kubeconfig with its server at `host:port` (a latency proxy, or a lane of the
    /// link); `unchecked`: without checking the server's certificate, which names 127.0.0.1
    /// only (kube-rs with rustls has no `tls-server-name`).
    fn kubeconfig_at(&self, path: &Path, host: &str, port: u16, unchecked: bool) -> Result<()> {
        let mut text = self.kubeconfig.replace(
            &format!("https://127.0.0.1:{}", self.kube_port),
            &format!("https://{host}:{port}"),
        );
        if unchecked {
            text = text
                .lines()
                .map(
                    |line| match line.split_once("certificate-authority-data:") {
                        Some((indent, _)) => format!("{indent}insecure-skip-tls-verify: true"),
                        None => line.to_owned(),
                    },
                )
                .collect::<Vec<_>>()
                .join("\n");
            text.push('\n');
        }
        Ok(std::fs::write(path, text)?)
    }
}

impl Drop for Servers {
    fn drop(&mut self) {
        for pve in &self.pve {
            stop_pid_file(&pve.pid_file);
        }
        self.fakes.clear();
        if let Ok(pids) = std::fs::read_dir(self.dir.join("prism")) {
            for entry in pids.flatten() {
                if entry.file_name().to_string_lossy().ends_with(".pid") {
                    stop_pid_file(&entry.path());
                }
            }
        }
        let _ = Command::new("bash")
            .arg(self.root.join("xtask/env/kube-stop.sh"))
            .arg(self.dir.join("kube"))
            .stdout(Stdio::null())
            .status();
    }
}

fn stop_pid_file(pid_file: &Path) {
    if let Ok(pid) = std::fs::read_to_string(pid_file) {
        let _ = Command::new("kill").arg(pid.trim()).status();
        let _ = std::fs::remove_file(pid_file);
    }
}

/// Runs a start script with `state` and returns its stdout.
fn script_lines(root: &Path, script: &str, state: &Path) -> Result<String> {
    let output = Command::new("bash")
        .arg(root.join(script))
        .arg(state)
        .current_dir(root)
        .stderr(Stdio::inherit())
        .output()
        .with_context(|| format!("running {script}"))?;
    if !output.status.success() {
        bail!("{script} failed ({})", output.status);
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// The port after `prefix` in `text` (`…127.0.0.1:PORT`).
fn url_port(text: &str, prefix: &str) -> Result<u16> {
    let at = text
        .find(prefix)
        .with_context(|| format!("no `{prefix}` in {text}"))?;
    let digits: String = text[at + prefix.len()..]
        .chars()
        .skip_while(|c| !c.is_ascii_digit())
        .take_while(char::is_ascii_digit)
        .collect();
    digits
        .parse()
        .with_context(|| format!("no port after `{prefix}`"))
}

fn start_fakepve(root: &Path, state: &Path, estate: &Path) -> Result<Pve> {
    let output = Command::new("bash")
        .arg(root.join("xtask/env/fakepve.sh"))
        .arg(state)
        .arg(estate)
        .current_dir(root)
        .stderr(Stdio::inherit())
        .output()
        .context("starting fakepve")?;
    if !output.status.success() {
        bail!("fakepve did not start");
    }
    let info: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(state.join("fakepve.json"))?)?;
    let text = |key: &str| {
        info[key]
            .as_str()
            .map(str::to_owned)
            .context("fakepve.json")
    };
    Ok(Pve {
        port: url_port(&text("url")?, "127.0.0.1:")?,
        token: format!("{}={}", text("token_id")?, text("token_secret")?),
        ca_file: PathBuf::from(text("ca_file")?),
        fingerprint: text("fingerprint")?,
        pid_file: state.join("fakepve.pid"),
    })
}

/// A site's PBS and VyOS fake (`audit_fakes.py serve`).
fn start_fakes(root: &Path, port_file: &Path) -> Result<Held> {
    let _ = std::fs::remove_file(port_file);
    let child = Command::new("python3")
        .arg(root.join("xtask/bench/audit_fakes.py"))
        .arg("serve")
        .arg(root)
        .arg(port_file)
        .stdin(Stdio::piped())
        .spawn()
        .context("starting the PBS and VyOS fake")?;
    let mut held = Held { child, port: 0 };
    for _ in 0..100 {
        if let Ok(port) = std::fs::read_to_string(port_file) {
            held.port = port.trim().parse()?;
            return Ok(held);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    bail!("the PBS and VyOS fake did not start within 5 s")
}

/// cpps-gpu's fake NVML library (two RTX A5000, driver 550.54.15, no XIDs), built with gcc.
fn build_fake_nvml(root: &Path, dir: &Path) -> Result<PathBuf> {
    let lib_dir = dir.join("nvml");
    std::fs::create_dir_all(&lib_dir)?;
    let lib = lib_dir.join("libnvidia-ml.so.1");
    run_step(
        "build the fake NVML library",
        Command::new("gcc")
            .args(["-shared", "-fPIC", "-O1", "-o"])
            .arg(&lib)
            .arg(root.join("cpps-gpu/tests/fake-nvml/fake_nvml.c")),
    )?;
    Ok(lib)
}

/// The latency proxy (bench `latency_proxy` of cpps-proxmox) in front of `upstream`: it
/// delays each chunk by half `rtt_ms` each way, and a new connection's first by one more RTT.
struct LatencyProxy;

impl LatencyProxy {
    fn start(executable: &Path, upstream: u16, rtt_ms: u64) -> Result<Held> {
        let mut child = Command::new(executable)
            .arg(upstream.to_string())
            .arg(rtt_ms.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .context("starting the latency proxy")?;
        let stdout = child.stdout.take().context("proxy stdout")?;
        let mut line = String::new();
        std::io::BufRead::read_line(&mut std::io::BufReader::new(stdout), &mut line)?;
        let port = url_port(&line, "port:")?;
        Ok(Held { child, port })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measure_and_timing_lines_are_read() {
        let run = Run::parse(
            "{\"findings\": []}\nprocess_wall_s: 0.61\nprocess_cpu_s: 0.2\nprocess_maxrss_kib: 20480\n",
            "timing: phase load 0.004\ntiming: source sp nvml 0.512 ok\ntiming: source franca pbs 0.03 failed\n",
        )
        .unwrap();
        assert!((run.wall_s - 0.61).abs() < 1e-9);
        assert!((run.maxrss_kib - 20480.0).abs() < 1e-9);
        assert_eq!(run.phases.get("load").copied(), Some(0.004));
        assert_eq!(run.answered("sp", "nvml"), Some(0.512));
        assert_eq!(run.answered("franca", "pbs"), None);
        assert!(Run::parse("process_wall_s: 1\n", "").is_err());
        assert!(
            Run::parse(
                "process_wall_s: 1\nprocess_cpu_s: 1\nprocess_maxrss_kib: 1\n",
                "timing: what\n"
            )
            .is_err()
        );
    }

    #[test]
    fn ports_and_delays_are_read() {
        assert_eq!(
            url_port(
                "CPPS_TEST_PRISM_URL=http://127.0.0.1:4010\n",
                "CPPS_TEST_PRISM_URL=http://127.0.0.1:"
            )
            .ok(),
            Some(4010)
        );
        assert_eq!(url_port("port: 39001\n", "port:").ok(), Some(39001));
        assert_eq!(parse_ms("10ms"), Ok(10));
        assert!(parse_ms("10").is_err());
    }
}
