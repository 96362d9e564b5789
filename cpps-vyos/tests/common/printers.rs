//! Text written by the routers' own printers, rule for rule, so fixtures are produced by the
//! printing code's logic rather than typed by hand. Each function names the code it follows.

/// One WireGuard peer's live state, as the kernel holds it (`wg show NAME dump`).
#[derive(Clone, Debug)]
pub struct LivePeer {
    /// The peer's name in the configuration (only VyOS's table prints it).
    pub name: String,
    pub public_key: String,
    pub preshared_key: bool,
    pub endpoint: Option<String>,
    pub allowed_ips: Vec<String>,
    /// Seconds since the latest handshake; `None`: never (the kernel's 0).
    pub handshake_ago: Option<u64>,
    pub rx: u64,
    pub tx: u64,
    pub keepalive: Option<u16>,
}

/// One WireGuard interface's live state.
#[derive(Clone, Debug)]
pub struct LiveInterface {
    pub name: String,
    pub public_key: String,
    pub listen_port: u16,
    pub description: Option<String>,
    pub addresses: Vec<String>,
    pub peers: Vec<LivePeer>,
}

/// wireguard-tools `src/show.c` `pretty_time`: the non-zero parts of years (365 days), days,
/// hours, minutes and seconds, each `N unit` with an `s` unless N is 1, joined by `, `.
pub fn wg_pretty_time(mut left: u64) -> String {
    let mut parts = Vec::new();
    for (size, unit) in [
        (365 * 86_400, "year"),
        (86_400, "day"),
        (3_600, "hour"),
        (60, "minute"),
        (1, "second"),
    ] {
        let n = left / size;
        left %= size;
        if n > 0 {
            parts.push(format!("{n} {unit}{}", if n == 1 { "" } else { "s" }));
        }
    }
    parts.join(", ")
}

/// wireguard-tools `src/show.c` `ago`: `Now` for the current second, else `pretty_time` and
/// ` ago`.
pub fn wg_ago(secs: u64) -> String {
    if secs == 0 {
        "Now".to_owned()
    } else {
        format!("{} ago", wg_pretty_time(secs))
    }
}

/// wireguard-tools `src/show.c` `bytes`: `%u B` below 1024, else `%.2f` of the largest of
/// KiB, MiB, GiB that keeps the number under 1024 (TiB above).
pub fn wg_bytes(b: u64) -> String {
    const K: u64 = 1024;
    if b < K {
        format!("{b} B")
    } else if b < K * K {
        format!("{:.2} KiB", b as f64 / 1024.0)
    } else if b < K * K * K {
        format!("{:.2} MiB", b as f64 / (1024.0 * 1024.0))
    } else if b < K * K * K * K {
        format!("{:.2} GiB", b as f64 / (1024.0 * 1024.0 * 1024.0))
    } else {
        format!("{:.2} TiB", b as f64 / (1024.0 * 1024.0 * 1024.0) / 1024.0)
    }
}

/// wireguard-tools `src/show.c` `pretty_print` with colours off (`src/terminal.c`
/// `filter_ansi`: stdout is no terminal under the API): the interface lines, a blank line when
/// there are peers, then each peer (sorted by `peer_cmp`: latest handshake first, those that
/// never shook hands last) with its attributes two spaces in and a blank line between peers.
/// Keys are `(hidden)` (`masked_key`, `WG_HIDE_KEYS` unset).
pub fn wg_show(iface: &LiveInterface) -> String {
    let mut out = format!("interface: {}\n", iface.name);
    out += &format!("  public key: {}\n", iface.public_key);
    out += "  private key: (hidden)\n";
    out += &format!("  listening port: {}\n", iface.listen_port);
    let mut peers = iface.peers.clone();
    peers.sort_by_key(|p| p.handshake_ago.unwrap_or(u64::MAX));
    if !peers.is_empty() {
        out += "\n";
    }
    for (i, p) in peers.iter().enumerate() {
        out += &format!("peer: {}\n", p.public_key);
        if p.preshared_key {
            out += "  preshared key: (hidden)\n";
        }
        if let Some(e) = &p.endpoint {
            out += &format!("  endpoint: {e}\n");
        }
        if p.allowed_ips.is_empty() {
            out += "  allowed ips: (none)\n";
        } else {
            out += &format!("  allowed ips: {}\n", p.allowed_ips.join(", "));
        }
        if let Some(s) = p.handshake_ago {
            out += &format!("  latest handshake: {}\n", wg_ago(s));
        }
        if p.rx > 0 || p.tx > 0 {
            out += &format!(
                "  transfer: {} received, {} sent\n",
                wg_bytes(p.rx),
                wg_bytes(p.tx)
            );
        }
        if let Some(k) = p.keepalive {
            out += &format!(
                "  persistent keepalive: every {}\n",
                wg_pretty_time(k.into())
            );
        }
        if i + 1 < peers.len() {
            out += "\n";
        }
    }
    out
}

