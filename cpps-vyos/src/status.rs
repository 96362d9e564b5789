//! Typed readings of operational `show` output, for the inter-site view: WireGuard peers and
//! their handshakes ([`Client::wireguard_summary`]), VRRP groups ([`Client::vrrp_status`]), the
//! BGP summary ([`Client::bgp_summary`]), IPsec SAs and connections ([`Client::ipsec_sas`],
//! [`Client::ipsec_connections`]) and the reachability of an address from the route and
//! neighbour tables ([`route`], [`Client::reachability`]).
//!
//! Sources: vyos-1x `op-mode-definitions/show-interfaces-wireguard.xml.in` (`show interfaces
//! wireguard NAME` runs `interfaces.py show`, which prints `ip addr show` and counters and no
//! peer; `... NAME summary` prints the peers: `sudo wg show NAME` on `sagitta`, wireguard-tools
//! `src/show.c` `pretty_print`, and `interfaces_wireguard.py show_summary` on `current`,
//! `WireGuardOperational.show_interface` of `python/vyos/ifconfig/wireguard.py`),
//! `python/vyos/ifconfig/vrrp.py` (`VRRP.format`: a `tabulate` table with the headers `Name`,
//! `Interface`, `VRID`, `State`, `Priority`, `Last Transition`), FRRouting `bgpd/bgp_vty.c`
//! (`bgp_show_summary`, see [`bgp`]) and vyos-1x `src/op_mode/ipsec.py` (see [`ipsec`]).
//!
//! A router without BGP or IPsec is not an error: [`Client::bgp_summary`] and
//! [`Client::ipsec_sas`] answer `None` when the router says so in its own words (FRR's `% BGP
//! instance not found`, `ipsec.py`'s `IPsec not initialized`, the latter only while the
//! configuration has no `vpn ipsec`: with it, the words mean charon is down, an error); text
//! that is neither that nor
//! the table is [`Error::UnexpectedAnswer`], never an empty (healthy-looking) list. Every
//! parser reads its text in one pass and never panics.

pub mod bgp;
pub mod ipsec;
pub mod route;
mod table;

pub use bgp::{
    BgpFamilySummary, BgpNeighbor, BgpState, BgpSummary, PrefixCount, parse_bgp_summary,
};
pub use ipsec::{IpsecConnection, IpsecSa, IpsecState, parse_ipsec_connections, parse_ipsec_sas};
pub use route::{
    Neighbour, ReachPath, Reachability, RouteEntry, RouteNexthop, Trace, TraceHop,
    parse_neighbours, parse_route_detail, parse_trace,
};

use std::time::Duration;

use crate::client::Client;
use crate::error::Error;

/// Which program printed a WireGuard reading: the two routers' `show interfaces wireguard NAME
/// summary` differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum WireGuardPrinter {
    /// wireguard-tools `wg show NAME` (`src/show.c` `pretty_print`): VyOS 1.4 (`sagitta`) and
    /// 1.5 builds before vyos-1x commit c6062ef1 (T4833). Peers by public key, `peer:` at
    /// column 0, attributes two spaces in, no peer names and no `status`.
    WgShow,
    /// VyOS's own table (vyos-1x `python/vyos/ifconfig/wireguard.py`
    /// `WireGuardOperational.show_interface`, printed by `src/op_mode/interfaces_wireguard.py`
    /// `show_summary` on `current`): `  peer: NAME` two spaces in, attributes four.
    VyosTable,
}

/// One WireGuard interface as `show interfaces wireguard NAME summary` prints it.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct WireGuardStatus {
    /// `interface: wg0`.
    pub interface: String,
    /// `listening port`.
    pub listen_port: Option<u16>,
    /// The interface's own `public key` (both printers show it; the configuration holds only
    /// the private key), which the other end's peer must hold.
    pub public_key: Option<String>,
    /// The peers with live state.
    pub peers: Vec<WireGuardPeerStatus>,
    /// Which printer wrote the text; `None` when it printed no peer (both print the interface
    /// lines alike).
    pub printer: Option<WireGuardPrinter>,
}

