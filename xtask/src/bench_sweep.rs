//! `cargo xtask bench sweep`: proxmoxer and cpps-proxmox doing the inventory sweep (and the
//! `audit`'s Proxmox VE phase over two sites) against fakepve, against its captured answers
//! served by nginx, and with latency: every TCP segment held in a link between two network
//! namespaces (`bench_link`), or each request held in a TCP proxy (see the `bench` module's
//! docs).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use anyhow::{Context, Result, bail};

use crate::bench_link::{self, Link};
use crate::tools::{bench_executable, install, run_step, tool_cache};

/// How the latency legs add their round-trip time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum DelayBy {
    /// Every TCP segment, ACK and handshake packet held half the RTT each way, in a link
    /// between two network namespaces (root and `/dev/net/tun`; like netem on a WAN).
    Segment,
    /// Each request held the RTT in a TCP proxy on 127.0.0.1 (no root needed).
    Proxy,
}

/// Arguments of `cargo xtask bench sweep`.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct SweepArgs {
    /// Round-trip time the latency legs add.
    #[arg(long, default_value = "20ms", value_parser = parse_duration)]
    latency: Duration,
    /// How the latency legs add it: per TCP segment (a link between network namespaces, as
    /// root) or per request (a TCP proxy).
    #[arg(long, value_enum, default_value_t = DelayBy::Segment)]
    delay_by: DelayBy,
    /// Rounds per client without latency, alternating.
    #[arg(long, default_value_t = 5)]
    rounds: usize,
    /// Rounds per client with latency, alternating.
    #[arg(long, default_value_t = 3)]
    latency_rounds: usize,
    /// Config requests cpps keeps in flight (default: the library's `DEFAULT_CONCURRENCY`).
    #[arg(long)]
    concurrency: Option<usize>,
    /// Proxmox nodes in the estate.
    #[arg(long, default_value_t = 13)]
    nodes: usize,
    /// Guests in the estate.
    #[arg(long, default_value_t = 600)]
    guests: usize,
}

impl Default for SweepArgs {
    fn default() -> Self {
        SweepArgs {
            latency: Duration::from_millis(20),
            delay_by: DelayBy::Segment,
            rounds: 5,
            latency_rounds: 3,
            concurrency: None,
            nodes: 13,
            guests: 600,
        }
    }
}

fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let (number, scale) = if let Some(ms) = text.strip_suffix("ms") {
        (ms, 1e-3)
    } else if let Some(s) = text.strip_suffix('s') {
        (s, 1.0)
    } else {
        return Err(format!("`{text}`: give a unit, such as 20ms or 0.5s"));
    };
    let value: f64 = number
        .parse()
        .map_err(|_| format!("`{text}` is not a duration"))?;
    if !(0.0..=60.0).contains(&(value * scale)) {
        return Err(format!("`{text}` is out of range (0 to 60 s)"));
    }
    Ok(Duration::from_secs_f64(value * scale))
}