/// Python's `str(datetime.timedelta(seconds=n))`: `H:MM:SS`, after `1 day, ` or `N days, `.
pub fn py_timedelta(secs: u64) -> String {
    let (days, rest) = (secs / 86_400, secs % 86_400);
    let clock = format!("{}:{:02}:{:02}", rest / 3_600, rest % 3_600 / 60, rest % 60);
    match days {
        0 => clock,
        1 => format!("1 day, {clock}"),
        d => format!("{d} days, {clock}"),
    }
}

/// `hurry.filesize.size(n, system=alternative)`: the largest of PB, TB, GB, MB, KB (1024s) not
/// above `n`, the whole number `int(n / factor)`, else `byte`/`bytes`.
pub fn hurry_alternative(n: u64) -> String {
    for (factor, suffix) in [
        (1u64 << 50, "PB"),
        (1 << 40, "TB"),
        (1 << 30, "GB"),
        (1 << 20, "MB"),
        (1 << 10, "KB"),
    ] {
        if n >= factor {
            return format!("{} {suffix}", n / factor);
        }
    }
    format!("{n} {}", if n == 1 { "byte" } else { "bytes" })
}

/// vyos-1x (`current`) `python/vyos/ifconfig/wireguard.py` `WireGuardOperational.show_interface`,
/// as `src/op_mode/interfaces_wireguard.py` `show_summary` returns it and `print` writes it (one
/// more newline). Peers in configuration order, each that the kernel knows; `latest handshake`
/// and `status` only after a handshake; `transfer` only when a byte moved; a blank line after
/// every configured peer.
pub fn vyos_show_interface(iface: &LiveInterface) -> String {
    let mut out = format!("interface: {}\n", iface.name);
    if let Some(d) = &iface.description {
        out += &format!("  description: {d}\n");
    }
    if !iface.addresses.is_empty() {
        out += &format!("  address: {}\n", iface.addresses.join(", "));
    }
    out += &format!("  public key: {}\n", iface.public_key);
    out += "  private key: (hidden)\n";
    out += &format!("  listening port: {}\n", iface.listen_port);
    out += "\n";
    for p in &iface.peers {
        out += &format!("  peer: {}\n", p.name);
        out += &format!("    public key: {}\n", p.public_key);
        if let Some(s) = p.handshake_ago {
            out += &format!("    latest handshake: {}\n", py_timedelta(s));
            let status = if s < 300 { "active" } else { "inactive" };
            out += &format!("    status: {status}\n");
        }
        if let Some(e) = &p.endpoint {
            out += &format!("    endpoint: {e}\n");
        }
        out += &format!("    allowed ips: {}\n", p.allowed_ips.join(", "));
        if p.rx > 0 || p.tx > 0 {
            out += &format!(
                "    transfer: {} received, {} sent\n",
                hurry_alternative(p.rx),
                hurry_alternative(p.tx)
            );
        }
        if let Some(k) = p.keepalive {
            out += &format!("    persistent keepalive: every {k} seconds\n");
        }
        out += "\n";
    }
    out + "\n"
}

/// The live state the fake routers report for the peers of `wg0` in
/// `dialup-router-medium-vpn.config.boot` (VyOS's test configuration), by peer name: red shook
/// hands 40 s ago, blue an hour ago (1 h 2 min 3 s), pink two days ago, green never.
pub fn live_state(name: &str) -> (Option<u64>, u64, u64) {
    match name {
        "red" => (Some(40), 1_536, 3 * (1 << 20) + 5_000),
        "blue" => (Some(3_723), 700, 0),
        "pink" => (Some(2 * 86_400 + 5), 5 << 30, 1 << 30),
        _ => (None, 0, 0),
    }
}
