//! Typed readings of operational `show` output, for the inter-site view: WireGuard peers and
//! their handshakes ([`Client::wireguard_status`]), VRRP groups ([`Client::vrrp_status`]), the
//! BGP summary ([`Client::bgp_summary`]) and IPsec SAs and connections ([`Client::ipsec_sas`],
//! [`Client::ipsec_connections`]).
//!
//! Sources: vyos-1x (`sagitta`) `op-mode-definitions/show-interfaces-wireguard.xml.in` (`show
//! interfaces wireguard NAME` runs `interfaces.py show`, which prints
//! `WireGuardOperational.show_interface` of `python/vyos/ifconfig/wireguard.py`),
//! `python/vyos/ifconfig/vrrp.py` (`VRRP.format`: a `tabulate` table with the headers `Name`,
//! `Interface`, `VRID`, `State`, `Priority`, `Last Transition`), FRRouting `bgpd/bgp_vty.c`
//! (`bgp_show_summary`, see [`bgp`]) and vyos-1x `src/op_mode/ipsec.py` (see [`ipsec`]).
//!
//! A router without BGP or IPsec is not an error: [`Client::bgp_summary`] and
//! [`Client::ipsec_sas`] answer `None` when the router says so in its own words (FRR's `% BGP
//! instance not found`, `ipsec.py`'s `IPsec not initialized`); text that is neither that nor
//! the table is [`Error::UnexpectedAnswer`], never an empty (healthy-looking) list. Every
//! parser reads its text in one pass and never panics.

pub mod bgp;
pub mod ipsec;
mod table;

pub use bgp::{
    BgpFamilySummary, BgpNeighbor, BgpState, BgpSummary, PrefixCount, parse_bgp_summary,
};
pub use ipsec::{IpsecConnection, IpsecSa, IpsecState, parse_ipsec_connections, parse_ipsec_sas};

use std::time::Duration;

use crate::client::Client;
use crate::error::Error;

/// One WireGuard interface as `show interfaces wireguard NAME` prints it.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct WireGuardStatus {
    /// `interface: wg0`.
    pub interface: String,
    /// `listening port`.
    pub listen_port: Option<u16>,
    /// The peers with live state.
    pub peers: Vec<WireGuardPeerStatus>,
}

/// One peer.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct WireGuardPeerStatus {
    /// The peer's name in the configuration (`peer: franca`).
    pub name: String,
    /// `public key`.
    pub public_key: Option<String>,
    /// Time since the latest handshake; `None`: no handshake ever (VyOS then prints neither
    /// `latest handshake` nor `status`).
    pub latest_handshake: Option<Duration>,
    /// `status: active|inactive` (active: a handshake in the last five minutes); `None` when
    /// not printed (no handshake ever). Unknown words are kept.
    pub status: Option<String>,
    /// `endpoint`.
    pub endpoint: Option<String>,
    /// `allowed ips`.
    pub allowed_ips: Vec<String>,
    /// Bytes received, from `transfer: X received, Y sent` (VyOS rounds to its unit: `1 MB`).
    pub rx_bytes: Option<u64>,
    /// Bytes sent.
    pub tx_bytes: Option<u64>,
}