/// A venv with proxmoxer, cached outside the repository; versions pinned so that two runs of the
/// benchmark compare the same client.
fn proxmoxer_python() -> Result<PathBuf> {
    let venv = tool_cache().join("venv-proxmoxer");
    let python = venv.join("bin").join("python");
    let ready = Command::new(&python)
        .args(["-c", "import proxmoxer, requests"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ready {
        install(&[
            "venv",
            &venv.to_string_lossy(),
            "proxmoxer==2.3.0",
            "requests==2.34.2",
        ])?;
    }
    Ok(python)
}

/// fakepve running the benchmark's estate; stopped on drop.
struct Fakepve {
    state: PathBuf,
    info: PathBuf,
}

impl Fakepve {
    fn start(root: &Path, nodes: usize, guests: usize) -> Result<Fakepve> {
        let state = bench_dir(root).join("fakepve");
        std::fs::create_dir_all(&state)?;
        let estate = state.join("estate.json");
        // The estate generator needs only Python's standard library.
        run_step(
            "generate the estate",
            Command::new("python3")
                .arg(root.join("xtask/bench/estate.py"))
                .arg(nodes.to_string())
                .arg(guests.to_string())
                .arg(&estate),
        )?;
        // fakepve.sh creates or reuses the venv and starts the server with that estate.
        let output = Command::new("bash")
            .arg(root.join("xtask/env/fakepve.sh"))
            .arg(&state)
            .arg(&estate)
            .current_dir(root)
            .stderr(Stdio::inherit())
            .output()
            .context("starting fakepve")?;
        if !output.status.success() {
            bail!("fakepve did not start with the benchmark estate");
        }
        let info = state.join("fakepve.json");
        // Started in the background by a shell, it ignores the terminal's Ctrl-C.
        bench_link::kill_on_signal(&state.join("fakepve.pid"), true);
        Ok(Fakepve { state, info })
    }
}

impl Drop for Fakepve {
    fn drop(&mut self) {
        stop_pid(&self.state.join("fakepve.pid"));
        bench_link::kill_on_signal(&self.state.join("fakepve.pid"), false);
    }
}

fn bench_dir(root: &Path) -> PathBuf {
    root.join("target").join("xtask-bench")
}

/// Stops the process of `pid_file`: TERM, then KILL if it is still there. A server started by
/// xtask inherits the TERM that `bench_link::clean_up_on_signals` blocks, so TERM alone would
/// leave it running.
fn stop_pid(pid_file: &Path) {
    if let Ok(pid) = std::fs::read_to_string(pid_file) {
        let pid = pid.trim();
        let _ = Command::new("kill").arg(pid).status();
        std::thread::sleep(Duration::from_millis(300));
        let alive = Command::new("kill")
            .args(["-0", pid])
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if alive {
            let _ = Command::new("kill").args(["-KILL", pid]).status();
        }
        let _ = std::fs::remove_file(pid_file);
    }
}

/// A free TCP port of 127.0.0.1 (bound and released: the server binds it right after).
fn free_port() -> Result<u16> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    Ok(listener.local_addr()?.port())
}

/// Waits until `host:port` accepts connections, seen from `namespace` (or this one).
fn wait_for_port(host: &str, port: u16, namespace: Option<&str>, what: &str) -> Result<()> {
    let address = (host.to_owned(), port);
    let probe = move || {
        for _ in 0..100 {
            if std::net::TcpStream::connect(address.clone()).is_ok() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        false
    };
    let listening = match namespace {
        Some(namespace) => Link::in_namespace(namespace, probe)?,
        None => probe(),
    };
    if !listening {
        bail!("{what} did not listen on {host}:{port} within 5 s");
    }
    Ok(())
}

/// Where nginx listens: on 127.0.0.1, or at the server's end of a link (run in its namespace).
#[derive(Debug, Clone, Copy)]
enum Place<'a> {
    Loopback,
    /// The server namespace of a [`Link`].
    Namespace(&'a str),
}

/// Debian's nginx serving the captured answers like pveproxy does (TLS 1.3 only here, HTTP/1.1,
/// keep-alive), with two worker processes, as our own process (not the system service). Its
/// access log names each request's connection serial number, so connections opened are counted
/// at the server. It listens on two ports, the two sites of the `audit` leg (its log names the
/// port). Stopped on drop.
struct Nginx {
    child: std::process::Child,
    port: u16,
    second_port: u16,
    log: PathBuf,
    /// nginx writes its master's pid here.
    pid_file: PathBuf,
}

impl Nginx {
    fn start(dir: &Path, answers: &Path, tls: (&Path, &Path), place: Place<'_>) -> Result<Nginx> {
        let (cert, key) = tls;
        let find = || {
            ["/usr/sbin/nginx", "/usr/bin/nginx"]
                .into_iter()
                .map(PathBuf::from)
                .find(|p| p.exists())
        };
        if find().is_none() {
            install(&["apt", "nginx-light"])?;
        }
        let nginx = find().context("nginx-light installed, yet no nginx binary was found")?;
        // A namespace of its own has every port free.
        let (host, port, second_port, namespace) = match place {
            Place::Loopback => ("127.0.0.1", free_port()?, free_port()?, None),
            Place::Namespace(ns) => (bench_link::SERVER_ADDRESS, 8006, 8007, Some(ns)),
        };
        let log = dir.join("access.log");
        let _ = std::fs::remove_file(&log);
        std::fs::create_dir_all(dir.join("temp"))?;
        let conf = dir.join("nginx.conf");
        // The captured error answers, status and body, come from `errors.conf` (capture.py);
        // a glob, so that an answer folder without one still starts.
        // gzip as pveproxy does: answers over 1024 bytes to a client that accepts it
        // (pve-http-server `src/PVE/APIServer/AnyEvent.pm` `response`; `compression` defaults to 1),
        // at the level of its `Compress::Zlib::memGzip` (IO-Compress 2.204, 2.213 `lib/Compress/Zlib.pm`:
        // Z_BEST_COMPRESSION), not nginx's default 1: the estate's 188 kB guest list is 8.5 kB
        // then, 13.1 kB at level 1, which with TLS 1.3's session tickets overflows the initial
        // congestion window of ten segments and costs the list round a round trip more.
        std::fs::write(
            &conf,
            format!(
                "daemon off;\nmaster_process on;\nworker_processes 2;\npid {dir}/nginx.pid;\n\
                 error_log {dir}/error.log warn;\nevents {{ worker_connections 4096; }}\n\
                 http {{\n  types {{ }}\n  default_type application/json;\n\
                   log_format sweep '$connection $ssl_session_reused $msec $server_port $request_uri';\n\
                   access_log {log} sweep;\n  keepalive_timeout 90s;\n  keepalive_requests 100000;\n\
                   gzip on;\n  gzip_comp_level 9;\n  gzip_min_length 1025;\n  gzip_types application/json;\n\
                   client_body_temp_path {dir}/temp/body;\n  proxy_temp_path {dir}/temp/proxy;\n\
                   fastcgi_temp_path {dir}/temp/fastcgi;\n  uwsgi_temp_path {dir}/temp/uwsgi;\n\
                   scgi_temp_path {dir}/temp/scgi;\n\
                   server {{\n    listen {host}:{port} ssl;\n    listen {host}:{second_port} ssl;\n    ssl_protocols TLSv1.3;\n\
                     ssl_certificate {cert};\n    ssl_certificate_key {key};\n\
                     ssl_session_cache shared:sweep:10m;\n    root {answers};\n\
                     include {answers}/errors*.conf;\n\
                     location / {{ try_files $uri/__body =404; }}\n  }}\n}}\n",
                dir = dir.display(),
                log = log.display(),
                cert = cert.display(),
                key = key.display(),
                answers = answers.display(),
            ),
        )?;
        let mut command = match namespace {
            Some(ns) => {
                let mut command = Command::new("ip");
                command.args(["netns", "exec", ns]).arg(nginx);
                command
            }
            None => Command::new(nginx),
        };
        // `ip netns exec` execs nginx: the child is nginx's master either way.
        let child = command
            .arg("-c")
            .arg(&conf)
            .arg("-p")
            .arg(dir)
            .arg("-e")
            .arg(dir.join("error.log"))
            .stdin(Stdio::null())
            .spawn()
            .context("starting nginx")?;
        // A signal to this process alone (not to its terminal's group) must stop nginx too.
        let pid_file = dir.join("nginx.pid");
        bench_link::kill_on_signal(&pid_file, true);
        let server = Nginx {
            child,
            port,
            second_port,
            log,
            pid_file,
        };
        wait_for_port(host, port, namespace, "nginx")?;
        wait_for_port(host, second_port, namespace, "nginx")?;
        Ok(server)
    }

    /// CPU time nginx's master and workers have used so far, in seconds; `None` where the
    /// kernel does not say.
    fn cpu_s(&self) -> Option<f64> {
        let master = self.child.id();
        let children =
            std::fs::read_to_string(format!("/proc/{master}/task/{master}/children")).ok()?;
        std::iter::once(master.to_string())
            .chain(children.split_whitespace().map(str::to_owned))
            .map(|pid| cpu_of(&pid))
            .sum()
    }

    /// The access log's length now, to read one sweep's lines afterwards.
    fn log_mark(&self) -> u64 {
        std::fs::metadata(&self.log).map_or(0, |m| m.len())
    }

    /// What the server saw since `mark`. nginx writes a line when a request ends; the lines
    /// of one sweep are all there once the client has read its last answer.
    fn seen_since(&self, mark: u64) -> Result<ServerView> {
        let text = std::fs::read(&self.log)?;
        let text = String::from_utf8_lossy(text.get(mark as usize..).unwrap_or_default());
        ServerView::parse(&text)
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        bench_link::kill_on_signal(&self.pid_file, false);
        // TERM to the master: it stops its workers and exits.
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        for _ in 0..50 {
            if self.child.try_wait().is_ok_and(|s| s.is_some()) {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One sweep as the server's access log shows it.
#[derive(Debug, Default, Clone, PartialEq)]
struct ServerView {
    requests: usize,
    /// Distinct connections that carried a request.
    connections: usize,
    /// The most of those on one port (one site of the two-site leg).
    most_per_port: usize,
    /// Of those, connections whose TLS session was resumed.
    resumed: usize,
    /// Seconds between the first and the last answer of the fan-out round (container
    /// configs, node statuses).
    config_span_s: f64,
    /// When the last request ended at the server (nginx's `$msec`: its answer handed to the
    /// kernel), Unix time.
    last_s: f64,
    /// Task logs read (`…/tasks/{upid}/log`): each waits for its node's task list.
    task_logs: usize,
}

impl ServerView {
    /// Parses lines `CONNECTION REUSED MSEC PORT URI` (`log_format sweep` above).
    fn parse(text: &str) -> Result<ServerView> {
        let mut connections = std::collections::BTreeMap::new();
        let mut requests = 0;
        let (mut first, mut last) = (f64::INFINITY, f64::NEG_INFINITY);
        let mut last_s = 0.0_f64;
        let mut task_logs = 0;
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let [connection, reused, msec, port, uri] = fields[..] else {
                bail!("unexpected access log line `{line}`");
            };
            let at: f64 = msec.parse().with_context(|| format!("time in `{line}`"))?;
            requests += 1;
            last_s = last_s.max(at);
            let path = uri.split('?').next().unwrap_or_default();
            if path.contains("/tasks/") && path.ends_with("/log") {
                task_logs += 1;
            }
            connections
                .entry(connection.to_owned())
                .or_insert((reused == "r", port.to_owned()));
            if uri
                .split('?')
                .next()
                .is_some_and(|p| p.ends_with("/config") || p.ends_with("/status"))
            {
                first = first.min(at);
                last = last.max(at);
            }
        }
        let mut per_port = std::collections::BTreeMap::<&str, usize>::new();
        for (_, port) in connections.values() {
            *per_port.entry(port).or_default() += 1;
        }
        Ok(ServerView {
            requests,
            connections: connections.len(),
            most_per_port: per_port.values().copied().max().unwrap_or(0),
            resumed: connections.values().filter(|(r, _)| *r).count(),
            config_span_s: if last >= first { last - first } else { 0.0 },
            last_s,
            task_logs,
        })
    }
}

/// CPU time the live threads of process `pid` (or `self`) have used so far, in seconds: the
/// first field of each `/proc/PID/task/TID/schedstat` (nanoseconds on a CPU).
fn cpu_of(pid: &str) -> Option<f64> {
    std::fs::read_dir(format!("/proc/{pid}/task"))
        .ok()?
        .map(|task| {
            let stat = std::fs::read_to_string(task.ok()?.path().join("schedstat")).ok()?;
            let nanoseconds: f64 = stat.split_whitespace().next()?.parse().ok()?;
            Some(nanoseconds * 1e-9)
        })
        .sum()
}

/// The user-space latency proxy (bench `latency_proxy` of cpps-proxmox); stopped on drop by
/// closing its standard input.
struct LatencyProxy {
    child: std::process::Child,
    port: u16,
}

impl LatencyProxy {
    fn start(executable: &Path, upstream: u16, rtt: Duration) -> Result<LatencyProxy> {
        let mut child = Command::new(executable)
            .arg(upstream.to_string())
            .arg(rtt.as_millis().to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .context("starting the latency proxy")?;
        let mut line = String::new();
        let stdout = child.stdout.take().context("proxy stdout")?;
        std::io::BufRead::read_line(&mut std::io::BufReader::new(stdout), &mut line)?;
        let port = line
            .trim()
            .strip_prefix("port: ")
            .and_then(|p| p.parse().ok())
            .with_context(|| format!("the latency proxy said `{line}`"))?;
        Ok(LatencyProxy { child, port })
    }
}

impl Drop for LatencyProxy {
    fn drop(&mut self) {
        drop(self.child.stdin.take());
        let _ = self.child.wait();
    }
}

/// What one client's run printed (through `xtask/bench/measure.py`).
#[derive(Debug, Clone)]
struct Run {
    seconds: f64,
    process_wall_s: f64,
    process_cpu_s: f64,
    /// When the process exited, Unix time.
    exit_s: f64,
    guests: usize,
    requests: usize,
    concurrency: Option<usize>,
    server: Option<ServerView>,
    /// CPU time the server (nginx) used while this client ran.
    server_cpu_s: Option<f64>,
    /// CPU time the processes adding the latency used meanwhile ([`Leg::delayers`]): the
    /// link's relay threads, which carry both ends' packets, or the latency proxies; 0
    /// without latency.
    link_cpu_s: Option<f64>,
}

/// Runs one sweep program under `measure.py`, in `namespace` if given, and reads what it printed.
fn sweep_once(root: &Path, namespace: Option<&str>, program: &[&std::ffi::OsStr]) -> Result<Run> {
    let mut command = match namespace {
        Some(ns) => {
            let mut command = Command::new("ip");
            command.args(["netns", "exec", ns, "python3"]);
            command
        }
        None => Command::new("python3"),
    };
    let output = command
        .arg(root.join("xtask/bench/measure.py"))
        .args(program)
        .stderr(Stdio::inherit())
        .output()?;
    if !output.status.success() {
        bail!("a sweep failed ({})", output.status);
    }
    let text = String::from_utf8_lossy(&output.stdout);
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name))
            .map(str::trim)
            .with_context(|| format!("no `{name}` in sweep output: {text}"))
    };
    Ok(Run {
        seconds: field("seconds:")?.parse()?,
        process_wall_s: field("process_wall_s:")?.parse()?,
        process_cpu_s: field("process_cpu_s:")?.parse()?,
        exit_s: field("process_exit_epoch_s:")?.parse()?,
        guests: field("guests:")?.parse()?,
        requests: field("requests:")?.parse()?,
        concurrency: field("concurrency:").ok().and_then(|c| c.parse().ok()),
        server: None,
        server_cpu_s: None,
        link_cpu_s: None,
    })
}

fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

fn verdict(pass: bool) -> &'static str {
    if pass { "PASS" } else { "MISS" }
}

/// One server set-up of the sweep: where the clients connect, and how to see what it served.
struct Leg<'a> {
    name: String,
    /// One per site: the `audit` leg observes two.
    server_jsons: Vec<PathBuf>,
    /// cpps's program: the `sweep` bench, or `audit_pve` for the two-site leg.
    cpps: &'a Path,
    /// proxmoxer makes `audit`'s reads (`--audit`), not the sweep's.
    audit: bool,
    nginx: Option<&'a Nginx>,
    rounds: usize,
    /// The namespace the clients run in (the client end of a link).
    namespace: Option<&'a str>,
    /// The time an answer takes from the server to the client, where it is known (a link's
    /// one-way delay): then the time from the last answer to the client's exit is printed.
    one_way: Option<Duration>,
    /// The processes that add the latency (`self` for the link's relay threads in this
    /// process, the latency proxies' pids), whose CPU the run's floor counts; none without
    /// latency.
    delayers: &'a [String],
}

/// How a leg's latency is added: [`Leg`]'s `namespace`, `one_way` and `delayers`.
struct Delay<'a> {
    namespace: Option<&'a str>,
    one_way: Option<Duration>,
    delayers: &'a [String],
}

