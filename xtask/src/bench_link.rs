//! A link that holds every frame for a fixed delay, like netem, for `cargo xtask bench sweep`:
//! two network namespaces (the clients' and the server's), each with a TAP device on one /30,
//! and a relay in this process that copies each Ethernet frame from one TAP to the other once
//! it has been held `delay`. Every TCP segment, ACK and handshake packet crosses the relay, so
//! a round trip costs 2 × `delay`, as on a WAN. This kernel has no qdiscs (no netem) and no
//! netfilter queue, hence user space.
//!
//! The addresses are private ones inside namespaces this module creates and deletes; nothing
//! leaves them. Needs root and `/dev/net/tun`; [`Link::up`] says plainly when either is missing.

// The TAP device (`TUNSETIFF`), entering a namespace (`setns`) and a timed wait (`ppoll`) are
// system calls that std does not wrap; each unsafe block is one call on a file this module owns.
#![allow(unsafe_code)]

use std::collections::VecDeque;
use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::OpenOptionsExt;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

/// The server's address on the link (its first lane).
pub(crate) const SERVER_ADDRESS: &str = "10.77.0.2";

/// The server's address on lane `lane` of a link of several ([`Link::up_lanes`]): lane 0 is
/// [`SERVER_ADDRESS`], lane 1 `10.77.1.2`, and so on.
pub(crate) fn server_address(lane: usize) -> String {
    format!("10.77.{lane}.2")
}

fn client_address(lane: usize) -> String {
    format!("10.77.{lane}.1")
}
/// Namespaces of this module are named `PREFIX<pid><c|s>`: the pid finds those a killed run
/// left behind.
const PREFIX: &str = "cppsb";
/// The longest a relay thread waits before looking at its stop flag.
const STOP_CHECK: Duration = Duration::from_millis(50);

/// What a Ctrl-C (or a `kill`) of this process must not leave behind: the namespaces of a link
/// (with every process in them) and processes that ignore the terminal's signal (fakepve, started
/// in the background by a shell, ignores SIGINT).
#[derive(Debug, Default)]
struct Leftovers {
    namespaces: Vec<String>,
    pid_files: Vec<std::path::PathBuf>,
}

static LEFTOVERS: Mutex<Leftovers> = Mutex::new(Leftovers {
    namespaces: Vec::new(),
    pid_files: Vec::new(),
});

/// From now on SIGINT, SIGTERM and SIGHUP end this process only after cleaning up what was
/// registered (`Drop` does not run on a signal). The signals are blocked in this thread and in
/// the threads it starts later, and taken by a thread of their own; child processes start with
/// no signal blocked (std resets the mask when it spawns).
pub(crate) fn clean_up_on_signals() {
    // SAFETY: sigset_t is plain data, filled by sigemptyset before use.
    let mut set: libc::sigset_t = unsafe { std::mem::zeroed() };
    // SAFETY: valid sigset pointers; pthread_sigmask changes this thread's mask only.
    unsafe {
        libc::sigemptyset(&raw mut set);
        for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            libc::sigaddset(&raw mut set, signal);
        }
        libc::pthread_sigmask(libc::SIG_BLOCK, &raw const set, std::ptr::null_mut());
    }
    std::thread::spawn(move || {
        let mut signal = 0;
        // SAFETY: a valid, initialised set and a valid out pointer.
        if unsafe { libc::sigwait(&raw const set, &raw mut signal) } != 0 {
            return;
        }
        let leftovers = std::mem::take(&mut *LEFTOVERS.lock().unwrap_or_else(|e| e.into_inner()));
        for pid_file in &leftovers.pid_files {
            if let Ok(pid) = std::fs::read_to_string(pid_file) {
                let _ = Command::new("kill").arg(pid.trim()).status();
            }
        }
        for namespace in &leftovers.namespaces {
            delete_namespace(namespace);
        }
        eprintln!("xtask: stopped by signal {signal}; cleaned up");
        std::process::exit(128 + signal);
    });
}

/// Registers a pid file whose process a signal must stop (see [`clean_up_on_signals`]).
pub(crate) fn kill_on_signal(pid_file: &std::path::Path, register: bool) {
    let mut leftovers = LEFTOVERS.lock().unwrap_or_else(|e| e.into_inner());
    leftovers.pid_files.retain(|p| p != pid_file);
    if register {
        leftovers.pid_files.push(pid_file.to_path_buf());
    }
}