/// One peer.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct WireGuardPeerStatus {
    /// The peer's name in the configuration (`peer: franca`). Empty when `wg show` printed the
    /// peer (it knows only keys) and no configuration named it ([`WireGuardStatus::name_peers`]).
    pub name: String,
    /// `public key` (VyOS's table) or the key after `peer:` (`wg show`).
    pub public_key: Option<String>,
    /// Time since the latest handshake; `None`: no handshake ever (neither printer then prints
    /// `latest handshake`), or a text that tells no age ([`Self::latest_handshake_printed`]).
    pub latest_handshake: Option<Duration>,
    /// `latest handshake` as printed (`0:01:05`, `1 minute, 5 seconds ago`, `Now`, or `wg`'s
    /// "(System clock wound backward; …)"); `None`: the line was not printed (no handshake ever).
    pub latest_handshake_printed: Option<String>,
    /// `status: active|inactive` (VyOS's table only; active: a handshake in the last five
    /// minutes); `None` when not printed. Unknown words are kept.
    pub status: Option<String>,
    /// `endpoint`.
    pub endpoint: Option<String>,
    /// `allowed ips` (`wg show`'s `(none)` is an empty list).
    pub allowed_ips: Vec<String>,
    /// Bytes received, from `transfer: X received, Y sent` (rounded by the printer: VyOS to
    /// whole `KB`/`MB`…, `wg` to two decimals of `KiB`/`MiB`…); `None` when not printed (no
    /// byte either way).
    pub rx_bytes: Option<u64>,
    /// Bytes sent.
    pub tx_bytes: Option<u64>,
}

impl WireGuardPeerStatus {
    /// Whether the peer shook hands within `limit`. A peer that never did, or whose handshake
    /// age cannot be read, is not healthy.
    pub fn handshake_within(&self, limit: Duration) -> bool {
        self.latest_handshake.is_some_and(|d| d <= limit)
    }
}

impl WireGuardStatus {
    /// Names the peers that `wg show` printed by key only, from the configured peers of this
    /// interface (`configured`: [`crate::ConfigTree::wireguard`]); a key no configured peer
    /// holds stays unnamed.
    pub fn name_peers(&mut self, configured: &[crate::config::views::WireGuardInterface]) {
        let Some(iface) = configured.iter().find(|i| i.name == self.interface) else {
            return;
        };
        for peer in self.peers.iter_mut().filter(|p| p.name.is_empty()) {
            let Some(key) = peer.public_key.as_deref() else {
                continue;
            };
            if let Some(c) = iface
                .peers
                .iter()
                .find(|c| c.public_key.as_deref() == Some(key))
            {
                peer.name.clone_from(&c.name);
            }
        }
    }
}

/// Python's `str(timedelta)`: `0:01:05`, `1 day, 2:03:04`, `3 days, 0:00:09`.
fn parse_timedelta(s: &str) -> Option<Duration> {
    let (days, clock) = match s.split_once(", ") {
        Some((d, c)) => (d.split_whitespace().next()?.parse::<u64>().ok()?, c),
        None => (0, s),
    };
    let mut parts = clock.trim().split(':');
    let h: u64 = parts.next()?.parse().ok()?;
    let m: u64 = parts.next()?.parse().ok()?;
    let sec: f64 = parts.next()?.parse().ok()?;
    if !sec.is_finite() || sec < 0.0 {
        return None;
    }
    let whole = days
        .checked_mul(86_400)?
        .checked_add(h.checked_mul(3_600)?)?
        .checked_add(m.checked_mul(60)?)?;
    Some(Duration::from_secs(whole) + Duration::try_from_secs_f64(sec).ok()?)
}

/// wireguard-tools `src/show.c` `ago`: `Now`, or `pretty_time` (`N year(s)`, `day(s)`,
/// `hour(s)`, `minute(s)`, `second(s)`, the non-zero ones joined by `, `; a year is 365 days)
/// and ` ago`.
fn parse_wg_ago(s: &str) -> Option<Duration> {
    if s == "Now" {
        return Some(Duration::ZERO);
    }
    let mut secs: u64 = 0;
    for part in s.strip_suffix(" ago")?.split(", ") {
        let (n, unit) = part.split_once(' ')?;
        let n: u64 = n.parse().ok()?;
        let unit: u64 = match unit.trim_end_matches('s') {
            "year" => 365 * 86_400,
            "day" => 86_400,
            "hour" => 3_600,
            "minute" => 60,
            "second" => 1,
            _ => return None,
        };
        secs = secs.checked_add(n.checked_mul(unit)?)?;
    }
    Some(Duration::from_secs(secs))
}