impl Delay<'_> {
    /// No latency added.
    const NONE: Delay<'static> = Delay {
        namespace: None,
        one_way: None,
        delayers: &[],
    };
}

/// Medians of one leg's alternating rounds.
struct LegFigures {
    proxmoxer: f64,
    cpps: f64,
    proxmoxer_cpu_per_request: f64,
    cpps_cpu_per_request: f64,
    cpps_connections: Option<usize>,
    requests: usize,
    concurrency: usize,
    config_span_s: Option<f64>,
    /// Task logs cpps read (the server's count), all sites together; 0 without a server view.
    task_logs: usize,
    /// The CPU both ends spent on cpps's runs, where the server's is known.
    cpu_floor: Option<CpuFloor>,
}

/// The wall time that the CPU of a run allows: cpps, the server (nginx) and what adds the
/// latency (the link's relay or the proxies) share the machine's cores, so a run that needs
/// `client + server + link` seconds of CPU takes at least that over the cores, however little
/// it waits (medians of a leg's cpps runs).
/// With latency the run waits for round trips instead, and the floor's share of the wall time
/// is how busy the cores were.
#[derive(Debug, Clone, Copy, PartialEq)]
struct CpuFloor {
    client_cpu_s: f64,
    server_cpu_s: f64,
    link_cpu_s: f64,
    cores: usize,
    /// `(client + server + link) / cores`.
    floor_s: f64,
    /// The process's wall time over its own run's floor.
    wall_over_floor: f64,
}