fn delete_on_signal(namespace: &str, register: bool) {
    let mut leftovers = LEFTOVERS.lock().unwrap_or_else(|e| e.into_inner());
    leftovers.namespaces.retain(|n| n != namespace);
    if register {
        leftovers.namespaces.push(namespace.to_owned());
    }
}

/// Frames held for a fixed delay, released in arrival order: what one direction of the link
/// does, without the network (so that it is tested alone).
#[derive(Debug)]
pub(crate) struct DelayLine {
    delay: Duration,
    held: VecDeque<(Instant, Vec<u8>)>,
}

impl DelayLine {
    pub(crate) fn new(delay: Duration) -> DelayLine {
        DelayLine {
            delay,
            held: VecDeque::new(),
        }
    }

    /// Holds `frame`, which arrived at `now`. It is released `delay` later, and never before a
    /// frame that arrived earlier (a clock read out of order must not reorder a TCP stream).
    pub(crate) fn push(&mut self, now: Instant, frame: Vec<u8>) {
        let mut release = now + self.delay;
        if let Some((last, _)) = self.held.back() {
            release = release.max(*last);
        }
        self.held.push_back((release, frame));
    }

    /// The oldest frame whose time has come at `now`.
    pub(crate) fn pop_due(&mut self, now: Instant) -> Option<Vec<u8>> {
        match self.held.front() {
            Some((release, _)) if *release <= now => self.held.pop_front().map(|(_, f)| f),
            _ => None,
        }
    }

    /// How long from `now` until the next release; `None` when nothing is held.
    pub(crate) fn wait(&self, now: Instant) -> Option<Duration> {
        self.held
            .front()
            .map(|(release, _)| release.saturating_duration_since(now))
    }
}

/// The link: two namespaces joined by the relay. Dropping it stops the relay, kills every
/// process still in the namespaces and deletes them.
#[derive(Debug)]
pub(crate) struct Link {
    /// The clients' namespace (`ip netns exec` it).
    pub(crate) client_ns: String,
    /// The server's namespace.
    pub(crate) server_ns: String,
    stop: Arc<AtomicBool>,
    relays: Vec<JoinHandle<()>>,
}

