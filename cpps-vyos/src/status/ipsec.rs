//! `show vpn ipsec sa` and `show vpn ipsec connections`: vyos-1x `src/op_mode/ipsec.py`
//! (`show_sa`, `_get_formatted_output_sas`; `show_connections`,
//! `_get_formatted_output_conections`), the same file on `sagitta` (1.4) and `current` (1.5).
//! Both print a `tabulate` "simple" table; when strongSwan's VICI socket cannot be opened
//! (no IPsec configured) the script prints `IPsec not initialized` (`vyos.ipsec.get_vici_sas`
//! raises `ViciInitiateError`, turned into `vyos.opmode.UnconfiguredSubsystem`) and exits 1,
//! which the API answers as a refused command. The socket also fails to open when IPsec is
//! configured and charon is down, so the words mean "not configured" only where the
//! configuration has no `vpn ipsec` (vyos-1x `src/conf_mode/vpn_ipsec.py` runs strongSwan
//! whenever it exists).

use super::table::parse_simple_table;

/// What `ipsec.py` prints when IPsec is not configured.
pub(crate) const IPSEC_NOT_INITIALIZED: &str = "IPsec not initialized";

/// The configuration node whose presence makes VyOS run strongSwan: vyos-1x
/// `src/conf_mode/vpn_ipsec.py` `apply` runs `systemctl reload-or-restart strongswan.service`
/// whenever `get_config` found it, and stops the service only when it is absent.
pub(crate) const IPSEC_CONFIG: &[&str] = &["vpn", "ipsec"];

/// The state of a CHILD_SA or an IKE connection as `ipsec.py` prints it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum IpsecState {
    /// `up`: a CHILD_SA `INSTALLED` (an IKE_SA `ESTABLISHED` in the connections table).
    Up,
    /// `down`: any other strongSwan state, or no SA.
    Down,
    /// Anything else (`N/A`: strongSwan reported no state), as printed. Never taken as up.
    Unknown(String),
}

impl IpsecState {
    fn parse(s: &str) -> Self {
        match s {
            "up" => Self::Up,
            "down" => Self::Down,
            other => Self::Unknown(other.to_owned()),
        }
    }

    /// Whether it is `up`.
    pub fn is_up(&self) -> bool {
        matches!(self, Self::Up)
    }

    /// The state as printed.
    pub fn as_str(&self) -> &str {
        match self {
            Self::Up => "up",
            Self::Down => "down",
            Self::Unknown(s) => s,
        }
    }
}

/// One CHILD_SA of `show vpn ipsec sa` (headers `Connection`, `State`, `Uptime`, `Bytes
/// In/Out`, `Packets In/Out`, `Remote address`, `Remote ID`, `Proposal`).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct IpsecSa {
    /// `Connection`: the CHILD_SA name (`PEER-tunnel-N` for site-to-site peers).
    pub connection: String,
    /// `State`.
    pub state: IpsecState,
    /// `Uptime` as printed (`seconds_to_human`: `1h2m3s`), `None` for `N/A`.
    pub uptime: Option<String>,
    /// `Bytes In/Out` as printed (`hurry.filesize`: `12K/3M`), `None` for `N/A`.
    pub bytes: Option<String>,
    /// `Packets In/Out` as printed, `None` for `N/A`.
    pub packets: Option<String>,
    /// `Remote address`, `None` for `N/A`.
    pub remote_address: Option<String>,
    /// `Remote ID`, `None` for `N/A`.
    pub remote_id: Option<String>,
    /// `Proposal` (`AES_CBC_256/HMAC_SHA2_256_128/MODP_2048`), `None` for `N/A`.
    pub proposal: Option<String>,
}