impl CpuFloor {
    /// `None` unless every run has the server's CPU time (and the link's, 0 without a link).
    fn of(runs: &[Run], cores: usize) -> Option<CpuFloor> {
        let cores = cores.max(1);
        let server: Vec<f64> = runs.iter().map(|r| r.server_cpu_s).collect::<Option<_>>()?;
        let link: Vec<f64> = runs.iter().map(|r| r.link_cpu_s).collect::<Option<_>>()?;
        if runs.is_empty() {
            return None;
        }
        let floors: Vec<f64> = runs
            .iter()
            .zip(server.iter().zip(&link))
            .map(|(r, (s, l))| (r.process_cpu_s + s + l) / cores as f64)
            .collect();
        Some(CpuFloor {
            client_cpu_s: median(runs.iter().map(|r| r.process_cpu_s).collect()),
            server_cpu_s: median(server),
            link_cpu_s: median(link),
            cores,
            floor_s: median(floors.clone()),
            wall_over_floor: median(
                runs.iter()
                    .zip(&floors)
                    .map(|(r, floor)| r.process_wall_s / floor)
                    .collect(),
            ),
        })
    }
}

/// One run of one client against `leg`'s servers; with nginx in front, the requests the server
/// logged must be those the client counted.
fn run_client_once(
    root: &Path,
    python: &Path,
    leg: &Leg<'_>,
    concurrency: Option<usize>,
    proxmoxer: bool,
) -> Result<Run> {
    let script = root.join("xtask/bench/proxmoxer_sweep.py");
    let concurrency_arg = concurrency.map(|c| c.to_string()).unwrap_or_default();
    let mark = leg.nginx.map(Nginx::log_mark);
    let server_cpu_before = leg.nginx.and_then(Nginx::cpu_s);
    let delay_cpu = || {
        leg.delayers
            .iter()
            .map(|pid| cpu_of(pid))
            .sum::<Option<f64>>()
    };
    let link_cpu_before = delay_cpu();
    let mut run = if proxmoxer {
        let mut args = vec![python.as_os_str(), script.as_os_str()];
        if leg.audit {
            args.push(std::ffi::OsStr::new("--audit"));
        }
        args.extend(leg.server_jsons.iter().map(|p| p.as_os_str()));
        sweep_once(root, leg.namespace, &args)?
    } else {
        let mut args = vec![leg.cpps.as_os_str()];
        args.extend(leg.server_jsons.iter().map(|p| p.as_os_str()));
        if concurrency.is_some() && !leg.audit {
            args.push(std::ffi::OsStr::new(&concurrency_arg));
        }
        sweep_once(root, leg.namespace, &args)?
    };
    run.link_cpu_s = link_cpu_before
        .zip(delay_cpu())
        .map(|(before, after)| after - before);
    if let (Some(nginx), Some(mark)) = (leg.nginx, mark) {
        run.server_cpu_s = server_cpu_before
            .zip(nginx.cpu_s())
            .map(|(before, after)| after - before);
        let view = nginx.seen_since(mark)?;
        if leg.audit && !proxmoxer {
            // `audit_pve` counts the sweep's lists, node statuses and configs; the backup
            // chain's reads depend on the answers (pools, task lists and their logs), so the
            // server counts them. proxmoxer counts all of its own, and `run_leg` holds
            // the two clients' counts equal.
            if view.requests < run.requests {
                bail!(
                    "{}: cpps counted {} requests of its list and fan-out rounds, the server \
                     logged {} in all",
                    leg.name,
                    run.requests,
                    view.requests
                );
            }
            run.requests = view.requests;
        }
        if view.requests != run.requests {
            bail!(
                "{}: the client made {} requests, the server logged {}",
                leg.name,
                run.requests,
                view.requests
            );
        }
        run.server = Some(view);
    }
    Ok(run)
}

fn run_leg(
    root: &Path,
    python: &Path,
    leg: &Leg<'_>,
    concurrency: Option<usize>,
) -> Result<LegFigures> {
    let run = |proxmoxer: bool| run_client_once(root, python, leg, concurrency, proxmoxer);
    let load_before = load_average();
    // One warm-up of each (Python imports, page cache), then alternating rounds.
    run(true)?;
    run(false)?;
    let (mut theirs, mut ours) = (Vec::new(), Vec::new());
    for _ in 0..leg.rounds.max(1) {
        let p = run(true)?;
        let c = run(false)?;
        if (p.guests, p.requests) != (c.guests, c.requests) {
            bail!(
                "{}: proxmoxer read {} guests in {} requests, cpps {} in {}",
                leg.name,
                p.guests,
                p.requests,
                c.guests,
                c.requests
            );
        }
        theirs.push(p);
        ours.push(c);
    }
    let figures = leg_figures(&theirs, &ours);
    print_leg(leg, &figures, &theirs, &ours);
    // Two cores shared with other work: a figure is read with the load it ran under.
    println!(
        "{}_load_average: {load_before} -> {}",
        leg.name,
        load_average()
    );
    Ok(figures)
}

/// The medians of a leg's rounds (`theirs` proxmoxer's, `ours` cpps's; at least one each).
fn leg_figures(theirs: &[Run], ours: &[Run]) -> LegFigures {
    let requests = ours[0].requests;
    let per_request =
        |runs: &[Run]| median(runs.iter().map(|r| r.process_cpu_s).collect()) / requests as f64;
    LegFigures {
        proxmoxer: median(theirs.iter().map(|r| r.seconds).collect()),
        cpps: median(ours.iter().map(|r| r.seconds).collect()),
        proxmoxer_cpu_per_request: per_request(theirs),
        cpps_cpu_per_request: per_request(ours),
        cpps_connections: ours
            .iter()
            .filter_map(|r| r.server.as_ref().map(|s| s.most_per_port))
            .max(),
        requests,
        concurrency: ours[0].concurrency.unwrap_or(0),
        task_logs: ours[0].server.as_ref().map_or(0, |s| s.task_logs),
        cpu_floor: CpuFloor::of(
            ours,
            std::thread::available_parallelism().map_or(1, usize::from),
        ),
        config_span_s: ours.iter().all(|r| r.server.is_some()).then(|| {
            median(
                ours.iter()
                    .filter_map(|r| r.server.as_ref().map(|s| s.config_span_s))
                    .collect(),
            )
        }),
    }
}