/// A transfer amount as either printer writes it: VyOS's `hurry.filesize.size(n,
/// system=alternative)` (`123 bytes`, `1 byte`, `4 KB`, `1 MB`: whole numbers of 1024s) or
/// wireguard-tools `src/show.c` `bytes` (`%u B` below 1024, else `%.2f` `KiB`/`MiB`/`GiB`/`TiB`).
fn parse_size(s: &str) -> Option<u64> {
    let mut it = s.split_whitespace();
    let number = it.next()?;
    let unit: u64 = match it.next()? {
        "B" | "byte" | "bytes" => 1,
        "KB" | "KiB" => 1 << 10,
        "MB" | "MiB" => 1 << 20,
        "GB" | "GiB" => 1 << 30,
        "TB" | "TiB" => 1 << 40,
        "PB" => 1 << 50,
        _ => return None,
    };
    if let Ok(n) = number.parse::<u64>() {
        return n.checked_mul(unit);
    }
    let f: f64 = number.parse().ok()?;
    let bytes = (f * unit as f64).round();
    // 2^64 is exact as an f64; at or above it (or NaN, or negative) no byte count is meant.
    let limit = 2f64.powi(64);
    (bytes.is_finite() && (0.0..limit).contains(&bytes)).then_some(bytes as u64)
}

/// The line without terminal colour codes (`ESC [ … letter`): wireguard-tools
/// `src/terminal.c` writes them when `WG_COLOR_MODE=always`, and drops them otherwise.
fn without_colours(line: &str) -> std::borrow::Cow<'_, str> {
    if !line.contains('\u{1b}') {
        return std::borrow::Cow::Borrowed(line);
    }
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c != '\u{1b}' {
            out.push(c);
            continue;
        }
        for d in chars.by_ref() {
            if d.is_ascii_alphabetic() {
                break;
            }
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Sets one peer attribute from `key: value`.
fn peer_attribute(peer: &mut WireGuardPeerStatus, key: &str, value: &str) {
    match key {
        "public key" => peer.public_key = Some(value.to_owned()),
        "latest handshake" => {
            peer.latest_handshake = parse_wg_ago(value).or_else(|| parse_timedelta(value));
            peer.latest_handshake_printed = Some(value.to_owned());
        }
        "status" => peer.status = Some(value.to_owned()),
        "endpoint" => peer.endpoint = Some(value.to_owned()),
        "allowed ips" if value == "(none)" => peer.allowed_ips.clear(),
        "allowed ips" => {
            peer.allowed_ips = value.split(", ").map(str::to_owned).collect();
        }
        "transfer" => {
            if let Some((rx, tx)) = value.split_once(" received, ") {
                peer.rx_bytes = parse_size(rx);
                peer.tx_bytes = parse_size(tx.trim_end_matches(" sent"));
            }
        }
        _ => {}
    }
}

/// Reads the text of `show interfaces wireguard NAME summary` as either printer writes it
/// ([`WireGuardPrinter`]; one interface or several one after the other). Lines it does not know
/// are skipped; a peer is never invented. `show interfaces wireguard NAME` (`interfaces.py
/// show`: `ip addr show` and counters) holds no peer and reads as no interface.
pub fn parse_wireguard(text: &str) -> Vec<WireGuardStatus> {
    let mut out: Vec<WireGuardStatus> = Vec::new();
    for raw in text.lines() {
        let line = without_colours(raw);
        let indent = line.len() - line.trim_start_matches(' ').len();
        let Some((key, value)) = line.trim().split_once(": ") else {
            continue;
        };
        let value = value.trim();
        if indent == 0 && key == "interface" {
            out.push(WireGuardStatus {
                interface: value.to_owned(),
                ..WireGuardStatus::default()
            });
            continue;
        }
        let Some(iface) = out.last_mut() else {
            continue;
        };
        // `wg show` prints `peer: KEY` at column 0, VyOS `  peer: NAME` two spaces in.
        let (printer, name, public_key) = match (indent, key, iface.printer) {
            (0, "peer", None | Some(WireGuardPrinter::WgShow)) => {
                (WireGuardPrinter::WgShow, "", Some(value.to_owned()))
            }
            (2, "peer", None | Some(WireGuardPrinter::VyosTable)) => {
                (WireGuardPrinter::VyosTable, value, None)
            }
            _ => {
                let attribute_indent = match iface.printer {
                    Some(WireGuardPrinter::WgShow) => 2,
                    _ => 4,
                };
                match iface.peers.last_mut() {
                    Some(peer) if indent == attribute_indent => {
                        peer_attribute(peer, key, value);
                    }
                    None if indent == 2 && key == "listening port" => {
                        iface.listen_port = value.parse().ok();
                    }
                    None if indent == 2 && key == "public key" => {
                        iface.public_key = Some(value.to_owned());
                    }
                    _ => {}
                }
                continue;
            }
        };
        iface.printer = Some(printer);
        iface.peers.push(WireGuardPeerStatus {
            name: name.to_owned(),
            public_key,
            ..WireGuardPeerStatus::default()
        });
    }
    out
}

/// One VRRP group as `show vrrp` prints it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct VrrpStatus {
    /// `Name`.
    pub group: String,
    /// `Interface`.
    pub interface: String,
    /// `VRID`.
    pub vrid: Option<u8>,
    /// `State`.
    pub state: VrrpState,
    /// `Priority`.
    pub priority: Option<u8>,
    /// `Last Transition` as printed (`1h2m3s`, VyOS's `seconds_to_human`).
    pub last_transition: String,
}