/// Why the link cannot be built on this machine, or `None` when it can be tried.
pub(crate) fn unavailable() -> Option<String> {
    // SAFETY: geteuid has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        return Some("the per-segment link needs root (network namespaces, TAP devices)".into());
    }
    if let Err(e) = OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/net/tun")
    {
        return Some(format!("the per-segment link needs /dev/net/tun: {e}"));
    }
    let ip = Command::new("ip")
        .args(["netns", "list"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    if !ip.is_ok_and(|s| s.success()) {
        return Some("the per-segment link needs `ip netns` (iproute2)".into());
    }
    None
}

impl Link {
    /// Creates the namespaces, the TAP devices and their addresses, and starts the relay, which
    /// holds each frame `delay` in each direction.
    pub(crate) fn up(delay: Duration) -> Result<Link> {
        Link::up_lanes(&[delay])
    }

    /// A link of several lanes between the same two namespaces, lane `i` holding each frame
    /// `delays[i]` each way: a TAP pair of its own on `10.77.i.0/30`, so that the clients reach
    /// the servers at [`server_address`]`(i)` with that lane's delay (two sites at different
    /// distances from one client).
    pub(crate) fn up_lanes(delays: &[Duration]) -> Result<Link> {
        if delays.is_empty() || delays.len() > 9 {
            bail!("a link has 1 to 9 lanes");
        }
        if let Some(why) = unavailable() {
            bail!("{why}");
        }
        remove_stale();
        let pid = std::process::id();
        let mut link = Link {
            client_ns: format!("{PREFIX}{pid}c"),
            server_ns: format!("{PREFIX}{pid}s"),
            stop: Arc::new(AtomicBool::new(false)),
            relays: Vec::new(),
        };
        // From here on, dropping `link` deletes what was made, whatever step fails.
        delete_on_signal(&link.client_ns, true);
        delete_on_signal(&link.server_ns, true);
        ip(&["netns", "add", &link.client_ns])?;
        ip(&["netns", "add", &link.server_ns])?;
        for (lane, delay) in delays.iter().copied().enumerate() {
            // Lane 0's devices are named as their namespaces, the others get the lane's digit.
            let name = |ns: &str| match lane {
                0 => ns.to_owned(),
                _ => format!("{ns}{lane}"),
            };
            let client_tap = tap_in(
                &link.client_ns,
                &name(&link.client_ns),
                &client_address(lane),
            )?;
            let server_tap = tap_in(
                &link.server_ns,
                &name(&link.server_ns),
                &server_address(lane),
            )?;
            let client_tap = Arc::new(client_tap);
            let server_tap = Arc::new(server_tap);
            for (from, to) in [
                (client_tap.clone(), server_tap.clone()),
                (server_tap, client_tap),
            ] {
                let stop = link.stop.clone();
                link.relays.push(
                    std::thread::Builder::new()
                        .name("link-relay".into())
                        .spawn(move || relay(&from, &to, delay, &stop))?,
                );
            }
        }
        Ok(link)
    }

    /// Runs `f` in a thread inside `namespace` (its sockets are that namespace's).
    pub(crate) fn in_namespace<T: Send + 'static>(
        namespace: &str,
        f: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T> {
        let path = format!("/var/run/netns/{namespace}");
        let handle = File::open(&path).with_context(|| format!("opening {path}"))?;
        std::thread::spawn(move || -> Result<T> {
            // SAFETY: a valid namespace file descriptor; setns changes this thread only.
            let rc = unsafe { libc::setns(handle.as_raw_fd(), libc::CLONE_NEWNET) };
            if rc != 0 {
                bail!("setns: {}", std::io::Error::last_os_error());
            }
            Ok(f())
        })
        .join()
        .map_err(|_| anyhow::anyhow!("a thread in {namespace} panicked"))?
    }
}

impl Link {
    /// Serves `address:port` in the server namespace by forwarding each connection to
    /// `127.0.0.1:upstream` of this process's namespace, for servers that bind 127.0.0.1 only
    /// (fakepve, Prism, kube-apiserver, the audit's fakes). The forwarding adds no delay: every
    /// segment of the client's connection crosses the link, the server's side is loopback.
    pub(crate) fn forward(&self, address: &str, port: u16, upstream: u16) -> Result<()> {
        let bind = (address.to_owned(), port);
        let listener = Link::in_namespace(&self.server_ns, move || {
            std::net::TcpListener::bind((bind.0.as_str(), bind.1))
        })?
        .with_context(|| format!("binding {address}:{port} in the server namespace"))?;
        std::thread::Builder::new()
            .name("link-forward".into())
            .spawn(move || {
                for client in listener.incoming().flatten() {
                    let _ = std::thread::Builder::new()
                        .name("link-forward".into())
                        .spawn(move || splice(client, upstream));
                }
            })?;
        Ok(())
    }
}

/// Copies `client` to `127.0.0.1:upstream` and back until both sides have closed.
fn splice(client: std::net::TcpStream, upstream: u16) {
    let Ok(server) = std::net::TcpStream::connect(("127.0.0.1", upstream)) else {
        return;
    };
    let _ = client.set_nodelay(true);
    let _ = server.set_nodelay(true);
    let (Ok(mut client_read), Ok(mut server_read)) = (client.try_clone(), server.try_clone())
    else {
        return;
    };
    let (mut client_write, mut server_write) = (client, server);
    let up = std::thread::spawn(move || {
        let _ = std::io::copy(&mut client_read, &mut server_write);
        let _ = server_write.shutdown(std::net::Shutdown::Write);
    });
    let _ = std::io::copy(&mut server_read, &mut client_write);
    let _ = client_write.shutdown(std::net::Shutdown::Write);
    let _ = up.join();
}

impl Drop for Link {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for relay in self.relays.drain(..) {
            let _ = relay.join();
        }
        for namespace in [&self.client_ns, &self.server_ns] {
            delete_namespace(namespace);
            delete_on_signal(namespace, false);
        }
    }
}

/// Kills what still runs in `namespace`, then deletes it.
fn delete_namespace(namespace: &str) {
    if let Ok(out) = Command::new("ip")
        .args(["netns", "pids", namespace])
        .output()
    {
        for pid in String::from_utf8_lossy(&out.stdout).split_whitespace() {
            let _ = Command::new("kill").args(["-KILL", pid]).status();
        }
    }
    let _ = Command::new("ip")
        .args(["netns", "del", namespace])
        .stderr(Stdio::null())
        .status();
}