/// Prints a leg's figures as `name_key: value` lines, and what the server saw per round.
fn print_leg(leg: &Leg<'_>, figures: &LegFigures, theirs: &[Run], ours: &[Run]) {
    let name = &leg.name;
    let requests = figures.requests;
    println!("{name}_guests: {}", ours[0].guests);
    println!("{name}_requests: {requests}");
    println!("{name}_rounds: {}", leg.rounds.max(1));
    println!("{name}_cpps_concurrency: {}", figures.concurrency);
    println!("{name}_proxmoxer_median_s: {:.4}", figures.proxmoxer);
    println!("{name}_cpps_median_s: {:.4}", figures.cpps);
    println!("{name}_speedup: {:.2}", figures.proxmoxer / figures.cpps);
    println!(
        "{name}_proxmoxer_process_median_s: {:.4}",
        median(theirs.iter().map(|r| r.process_wall_s).collect())
    );
    println!(
        "{name}_cpps_process_median_s: {:.4}",
        median(ours.iter().map(|r| r.process_wall_s).collect())
    );
    println!(
        "{name}_proxmoxer_cpu_per_request_ms: {:.4}",
        figures.proxmoxer_cpu_per_request * 1e3
    );
    println!(
        "{name}_cpps_cpu_per_request_ms: {:.4}",
        figures.cpps_cpu_per_request * 1e3
    );
    println!(
        "{name}_cpu_per_request_ratio: {:.2}",
        figures.proxmoxer_cpu_per_request / figures.cpps_cpu_per_request
    );
    if let Some(floor) = figures.cpu_floor {
        print_cpu_floor(name, &floor, theirs);
    }
    for (client, runs) in [("proxmoxer", theirs), ("cpps", ours)] {
        let views: Vec<&ServerView> = runs.iter().filter_map(|r| r.server.as_ref()).collect();
        if views.is_empty() {
            continue;
        }
        let list = |f: fn(&ServerView) -> usize| {
            views
                .iter()
                .map(|v| f(v).to_string())
                .collect::<Vec<_>>()
                .join(" ")
        };
        println!(
            "{name}_{client}_connections_per_round: {}",
            list(|v| v.connections)
        );
        println!(
            "{name}_{client}_resumed_tls_per_round: {}",
            list(|v| v.resumed)
        );
        if let Some(lag) = leg.one_way.and_then(|one_way| exit_lag_s(runs, one_way)) {
            println!(
                "{name}_{client}_exit_after_last_answer_ms: {:.1}",
                lag * 1e3
            );
        }
    }
}

/// Prints the CPU floor of a leg's cpps runs, and the speed-up over proxmoxer that it leaves
/// room for (proxmoxer's process time over the floor).
fn print_cpu_floor(name: &str, floor: &CpuFloor, theirs: &[Run]) {
    println!(
        "{name}_cpps_run_cpu_ms: client {:.1}, server {:.1}, link {:.1}",
        floor.client_cpu_s * 1e3,
        floor.server_cpu_s * 1e3,
        floor.link_cpu_s * 1e3
    );
    println!(
        "{name}_cpps_cpu_floor_s: {:.4} ((client + server + link CPU) / {} cores)",
        floor.floor_s, floor.cores
    );
    println!(
        "{name}_cpps_process_over_cpu_floor: {:.2}",
        floor.wall_over_floor
    );
    let proxmoxer = median(theirs.iter().map(|r| r.process_wall_s).collect());
    println!(
        "{name}_speedup_the_cpu_floor_allows: {:.2}",
        proxmoxer / floor.floor_s
    );
}

/// The median time from the last answer's arrival at the client (the server's last log line
/// plus the one-way delay) to the client's exit; `None` without the server's view.
fn exit_lag_s(runs: &[Run], one_way: Duration) -> Option<f64> {
    let lags: Vec<f64> = runs
        .iter()
        .filter_map(|r| {
            r.server
                .as_ref()
                .map(|s| r.exit_s - (s.last_s + one_way.as_secs_f64()))
        })
        .collect();
    (!lags.is_empty()).then(|| median(lags))
}

/// The 1, 5 and 15 minute load averages, as `/proc/loadavg` gives them.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg").map_or_else(
        |_| "unknown".to_owned(),
        |text| {
            text.split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" ")
        },
    )
}

/// The fakepve leg: starts fakepve, captures its answers into `answers` (with its TLS files in
/// `dir`) for the static legs, times both clients against it, and returns its server JSON.
fn fakepve_leg(
    root: &Path,
    python: &Path,
    cpps: &Path,
    dir: &Path,
    answers: &Path,
    args: &SweepArgs,
) -> Result<serde_json::Value> {
    let fakepve = Fakepve::start(root, args.nodes, args.guests)?;
    run_step(
        "capture fakepve's answers",
        Command::new("python3")
            .arg(root.join("xtask/bench/capture.py"))
            .arg(&fakepve.info)
            .arg(answers),
    )?;
    for file in ["node.pem", "node.key"] {
        std::fs::copy(fakepve.state.join(file), dir.join(file))?;
    }
    let info: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&fakepve.info)?)?;
    run_leg(
        root,
        python,
        &Leg {
            name: "sweep_fakepve".to_owned(),
            server_jsons: vec![fakepve.info.clone()],
            cpps,
            audit: false,
            nginx: None,
            rounds: args.rounds,
            namespace: None,
            one_way: None,
            delayers: &[],
        },
        args.concurrency,
    )?;
    drop(fakepve);
    Ok(info)
}

/// What every leg of one `bench sweep` run shares.
struct Bench<'a> {
    root: &'a Path,
    python: PathBuf,
    /// The inventory sweep (bench `sweep` of cpps-proxmox).
    cpps: PathBuf,
    /// `audit`'s Proxmox VE phase (bench `audit_pve` of cpps-topology).
    audit: PathBuf,
    /// The captured answers nginx serves.
    answers: PathBuf,
    /// fakepve's server JSON, copied for each static server with its URL changed.
    info: serde_json::Value,
    args: &'a SweepArgs,
}

/// The two legs (the inventory sweep of one site, `audit`'s Proxmox phase over two) against
/// one server set-up.
struct LegPair {
    sweep: LegFigures,
    /// `None` when the leg could not be measured (said on stdout).
    audit: Option<LegFigures>,
}