/// A VRRP state (keepalived's, decoded by `VRRP.decode_state`).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum VrrpState {
    /// `MASTER`.
    Master,
    /// `BACKUP`.
    Backup,
    /// `FAULT`.
    Fault,
    /// `INIT`.
    Init,
    /// Anything else (a disabled group, a new keepalived state), as printed.
    Unknown(String),
}

impl VrrpState {
    fn parse(s: &str) -> Self {
        match s {
            "MASTER" => Self::Master,
            "BACKUP" => Self::Backup,
            "FAULT" => Self::Fault,
            "INIT" => Self::Init,
            other => Self::Unknown(other.to_owned()),
        }
    }
}

/// What `vrrp.py` prints when no group is configured (vyos-1x `src/op_mode/vrrp.py`, exit 0).
const VRRP_NOT_CONFIGURED: &str = "VRRP not configured!";
/// What `vrrp.py` prints when groups are configured but keepalived is down (exit 0).
const VRRP_NOT_RUNNING: &str = "VRRP is not running";

/// Reads `show vrrp`: a `tabulate` "simple" table whose second line is dashes marking each
/// column's extent. Returns an empty list for text without that table; [`Client::vrrp_status`]
/// tells "not configured" from "not running" and from other text.
pub fn parse_vrrp(text: &str) -> Vec<VrrpStatus> {
    vrrp_table(text).unwrap_or_default()
}

/// The rows of the `show vrrp` table; `None` when the text holds no table.
fn vrrp_table(text: &str) -> Option<Vec<VrrpStatus>> {
    let lines: Vec<&str> = text.lines().collect();
    let dash_at = lines
        .iter()
        .position(|l| !l.trim().is_empty() && l.trim().chars().all(|c| c == '-' || c == ' '))?;
    // Column extents from the runs of dashes.
    let dashes = lines[dash_at].as_bytes();
    let mut cols = Vec::new();
    let mut i = 0;
    while i < dashes.len() {
        if dashes[i] == b'-' {
            let start = i;
            while i < dashes.len() && dashes[i] == b'-' {
                i += 1;
            }
            cols.push((start, i));
        } else {
            i += 1;
        }
    }
    if cols.len() < 6 {
        return None;
    }
    let cell = |line: &str, (a, b): (usize, usize)| -> String {
        let end = b.min(line.len());
        line.get(a.min(end)..end).unwrap_or("").trim().to_owned()
    };
    let rows = lines[dash_at + 1..]
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            // The last column may run past its dashes.
            let last = (cols[5].0, l.len().max(cols[5].1));
            VrrpStatus {
                group: cell(l, cols[0]),
                interface: cell(l, cols[1]),
                vrid: cell(l, cols[2]).parse().ok(),
                state: VrrpState::parse(&cell(l, cols[3])),
                priority: cell(l, cols[4]).parse().ok(),
                last_transition: cell(l, last),
            }
        })
        .collect();
    Some(rows)
}