/// Deletes the namespaces of earlier runs whose process is gone (killed before it could).
fn remove_stale() {
    let Ok(out) = Command::new("ip").args(["netns", "list"]).output() else {
        return;
    };
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let name = line.split_whitespace().next().unwrap_or_default();
        if let Some(pid) = stale_owner(name)
            && !std::path::Path::new(&format!("/proc/{pid}")).exists()
        {
            delete_namespace(name);
        }
    }
}

/// The pid in a namespace name of this module (`cppsb123c` → 123).
fn stale_owner(name: &str) -> Option<u32> {
    let rest = name.strip_prefix(PREFIX)?;
    let digits = rest.strip_suffix('c').or_else(|| rest.strip_suffix('s'))?;
    digits.parse().ok()
}

fn ip(args: &[&str]) -> Result<()> {
    let out = Command::new("ip").args(args).output()?;
    if !out.status.success() {
        bail!(
            "ip {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(())
}

/// A TAP device `name`, moved into `namespace` with `address`/30, up. The returned file stays
/// attached to the device across the move.
fn tap_in(namespace: &str, name: &str, address: &str) -> Result<File> {
    let tap = open_tap(name)?;
    ip(&["link", "set", name, "netns", namespace])?;
    ip(&["-n", namespace, "link", "set", "lo", "up"])?;
    ip(&[
        "-n",
        namespace,
        "addr",
        "add",
        &format!("{address}/30"),
        "dev",
        name,
    ])?;
    ip(&["-n", namespace, "link", "set", name, "up"])?;
    Ok(tap)
}

/// Opens `/dev/net/tun` as a new TAP device `name` (Ethernet frames, no packet-info header),
/// non-blocking.
fn open_tap(name: &str) -> Result<File> {
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_NONBLOCK)
        .open("/dev/net/tun")
        .context("opening /dev/net/tun")?;
    // struct ifreq: the name (IFNAMSIZ = 16 bytes, NUL-terminated), then the flags (a short).
    let mut request = [0u8; 40];
    if name.len() >= 16 {
        bail!("interface name `{name}` is too long");
    }
    request[..name.len()].copy_from_slice(name.as_bytes());
    let flags = (libc::IFF_TAP | libc::IFF_NO_PI) as libc::c_short;
    request[16..18].copy_from_slice(&flags.to_ne_bytes());
    // SAFETY: TUNSETIFF reads and writes one struct ifreq, which `request` is large enough for.
    let rc = unsafe { libc::ioctl(file.as_raw_fd(), libc::TUNSETIFF, request.as_mut_ptr()) };
    if rc != 0 {
        bail!("TUNSETIFF {name}: {}", std::io::Error::last_os_error());
    }
    Ok(file)
}

/// Waits until `file` is readable or `timeout` passes; true when readable.
fn readable(file: &File, timeout: Duration) -> bool {
    let mut poll = libc::pollfd {
        fd: file.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    let spec = libc::timespec {
        tv_sec: timeout.as_secs() as libc::time_t,
        tv_nsec: libc::c_long::from(timeout.subsec_nanos() as i32),
    };
    // SAFETY: one valid pollfd, a valid timespec, no signal mask.
    let rc = unsafe { libc::ppoll(&raw mut poll, 1, &raw const spec, std::ptr::null()) };
    rc > 0 && poll.revents & libc::POLLIN != 0
}

/// One direction of the link: frames read from `from` are written to `to` once held `delay`.
fn relay(from: &File, to: &File, delay: Duration, stop: &AtomicBool) {
    let mut line = DelayLine::new(delay);
    let mut buffer = vec![0u8; 65_536];
    while !stop.load(Ordering::Relaxed) {
        let now = Instant::now();
        while let Some(frame) = line.pop_due(now) {
            // A frame the other side cannot take is lost, as on a wire.
            let _ = (&*to).write(&frame);
        }
        let timeout = line.wait(now).map_or(STOP_CHECK, |w| w.min(STOP_CHECK));
        if !readable(from, timeout) {
            continue;
        }
        // Everything queued now, each stamped as it is read.
        loop {
            match (&*from).read(&mut buffer) {
                Ok(n) if n > 0 => line.push(Instant::now(), buffer[..n].to_vec()),
                _ => break,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn a_frame_is_held_for_the_delay_and_no_longer() {
        let start = Instant::now();
        let mut line = DelayLine::new(10 * MS);
        assert_eq!(line.wait(start), None);
        line.push(start, vec![1]);
        assert_eq!(line.pop_due(start + 9 * MS), None);
        assert_eq!(line.wait(start + 4 * MS), Some(6 * MS));
        assert_eq!(line.pop_due(start + 10 * MS), Some(vec![1]));
        assert_eq!(line.pop_due(start + 20 * MS), None);
        assert_eq!(line.wait(start + 20 * MS), None);
    }

    #[test]
    fn frames_leave_in_arrival_order_each_after_its_own_delay() {
        let start = Instant::now();
        let mut line = DelayLine::new(10 * MS);
        line.push(start, vec![1]);
        line.push(start + 3 * MS, vec![2]);
        line.push(start + 3 * MS, vec![3]);
        assert_eq!(line.pop_due(start + 12 * MS), Some(vec![1]));
        assert_eq!(line.pop_due(start + 12 * MS), None);
        assert_eq!(line.wait(start + 12 * MS), Some(MS));
        assert_eq!(line.pop_due(start + 13 * MS), Some(vec![2]));
        assert_eq!(line.pop_due(start + 13 * MS), Some(vec![3]));
    }

    #[test]
    fn a_clock_read_out_of_order_does_not_reorder_frames() {
        let start = Instant::now();
        let mut line = DelayLine::new(10 * MS);
        line.push(start + 5 * MS, vec![1]);
        // Stamped earlier than the frame before it (two threads' clock reads): still second.
        line.push(start, vec![2]);
        assert_eq!(line.pop_due(start + 10 * MS), None);
        assert_eq!(line.pop_due(start + 15 * MS), Some(vec![1]));
        assert_eq!(line.pop_due(start + 15 * MS), Some(vec![2]));
    }

    #[test]
    fn no_delay_releases_at_once() {
        let start = Instant::now();
        let mut line = DelayLine::new(Duration::ZERO);
        line.push(start, vec![7]);
        assert_eq!(line.wait(start), Some(Duration::ZERO));
        assert_eq!(line.pop_due(start), Some(vec![7]));
    }

    #[test]
    fn namespaces_left_by_a_run_are_known_by_their_pid() {
        assert_eq!(stale_owner("cppsb123c"), Some(123));
        assert_eq!(stale_owner("cppsb123s"), Some(123));
        assert_eq!(stale_owner("cppsb123x"), None);
        assert_eq!(stale_owner("other123c"), None);
        assert_eq!(stale_owner("cppsbc"), None);
    }

    /// The link end to end where it can run: a TCP round trip through it costs at least twice
    /// the delay (handshake excluded), and the namespaces are gone after drop.
    #[test]
    fn a_round_trip_through_the_link_is_held_twice() {
        if let Some(why) = unavailable() {
            eprintln!("skipped: {why}");
            return;
        }
        let delay = 5 * MS;
        let link = Link::up(delay).expect("link up");
        let server_ns = link.server_ns.clone();
        let listener = Link::in_namespace(&link.server_ns, || {
            std::net::TcpListener::bind((SERVER_ADDRESS, 8006))
        })
        .unwrap()
        .expect("bind in the server namespace");
        let echo = std::thread::spawn(move || {
            let (mut socket, _) = listener.accept().expect("accept");
            let mut byte = [0u8; 1];
            socket.read_exact(&mut byte).expect("read");
            socket.write_all(&byte).expect("write");
        });
        let round_trip = Link::in_namespace(&link.client_ns, || -> std::io::Result<Duration> {
            let mut socket = std::net::TcpStream::connect((SERVER_ADDRESS, 8006))?;
            socket.set_nodelay(true)?;
            let sent = Instant::now();
            socket.write_all(&[42])?;
            let mut byte = [0u8; 1];
            socket.read_exact(&mut byte)?;
            assert_eq!(byte, [42]);
            Ok(sent.elapsed())
        })
        .unwrap()
        .expect("a round trip through the link");
        echo.join().unwrap();
        // A lower bound only: the relay may add time on a loaded machine, never remove it.
        assert!(round_trip >= 2 * delay, "{round_trip:?}");
        let client_ns = link.client_ns.clone();
        drop(link);
        let list = Command::new("ip").args(["netns", "list"]).output().unwrap();
        let list = String::from_utf8_lossy(&list.stdout);
        assert!(
            !list.contains(&client_ns) && !list.contains(&server_ns),
            "{list}"
        );
    }
}