impl Bench<'_> {
    /// A copy of fakepve's server JSON naming `url` (and `ca_file`, if given), written to `dir`.
    fn server_json(&self, dir: &Path, name: &str, url: &str, ca: Option<&Path>) -> Result<PathBuf> {
        let mut info = self.info.clone();
        info["url"] = url.into();
        if let Some(ca) = ca {
            info["ca_file"] = ca.to_string_lossy().as_ref().into();
        }
        let path = dir.join(format!("{name}.json"));
        std::fs::write(&path, serde_json::to_vec_pretty(&info)?)?;
        Ok(path)
    }

    /// Both legs against `nginx`, the clients reaching it through `jsons` (one per site).
    fn legs(
        &self,
        suffix: &str,
        jsons: &[PathBuf],
        nginx: &Nginx,
        rounds: usize,
        delay: &Delay<'_>,
    ) -> Result<LegPair> {
        let leg = |base: &str, jsons: &[PathBuf], cpps: &Path, audit: bool| {
            run_leg(
                self.root,
                &self.python,
                &Leg {
                    name: format!("{base}{suffix}"),
                    server_jsons: jsons.to_vec(),
                    cpps,
                    audit,
                    nginx: Some(nginx),
                    rounds,
                    namespace: delay.namespace,
                    one_way: delay.one_way,
                    delayers: delay.delayers,
                },
                self.args.concurrency,
            )
        };
        Ok(LegPair {
            // The inventory sweep of one site, then `audit`'s Proxmox VE phase over two sites
            // at once (two ports of the same nginx).
            sweep: leg("sweep_static", &jsons[..1], &self.cpps, false)?,
            // `audit`'s phase with its backup chain (capture.py and proxmoxer's `--audit`
            // make its reads); a leg that fails says so instead of a figure.
            audit: leg("audit_pve_2sites", jsons, &self.audit, true)
                .inspect_err(|e| println!("audit_pve_2sites{suffix}: not measured: {e:#}"))
                .ok(),
        })
    }

    /// The latency legs, every segment held in a link (`DelayBy::Segment`, where this machine
    /// allows it) or every request held in a proxy in front of `plain_nginx`.
    fn latency_legs(&self, dir: &Path, plain_nginx: &Nginx) -> Result<LegPair> {
        let rtt = self.args.latency;
        let suffix = format!("_rtt_{}ms", rtt.as_millis());
        let mut delay_by = self.args.delay_by;
        if delay_by == DelayBy::Segment
            && let Some(why) = bench_link::unavailable()
        {
            println!("sweep_delay_by: proxy (per segment unavailable: {why})");
            delay_by = DelayBy::Proxy;
        }
        if delay_by == DelayBy::Proxy {
            println!("sweep_delay_by: proxy");
            let proxy = bench_executable(self.root, "cpps-proxmox", "latency_proxy")?;
            let first = LatencyProxy::start(&proxy, plain_nginx.port, rtt)?;
            let second = LatencyProxy::start(&proxy, plain_nginx.second_port, rtt)?;
            let jsons = [
                (first.port, "static-latency"),
                (second.port, "static-latency-second"),
            ]
            .map(|(port, name)| {
                self.server_json(dir, name, &format!("https://127.0.0.1:{port}/"), None)
            });
            let [a, b] = jsons;
            let jsons = vec![a?, b?];
            let rounds = self.args.latency_rounds;
            let proxies = [&first, &second].map(|p| p.child.id().to_string());
            let delay = Delay {
                delayers: &proxies,
                ..Delay::NONE
            };
            return self.legs(&suffix, &jsons, plain_nginx, rounds, &delay);
        }
        println!("sweep_delay_by: segment");
        let one_way = rtt / 2;
        let link = Link::up(one_way)?;
        let link_dir = dir.join("link");
        std::fs::create_dir_all(&link_dir)?;
        let (cert, key) = link_certificate(&link_dir)?;
        let nginx = Nginx::start(
            &link_dir,
            &self.answers,
            (&cert, &key),
            Place::Namespace(&link.server_ns),
        )?;
        let url = |port: u16| format!("https://{}:{port}/", bench_link::SERVER_ADDRESS);
        let jsons = vec![
            self.server_json(&link_dir, "link", &url(nginx.port), Some(&cert))?,
            self.server_json(
                &link_dir,
                "link-second",
                &url(nginx.second_port),
                Some(&cert),
            )?,
        ];
        let rounds = self.args.latency_rounds;
        let pair = self.legs(
            &suffix,
            &jsons,
            &nginx,
            rounds,
            &Delay {
                namespace: Some(&link.client_ns),
                one_way: Some(one_way),
                // The link's relay runs in threads of this process.
                delayers: &["self".to_owned()],
            },
        );
        let probe = pair.is_ok().then(|| {
            let endpoint = url(nginx.port);
            self.inventory_exit(&endpoint, &cert, &nginx, &link.client_ns, one_way, &suffix)
        });
        // nginx first, then the link (whose drop would kill it anyway).
        drop(nginx);
        drop(link);
        probe.transpose()?;
        pair
    }

    /// The `inventory` binary itself (release build) through the link, `latency_rounds` times:
    /// its process time, and the time from the last answer's arrival to its exit (whether it
    /// waits for the network once its output is written: TLS close_notify, FIN).
    fn inventory_exit(
        &self,
        endpoint: &str,
        ca: &Path,
        nginx: &Nginx,
        namespace: &str,
        one_way: Duration,
        suffix: &str,
    ) -> Result<()> {
        let inventory = release_binary(self.root, "cpps-examples", "inventory")?;
        let token = format!(
            "{}={}",
            self.info["token_id"].as_str().unwrap_or_default(),
            self.info["token_secret"].as_str().unwrap_or_default()
        );
        let (mut walls, mut lags) = (Vec::new(), Vec::new());
        for _ in 0..=self.args.latency_rounds.max(1) {
            let mark = nginx.log_mark();
            let output = Command::new("ip")
                .args(["netns", "exec", namespace, "python3"])
                .arg(self.root.join("xtask/bench/measure.py"))
                .arg(&inventory)
                .args(["--format", "json"])
                .env("PROXMOX_VE_ENDPOINT", endpoint)
                .env("PROXMOX_VE_API_TOKEN", &token)
                .env("PROXMOX_VE_CA_FILE", ca)
                .stderr(Stdio::inherit())
                .output()?;
            if !output.status.success() {
                bail!("inventory failed through the link ({})", output.status);
            }
            let text = String::from_utf8_lossy(&output.stdout);
            let field = |name: &str| -> Result<f64> {
                let value = text.lines().find_map(|l| l.strip_prefix(name));
                Ok(value.context("measure.py's output")?.trim().parse()?)
            };
            let view = nginx.seen_since(mark)?;
            walls.push(field("process_wall_s:")?);
            lags.push(field("process_exit_epoch_s:")? - (view.last_s + one_way.as_secs_f64()));
        }
        // The first run is a warm-up (page cache), as in the legs.
        walls.remove(0);
        lags.remove(0);
        let name = format!("inventory{suffix}");
        println!("{name}_process_median_s: {:.4}", median(walls));
        println!(
            "{name}_exit_after_last_answer_ms: {:.1}",
            median(lags) * 1e3
        );
        Ok(())
    }
}

/// Builds a binary of `package` in release mode and returns its path (from cargo's JSON
/// messages).
fn release_binary(root: &Path, package: &str, bin: &str) -> Result<PathBuf> {
    let output = Command::new(crate::tools::cargo())
        .args(["build", "--release", "-p", package, "--bin", bin])
        .arg("--message-format=json")
        .current_dir(root)
        .stderr(Stdio::inherit())
        .output()
        .with_context(|| format!("building {bin}"))?;
    if !output.status.success() {
        bail!("building {bin} failed");
    }
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|m| m["target"]["name"] == bin)
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
        .with_context(|| format!("cargo did not report the {bin} executable"))
}

/// A certificate naming the server's address on the link (fakepve's certificates name
/// 127.0.0.1 and localhost only), made with fakepve's own helper (`fakepve.certs.make_cert`,
/// in the venv the fakepve leg installed): `(certificate, key)`; the clients trust it as CA.
fn link_certificate(dir: &Path) -> Result<(PathBuf, PathBuf)> {
    let python = tool_cache().join("venv-fakepve").join("bin").join("python");
    run_step(
        "a certificate for the link's server address",
        Command::new(python)
            .args([
                "-c",
                "import sys; from fakepve.certs import make_cert; \
                 make_cert(sys.argv[1], 'link', [sys.argv[2]])",
            ])
            .arg(dir)
            .arg(bench_link::SERVER_ADDRESS),
    )?;
    Ok((dir.join("link.crt"), dir.join("link.key")))
}