impl Client {
    /// `POST /show` `interfaces wireguard NAME summary`, the command that prints the peers
    /// (vyos-1x `op-mode-definitions/show-interfaces-wireguard.xml.in`: `sudo wg show NAME` on
    /// `sagitta`, `interfaces_wireguard.py show_summary` on `current`), read by
    /// [`parse_wireguard`]. Peers that `wg show` printed by key only are named from the
    /// configuration (`POST /retrieve` `showConfig`, [`WireGuardStatus::name_peers`]), so both
    /// versions answer the same names.
    ///
    /// # Errors
    /// As [`Client::show`] and [`Client::config_tree`]; [`Error::UnexpectedAnswer`] when the
    /// text holds no interface.
    pub async fn wireguard_summary(&self, interface: &str) -> Result<WireGuardStatus, Error> {
        let text = self
            .show(&["interfaces", "wireguard", interface, "summary"])
            .await?;
        let mut status =
            parse_wireguard(&text)
                .into_iter()
                .next()
                .ok_or_else(|| Error::UnexpectedAnswer {
                    endpoint: "show",
                    message: format!(
                        "`show interfaces wireguard {interface} summary` printed no interface"
                    ),
                })?;
        if status.peers.iter().any(|p| p.name.is_empty()) {
            status.name_peers(&self.config_tree().await?.wireguard()?);
        }
        Ok(status)
    }

    /// `POST /show` `interfaces wireguard NAME`, read by [`parse_wireguard`].
    ///
    /// On real routers this command runs `interfaces.py show` (`ip addr show` and counters),
    /// which prints no peers, so the answer is [`Error::UnexpectedAnswer`]: use
    /// [`Client::wireguard_summary`]. Kept for callers written against older releases.
    ///
    /// # Errors
    /// As [`Client::show`]; [`Error::UnexpectedAnswer`] when the text holds no interface.
    pub async fn wireguard_status(&self, interface: &str) -> Result<WireGuardStatus, Error> {
        let text = self.show(&["interfaces", "wireguard", interface]).await?;
        parse_wireguard(&text)
            .into_iter()
            .next()
            .ok_or_else(|| Error::UnexpectedAnswer {
                endpoint: "show",
                message: format!("`show interfaces wireguard {interface}` printed no interface"),
            })
    }

    /// `POST /show` `vrrp`, read by [`parse_vrrp`]. An empty list: no group is configured
    /// (`VRRP not configured!`, vyos-1x `src/op_mode/vrrp.py`).
    ///
    /// # Errors
    /// As [`Client::show`]; [`Error::UnexpectedAnswer`] when VRRP is configured but not running
    /// (`VRRP is not running`: keepalived is down, so no group's state is known, which is never
    /// "no groups") and when the text is neither the table nor `VRRP not configured!`.
    pub async fn vrrp_status(&self) -> Result<Vec<VrrpStatus>, Error> {
        let text = self.show(&["vrrp"]).await?;
        let says = |words: &str| text.lines().any(|l| l.trim() == words);
        if says(VRRP_NOT_CONFIGURED) {
            return Ok(Vec::new());
        }
        let message = if says(VRRP_NOT_RUNNING) {
            "`show vrrp`: VRRP is not running (groups are configured but keepalived is down): their states are unknown".to_owned()
        } else if let Some(rows) = vrrp_table(&text) {
            return Ok(rows);
        } else {
            format!("`show vrrp` printed neither a VRRP table nor `{VRRP_NOT_CONFIGURED}`")
        };
        Err(Error::UnexpectedAnswer {
            endpoint: "show",
            message,
        })
    }

    /// `POST /show` `bgp summary` (every address family), read by [`parse_bgp_summary`].
    /// `None`: no BGP instance (FRR's `% BGP instance not found`, as text or as the refused
    /// command's message).
    ///
    /// # Errors
    /// As [`Client::show`]; [`Error::UnexpectedAnswer`] when the text is no summary.
    pub async fn bgp_summary(&self) -> Result<Option<BgpSummary>, Error> {
        self.show_unless(
            &["bgp", "summary"],
            (bgp::NO_BGP_INSTANCE, None),
            "a BGP summary",
            parse_bgp_summary,
        )
        .await
    }