/// One row of `show vpn ipsec connections`: an IKE connection (`Type` `IKEv1`/`IKEv2`) or one
/// of its tunnels (`Type` `IPsec`).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct IpsecConnection {
    /// `Connection`: the IKE connection (the peer's name) or the tunnel.
    pub name: String,
    /// `State`.
    pub state: IpsecState,
    /// `Type`.
    pub kind: String,
    /// `Remote address` (comma-separated when several).
    pub remote_address: String,
    /// `Local TS` (one selector per entry), empty for `-`.
    pub local_ts: Vec<String>,
    /// `Remote TS`.
    pub remote_ts: Vec<String>,
    /// `Local id`.
    pub local_id: Option<String>,
    /// `Remote id`.
    pub remote_id: Option<String>,
    /// `Proposal`, `None` for `-`.
    pub proposal: Option<String>,
}

impl IpsecConnection {
    /// Whether the row is a tunnel (a CHILD_SA), not the IKE connection.
    pub fn is_tunnel(&self) -> bool {
        self.kind == "IPsec"
    }
}

fn optional(cell: &str, none: &str) -> Option<String> {
    (!cell.is_empty() && cell != none && cell != "None").then(|| cell.to_owned())
}

/// Reads `show vpn ipsec sa`. `None` when the text has no such table (a message such as
/// `IPsec not initialized`); an empty list when strongSwan has no SA.
pub fn parse_ipsec_sas(text: &str) -> Option<Vec<IpsecSa>> {
    let table = parse_simple_table(text, 8)?;
    let col = |name: &str| table.column(name);
    let (Some(conn), Some(state)) = (col("Connection"), col("State")) else {
        return None;
    };
    let at = |row: &[String], c: Option<usize>| -> Option<String> {
        c.and_then(|c| row.get(c))
            .and_then(|cell| optional(cell, "N/A"))
    };
    let (uptime, bytes, packets, addr, id, proposal) = (
        col("Uptime"),
        col("Bytes In/Out"),
        col("Packets In/Out"),
        col("Remote address"),
        col("Remote ID"),
        col("Proposal"),
    );
    Some(
        table
            .rows
            .iter()
            .map(|row| IpsecSa {
                connection: row.get(conn).cloned().unwrap_or_default(),
                state: IpsecState::parse(row.get(state).map_or("", String::as_str)),
                uptime: at(row, uptime),
                bytes: at(row, bytes),
                packets: at(row, packets),
                remote_address: at(row, addr),
                remote_id: at(row, id),
                proposal: at(row, proposal),
            })
            .collect(),
    )
}

/// Reads `show vpn ipsec connections`. `None` when the text has no such table.
pub fn parse_ipsec_connections(text: &str) -> Option<Vec<IpsecConnection>> {
    let table = parse_simple_table(text, 9)?;
    let col = |name: &str| table.column(name);
    let (Some(conn), Some(state), Some(kind)) = (col("Connection"), col("State"), col("Type"))
    else {
        return None;
    };
    let cell = |row: &[String], c: Option<usize>| -> String {
        c.and_then(|c| row.get(c)).cloned().unwrap_or_default()
    };
    let selectors = |s: String| -> Vec<String> {
        if s == "-" || s.is_empty() {
            Vec::new()
        } else {
            s.lines().map(str::to_owned).collect()
        }
    };
    let (addr, lts, rts, lid, rid, proposal) = (
        col("Remote address"),
        col("Local TS"),
        col("Remote TS"),
        col("Local id"),
        col("Remote id"),
        col("Proposal"),
    );
    Some(
        table
            .rows
            .iter()
            .map(|row| IpsecConnection {
                name: cell(row, Some(conn)),
                state: IpsecState::parse(&cell(row, Some(state))),
                kind: cell(row, Some(kind)),
                remote_address: cell(row, addr),
                local_ts: selectors(cell(row, lts)),
                remote_ts: selectors(cell(row, rts)),
                local_id: optional(&cell(row, lid), "-"),
                remote_id: optional(&cell(row, rid), "-"),
                proposal: optional(&cell(row, proposal), "-"),
            })
            .collect(),
    )
}