pub(crate) fn run_sweep(root: &Path, args: &SweepArgs) -> Result<()> {
    // A Ctrl-C must not leave fakepve running or a link's namespaces behind.
    bench_link::clean_up_on_signals();
    let dir = bench_dir(root).join("static");
    let answers = dir.join("answers");
    let _ = std::fs::remove_dir_all(&answers);
    std::fs::create_dir_all(&answers)?;
    let python = proxmoxer_python()?;
    let cpps = bench_executable(root, "cpps-proxmox", "sweep")?;
    let audit = bench_executable(root, "cpps-topology", "audit_pve")?;

    // fakepve: the second figure, and the source of the answers served statically afterwards.
    let info = fakepve_leg(root, &python, &cpps, &dir, &answers, args)?;
    let bench = Bench {
        root,
        python,
        cpps,
        audit,
        answers,
        info,
        args,
    };

    let nginx = Nginx::start(
        &dir,
        &bench.answers,
        (&dir.join("node.pem"), &dir.join("node.key")),
        Place::Loopback,
    )?;
    let url = |port: u16| format!("https://127.0.0.1:{port}/");
    let plain_jsons = vec![
        bench.server_json(&dir, "static", &url(nginx.port), None)?,
        bench.server_json(&dir, "static-second", &url(nginx.second_port), None)?,
    ];
    let plain = bench.legs("", &plain_jsons, &nginx, args.rounds, &Delay::NONE)?;
    let slow = bench.latency_legs(&dir, &nginx)?;
    let rtt = args.latency;
    report_targets("sweep_static", &plain.sweep, &slow.sweep, rtt, 1, false);
    if let (Some(plain), Some(slow)) = (&plain.audit, &slow.audit) {
        report_targets("audit_pve_2sites", plain, slow, rtt, 2, true);
    }
    Ok(())
}

/// One site's bounded floor: which of its requests go in which round. TCP and TLS 1.3 once per
/// connection, all opened at once (2 round trips), the list round (1), then the fan-out
/// `bound` at a time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Floor {
    /// The list round: requests that need no other answer.
    list: usize,
    /// Requests that need only a list's answer (configs, node statuses; for `audit` also the
    /// pools, the task lists and the rights on the nodes).
    fan_out: usize,
    /// Task logs, which need their node's task list: not in the fan-out's first round.
    task_logs: usize,
    bound: usize,
}

impl Floor {
    /// The floor of one site that took `requests`, `task_logs` of them task logs, at `bound`
    /// requests in flight. The list round is the sweep's four (nodes, guests, HA resources,
    /// the rights on /vms); `audit`'s backup chain adds two that need no other answer
    /// (cpps-topology `src/live/pve/chain.rs` `lists`: `GET /storage` and `/cluster/backup`).
    fn of(requests: usize, task_logs: usize, audit: bool, bound: usize) -> Floor {
        let list = if audit { 6 } else { 4 };
        Floor {
            list,
            fan_out: requests.saturating_sub(list + task_logs),
            task_logs,
            bound: bound.max(1),
        }
    }

    /// A task log can leave once its list has come, in the fan-out's second round or later,
    /// where a slot is free: the logs add rounds only past what the fan-out leaves free.
    fn round_trips(&self) -> usize {
        let rounds = (self.fan_out + self.task_logs).div_ceil(self.bound);
        let rounds = if self.task_logs > 0 {
            rounds.max(2)
        } else {
            rounds
        };
        3 + rounds
    }
}