    /// `POST /show` `vpn ipsec sa`, read by [`parse_ipsec_sas`]. `None`: IPsec is not
    /// configured: the router says `IPsec not initialized` and its configuration has no
    /// `vpn ipsec`. vyos-1x `python/vyos/ipsec.py` prints those words whenever strongSwan's
    /// VICI socket cannot be opened, so with `vpn ipsec` configured they mean charon is down
    /// or does not answer, which is an error: the tunnels' states cannot be told.
    ///
    /// # Errors
    /// As [`Client::show`]; [`Error::UnexpectedAnswer`] when the text is no SA table;
    /// [`Error::Api`] (the refused command) or [`Error::UnexpectedAnswer`] (the words as text)
    /// when `IPsec not initialized` comes while `vpn ipsec` is configured, or while
    /// [`Client::exists`] cannot tell whether it is.
    pub async fn ipsec_sas(&self) -> Result<Option<Vec<IpsecSa>>, Error> {
        self.show_unless(
            &["vpn", "ipsec", "sa"],
            (ipsec::IPSEC_NOT_INITIALIZED, Some(ipsec::IPSEC_CONFIG)),
            "an SA table",
            parse_ipsec_sas,
        )
        .await
    }

    /// `POST /show` `vpn ipsec connections`, read by [`parse_ipsec_connections`]: every
    /// configured connection and tunnel, also those without an SA. `None`: IPsec is not
    /// configured.
    ///
    /// # Errors
    /// As [`Client::ipsec_sas`].
    pub async fn ipsec_connections(&self) -> Result<Option<Vec<IpsecConnection>>, Error> {
        self.show_unless(
            &["vpn", "ipsec", "connections"],
            (ipsec::IPSEC_NOT_INITIALIZED, Some(ipsec::IPSEC_CONFIG)),
            "a connection table",
            parse_ipsec_connections,
        )
        .await
    }

    /// `POST /show` `PATH`, read by `parse`. `None` when the subsystem is not configured: a line
    /// of the text is `not_configured`, or of the message of the refused command (an op-mode
    /// script that exits non-zero is answered 400 by the API: vyos-1x
    /// `python/vyos/configsession.py` `__run_command`), and, when a `config` path is given, the
    /// configuration has no such node ([`Client::subsystem_down`]). Text that `parse` cannot
    /// read (it is not `expected`) is [`Error::UnexpectedAnswer`].
    async fn show_unless<T>(
        &self,
        path: &[&str],
        (not_configured, config): (&str, Option<&[&str]>),
        expected: &str,
        parse: impl FnOnce(&str) -> Option<T>,
    ) -> Result<Option<T>, Error> {
        let says = |text: &str| text.lines().any(|l| l.trim() == not_configured);
        let (said, status) = match self.show(path).await {
            Ok(text) if says(&text) => (text, None),
            Ok(text) => {
                return parse(&text)
                    .map(Some)
                    .ok_or_else(|| Error::UnexpectedAnswer {
                        endpoint: "show",
                        message: format!(
                            "`show {}` printed neither {expected} nor `{not_configured}`",
                            path.join(" ")
                        ),
                    });
            }
            Err(Error::Api {
                status, message, ..
            }) if says(&message) => (message, Some(status)),
            Err(e) => return Err(e),
        };
        match config {
            None => Ok(None),
            Some(config) => match self.subsystem_down(path, config, said.trim()).await {
                None => Ok(None),
                Some(message) => Err(match status {
                    Some(status) => Error::Api {
                        endpoint: "show",
                        status,
                        message,
                    },
                    None => Error::UnexpectedAnswer {
                        endpoint: "show",
                        message,
                    },
                }),
            },
        }
    }

    /// Why words that say "not configured" (`said`, the answer to `show PATH`) cannot be taken
    /// as such: the configuration has `config` (the daemon is down or does not answer), or
    /// whether it has cannot be read. `None` when the configuration has no `config`.
    async fn subsystem_down(&self, path: &[&str], config: &[&str], said: &str) -> Option<String> {
        let show = path.join(" ");
        let node = config.join(" ");
        match self.exists(config).await {
            Ok(false) => None,
            Ok(true) => Some(format!(
                "`show {show}` says {said:?} while `{node}` is configured: strongSwan (charon) \
                 is down or does not answer (vyos-1x `python/vyos/ipsec.py` says so whenever its \
                 VICI socket cannot be opened); the tunnels' states cannot be told"
            )),
            Err(e) => Some(format!(
                "`show {show}` says {said:?}, and whether `{node}` is configured could not be \
                 read ({e}): strongSwan may be down; the tunnels' states cannot be told"
            )),
        }
    }
}