impl WireGuardPeerStatus {
    /// Whether the peer shook hands within `limit`. A peer that never did is not healthy.
    pub fn handshake_within(&self, limit: Duration) -> bool {
        self.latest_handshake.is_some_and(|d| d <= limit)
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
    Some(Duration::from_secs(days * 86_400 + h * 3_600 + m * 60) + Duration::from_secs_f64(sec))
}

/// `hurry.filesize.size(n, system=alternative)`: `123 bytes`, `1 byte`, `4 KB`, `1 MB`, … (1024s).
fn parse_size(s: &str) -> Option<u64> {
    let mut it = s.split_whitespace();
    let n: u64 = it.next()?.parse().ok()?;
    let unit = match it.next()? {
        "byte" | "bytes" => 1,
        "KB" => 1 << 10,
        "MB" => 1 << 20,
        "GB" => 1 << 30,
        "TB" => 1 << 40,
        "PB" => 1 << 50,
        _ => return None,
    };
    n.checked_mul(unit)
}

/// Reads the text of `show interfaces wireguard NAME` (one interface or several one after the
/// other). Lines it does not know are skipped; a peer is never invented.
pub fn parse_wireguard(text: &str) -> Vec<WireGuardStatus> {
    let mut out: Vec<WireGuardStatus> = Vec::new();
    for line in text.lines() {
        let trimmed = line.trim();
        let Some((key, value)) = trimmed.split_once(": ") else {
            continue;
        };
        let value = value.trim();
        if key == "interface" && !line.starts_with(' ') {
            out.push(WireGuardStatus {
                interface: value.to_owned(),
                ..WireGuardStatus::default()
            });
            continue;
        }
        let Some(iface) = out.last_mut() else {
            continue;
        };
        let indent = line.len() - line.trim_start().len();
        if key == "peer" {
            iface.peers.push(WireGuardPeerStatus {
                name: value.to_owned(),
                ..WireGuardPeerStatus::default()
            });
            continue;
        }
        if indent < 4 || iface.peers.is_empty() {
            if key == "listening port" {
                iface.listen_port = value.parse().ok();
            }
            continue;
        }
        let Some(peer) = iface.peers.last_mut() else {
            continue;
        };
        match key {
            "public key" => peer.public_key = Some(value.to_owned()),
            "latest handshake" => peer.latest_handshake = parse_timedelta(value),
            "status" => peer.status = Some(value.to_owned()),
            "endpoint" => peer.endpoint = Some(value.to_owned()),
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

/// Reads `show vrrp`: a `tabulate` "simple" table whose second line is dashes marking each
/// column's extent. Returns an empty list for text without that table ("VRRP is not
/// configured").
pub fn parse_vrrp(text: &str) -> Vec<VrrpStatus> {
    let lines: Vec<&str> = text.lines().collect();
    let Some(dash_at) = lines
        .iter()
        .position(|l| !l.trim().is_empty() && l.trim().chars().all(|c| c == '-' || c == ' '))
    else {
        return Vec::new();
    };
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
        return Vec::new();
    }
    let cell = |line: &str, (a, b): (usize, usize)| -> String {
        let end = b.min(line.len());
        line.get(a.min(end)..end).unwrap_or("").trim().to_owned()
    };
    lines[dash_at + 1..]
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
        .collect()
}

impl Client {
    /// `POST /show` `interfaces wireguard NAME`, read by [`parse_wireguard`].
    ///
    /// # Errors
    /// As [`Client::show`].
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

    /// `POST /show` `vrrp`, read by [`parse_vrrp`].
    ///
    /// # Errors
    /// As [`Client::show`].
    pub async fn vrrp_status(&self) -> Result<Vec<VrrpStatus>, Error> {
        Ok(parse_vrrp(&self.show(&["vrrp"]).await?))
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
            bgp::NO_BGP_INSTANCE,
            "a BGP summary",
            parse_bgp_summary,
        )
        .await
    }

    /// `POST /show` `vpn ipsec sa`, read by [`parse_ipsec_sas`]. `None`: IPsec is not
    /// configured (`IPsec not initialized`).
    ///
    /// # Errors
    /// As [`Client::show`]; [`Error::UnexpectedAnswer`] when the text is no SA table.
    pub async fn ipsec_sas(&self) -> Result<Option<Vec<IpsecSa>>, Error> {
        self.show_unless(
            &["vpn", "ipsec", "sa"],
            ipsec::IPSEC_NOT_INITIALIZED,
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
            ipsec::IPSEC_NOT_INITIALIZED,
            "a connection table",
            parse_ipsec_connections,
        )
        .await
    }

    /// `POST /show` `PATH`, read by `parse`. `None` when the subsystem is not configured: a line
    /// of the text is `not_configured`, or of the message of the refused command (an op-mode
    /// script that exits non-zero is answered 400 by the API: vyos-1x
    /// `python/vyos/configsession.py` `__run_command`). Text that `parse` cannot read (it is not
    /// `expected`) is [`Error::UnexpectedAnswer`].
    async fn show_unless<T>(
        &self,
        path: &[&str],
        not_configured: &str,
        expected: &str,
        parse: impl FnOnce(&str) -> Option<T>,
    ) -> Result<Option<T>, Error> {
        let says = |text: &str| text.lines().any(|l| l.trim() == not_configured);
        let text = match self.show(path).await {
            Ok(text) if says(&text) => return Ok(None),
            Ok(text) => text,
            Err(Error::Api { message, .. }) if says(&message) => return Ok(None),
            Err(e) => return Err(e),
        };
        parse(&text)
            .map(Some)
            .ok_or_else(|| Error::UnexpectedAnswer {
                endpoint: "show",
                message: format!(
                    "`show {}` printed neither {expected} nor `{not_configured}`",
                    path.join(" ")
                ),
            })
    }
}