/// The round trips, the floor and the targets of one client's legs without and with latency;
/// `sites` observed at once, each with the same requests ([`Floor::of`]; `audit`: the two-site
/// leg with its backup chain).
fn report_targets(
    base: &str,
    plain: &LegFigures,
    slow: &LegFigures,
    rtt: Duration,
    sites: usize,
    audit: bool,
) {
    let name = format!("{base}_rtt_{}ms", rtt.as_millis());
    let rtt_s = rtt.as_secs_f64();
    let sites = sites.max(1);
    // HTTP/1.1 carries one request at a time per connection: the bound is the connections.
    let bound = slow.concurrency.max(1);
    let site = Floor::of(slow.requests / sites, slow.task_logs / sites, audit, bound);
    let floor_trips = site.round_trips();
    let floor = floor_trips as f64 * rtt_s;
    println!("{name}_bound: {bound}");
    let logs = match site.task_logs {
        0 => String::new(),
        n => format!(", {n}/{bound} task logs"),
    };
    println!(
        "{name}_floor_round_trips: {floor_trips} (2 TCP+TLS, 1 lists ({}), {}/{bound} {}{logs})",
        site.list,
        site.fan_out,
        if audit { "fan-out" } else { "configs" }
    );
    println!("{name}_floor_s: {floor:.4}");
    println!("{name}_cpps_over_floor: {:.2}", slow.cpps / floor);
    if let Some(span) = slow.config_span_s {
        // The first fan-out answer ends its first round; each later round adds an RTT.
        println!("{name}_config_round_trips: {:.1}", span / rtt_s + 1.0);
    }
    println!(
        "{name}_config_round_trips_ideal: {}",
        floor_trips.saturating_sub(3)
    );
    // Without churn a site's sweep opens at most the bound: the list round's four connections
    // return to the pool for the fan-out, the others are opened during the list round; a few
    // more when a connect the pool started for a waiting request loses to a connection coming
    // back (the loser is kept idle, not closed).
    let connection_bound = plain.concurrency + 5;
    let connections = plain
        .cpps_connections
        .max(slow.cpps_connections)
        .unwrap_or(0);
    println!(
        "target {base} cpps >= 12x faster than proxmoxer: {}",
        verdict(plain.proxmoxer / plain.cpps >= 12.0)
    );
    println!(
        "target {base} cpps CPU per request <= 1/10 of proxmoxer's: {}",
        verdict(plain.cpps_cpu_per_request * 10.0 <= plain.proxmoxer_cpu_per_request)
    );
    println!(
        "target {name} cpps >= 35x faster than proxmoxer: {}",
        verdict(slow.proxmoxer / slow.cpps >= 35.0)
    );
    println!(
        "target {name} cpps <= 1.2x the bounded floor ({floor:.4} s): {}",
        verdict(slow.cpps <= 1.2 * floor)
    );
    println!(
        "target {base} connections opened per site ({connections}) <= concurrency + 5 ({connection_bound}): {}",
        verdict(connections <= connection_bound)
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_need_a_unit() {
        assert_eq!(parse_duration("20ms"), Ok(Duration::from_millis(20)));
        assert_eq!(parse_duration("0.5s"), Ok(Duration::from_millis(500)));
        assert!(parse_duration("20").is_err());
        assert!(parse_duration("-1s").is_err());
    }

    #[test]
    fn the_access_log_counts_connections_resumptions_and_the_config_span() {
        let log = "7 . 1700000000.100 8006 /api2/json/nodes\n\
                   8 r 1700000000.101 8006 /api2/json/cluster/resources?type=vm\n\
                   7 . 1700000000.130 8006 /api2/json/nodes/a/lxc/101/config?current=1\n\
                   9 r 1700000000.150 8006 /api2/json/nodes/a/lxc/102/config\n\
                   11 . 1700000000.160 8007 /api2/json/nodes/a/status\n";
        let view = ServerView::parse(log).unwrap();
        assert_eq!(view.requests, 5);
        assert_eq!(view.connections, 4);
        assert_eq!(view.most_per_port, 3);
        assert_eq!(view.resumed, 2);
        // Node statuses belong to the fan-out round too.
        assert!((view.config_span_s - 0.030).abs() < 1e-6, "{view:?}");
        assert!((view.last_s - 1_700_000_000.160).abs() < 1e-6, "{view:?}");
        assert!(ServerView::parse("7 . notatime 8006 /x\n").is_err());
        assert!(ServerView::parse("7 . 1700000000.1 /x\n").is_err());
    }

    #[test]
    fn the_floor_is_two_handshake_trips_the_lists_and_the_config_rounds() {
        let sweep = |configs: usize, bound: usize| Floor::of(4 + configs, 0, false, bound);
        // Issue 36's example: 300 configs, 64 connections: 2 + 1 + 5.
        assert_eq!(sweep(300, 64).round_trips(), 8);
        assert_eq!(sweep(224, 64).round_trips(), 7);
        assert_eq!(sweep(256, 64).round_trips(), 7);
        assert_eq!(sweep(0, 64).round_trips(), 3);
        assert_eq!(sweep(5, 0).round_trips(), 8);
    }

    #[test]
    fn the_access_log_counts_task_logs_apart() {
        // A task log is read once its node's task list has come: a round of its own.
        let log = "7 . 1700000000.100 8006 /api2/json/nodes/a/tasks?typefilter=vzdump\n\
                   7 . 1700000000.120 8006 /api2/json/nodes/a/tasks/UPID:a:1:2:3:vzdump::root@pam:/log?start=0\n\
                   8 . 1700000000.130 8007 /api2/json/storage\n";
        let view = ServerView::parse(log).unwrap();
        assert_eq!(view.requests, 3);
        assert_eq!(view.task_logs, 1);
    }

    #[test]
    fn the_audit_floor_puts_the_chain_in_the_list_and_fan_out_rounds() {
        // One site of the bench's estate: 4 lists and the chain's storages and jobs, then 13
        // statuses, 224 configs and the chain's pool, 13 task lists and 13 rights reads.
        let floor = Floor::of(270, 0, true, 64);
        assert_eq!((floor.list, floor.fan_out, floor.task_logs), (6, 264, 0));
        assert_eq!(floor.round_trips(), 2 + 1 + 5);
        // Task logs wait for their lists, in the fan-out's free slots: 264 + 4 still fit in 5
        // rounds, 264 + 60 do not.
        let floor = Floor::of(274, 4, true, 64);
        assert_eq!((floor.fan_out, floor.round_trips()), (264, 8));
        assert_eq!(Floor::of(330, 60, true, 64).round_trips(), 9);
        // A fan-out of one round still leaves the logs a round of their own.
        assert_eq!(Floor::of(12, 2, true, 64).round_trips(), 5);
        // The inventory sweep: its four lists, then the configs.
        let floor = Floor::of(228, 0, false, 64);
        assert_eq!(
            (floor.list, floor.fan_out, floor.round_trips()),
            (4, 224, 7)
        );
    }

    #[test]
    fn the_exit_lag_counts_from_the_answers_arrival() {
        let run = |exit_s: f64, last_s: f64| Run {
            seconds: 0.1,
            process_wall_s: 0.2,
            process_cpu_s: 0.05,
            exit_s,
            guests: 1,
            requests: 1,
            concurrency: None,
            server: Some(ServerView {
                last_s,
                ..ServerView::default()
            }),
            server_cpu_s: None,
            link_cpu_s: None,
        };
        let runs = [
            run(100.030, 100.0),
            run(200.012, 200.0),
            run(300.050, 300.0),
        ];
        let lag = exit_lag_s(&runs, Duration::from_millis(10)).unwrap();
        assert!((lag - 0.020).abs() < 1e-6, "{lag}");
        let no_view = Run {
            server: None,
            ..run(1.0, 0.0)
        };
        assert_eq!(exit_lag_s(&[no_view], Duration::from_millis(10)), None);
    }

    #[test]
    fn the_cpu_floor_shares_both_ends_cpu_over_the_cores() {
        let run = |wall: f64, client: f64, server: Option<f64>, link: Option<f64>| Run {
            seconds: wall,
            process_wall_s: wall,
            process_cpu_s: client,
            exit_s: 0.0,
            guests: 1,
            requests: 1,
            concurrency: None,
            server: None,
            server_cpu_s: server,
            link_cpu_s: link,
        };
        let runs = [
            run(0.030, 0.030, Some(0.020), Some(0.0)),
            run(0.040, 0.030, Some(0.004), Some(0.006)),
            run(0.026, 0.028, Some(0.024), Some(0.0)),
        ];
        let floor = CpuFloor::of(&runs, 2).unwrap();
        // Floors 0.025, 0.020, 0.026; walls over them 1.2, 2.0, 1.0.
        assert!((floor.floor_s - 0.025).abs() < 1e-9, "{floor:?}");
        assert!((floor.wall_over_floor - 1.2).abs() < 1e-9, "{floor:?}");
        assert!((floor.client_cpu_s - 0.030).abs() < 1e-9, "{floor:?}");
        assert!((floor.server_cpu_s - 0.020).abs() < 1e-9, "{floor:?}");
        assert!(floor.link_cpu_s.abs() < 1e-9, "{floor:?}");
        // One run without the server's CPU: no floor, rather than one from the others.
        let partial = [runs[0].clone(), run(0.03, 0.03, None, Some(0.0))];
        assert_eq!(CpuFloor::of(&partial, 2), None);
        assert_eq!(CpuFloor::of(&[], 2), None);
    }

    #[test]
    fn a_server_that_ignores_term_is_stopped_all_the_same() {
        // fakepve inherits the TERM that `bench_link::clean_up_on_signals` blocks in xtask.
        let mut child = Command::new("bash")
            .args(["-c", "trap '' TERM; exec sleep 30"])
            .spawn()
            .unwrap();
        let dir = std::env::temp_dir().join(format!("stop-pid-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let pid_file = dir.join("server.pid");
        std::fs::write(&pid_file, child.id().to_string()).unwrap();
        std::thread::sleep(Duration::from_millis(100));
        stop_pid(&pid_file);
        std::thread::sleep(Duration::from_millis(100));
        let stopped = child.try_wait().unwrap().is_some();
        let _ = child.kill();
        let _ = child.wait();
        let _ = std::fs::remove_dir_all(&dir);
        assert!(stopped, "the server outlived stop_pid");
        assert!(!pid_file.exists());
    }

    #[test]
    fn the_median_is_the_middle_sample() {
        assert!((median(vec![3.0, 1.0, 2.0]) - 2.0).abs() < f64::EPSILON);
    }
}
