//! `show bgp summary` (and `show ip bgp summary`): VyOS runs FRR's `vtysh -c` on it (vyos-1x
//! `op-mode-definitions/include/bgp/afi-common.xml.i`, `src/op_mode/vtysh_wrapper.sh`), so the
//! text is FRR's `bgp_show_summary` (FRRouting `bgpd/bgp_vty.c`).
//!
//! VyOS 1.4 ships FRR 9.1 (vyos-build T5788), 1.5 FRR 10: FRR 9.1 heads each address family with
//! `IPv4 Unicast Summary (VRF default):` and prints `local AS number 65001 vrf-id 0`; FRR 10
//! prints `IPv4 Unicast Summary:` and `local AS number 65001 VRF default vrf-id 0`. Both are read.

use std::time::Duration;

/// The summary of every address family that has neighbors.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct BgpSummary {
    /// One entry per `… Summary` block, in the order printed.
    pub families: Vec<BgpFamilySummary>,
}

impl BgpSummary {
    /// Every neighbor of every family, with its family.
    pub fn neighbors(&self) -> impl Iterator<Item = (&BgpFamilySummary, &BgpNeighbor)> {
        self.families
            .iter()
            .flat_map(|f| f.neighbors.iter().map(move |n| (f, n)))
    }
}

/// One address family's block.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct BgpFamilySummary {
    /// `IPv4 Unicast`, `IPv6 Unicast`, `L2VPN EVPN`, … (FRR's `get_afi_safi_str`).
    pub family: String,
    /// The VRF: from the heading on FRR 9 (`(VRF default)`), from the router-id line on FRR 10
    /// (`VRF default`).
    pub vrf: Option<String>,
    /// `BGP router identifier`.
    pub router_id: Option<String>,
    /// `local AS number` as printed (plain or dotted notation).
    pub local_as: Option<String>,
    /// The neighbors.
    pub neighbors: Vec<BgpNeighbor>,
    /// `Total number of neighbors N`, when printed.
    pub total_neighbors: Option<u32>,
}

/// One neighbor line.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct BgpNeighbor {
    /// The neighbor's address (or interface), without the `*` of a dynamic neighbor and without
    /// the host name FRR may print around it (`host(10.0.0.1)`).
    pub neighbor: String,
    /// The host name, when FRR shows host names.
    pub hostname: Option<String>,
    /// `*`: a dynamic neighbor (from a `bgp listen range`).
    pub dynamic: bool,
    /// The remote AS as printed.
    pub remote_as: String,
    /// `MsgRcvd`.
    pub messages_received: Option<u64>,
    /// `MsgSent`.
    pub messages_sent: Option<u64>,
    /// `Up/Down` as printed (`01:02:03`, `1d02h03m`, `02w3d04h`, `01y02w3d`, `never`).
    pub up_down: String,
    /// `Up/Down` as a duration (FRR's `peer_uptime`): how long the session has been up when
    /// Established, since it went down otherwise; `None` for `never` or an unknown form.
    pub since: Option<Duration>,
    /// The session state.
    pub state: BgpState,
    /// What `State/PfxRcd` says when Established.
    pub prefixes_received: PrefixCount,
    /// What `PfxSnt` says.
    pub prefixes_sent: PrefixCount,
    /// `Desc` (`N/A` when none: `None`).
    pub description: Option<String>,
}

/// A BGP session state (FRR's `bgp_status_msg`, plus the `Idle (…)` forms of the summary).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum BgpState {
    /// A number, `(Policy)` or `NoNeg` in `State/PfxRcd`: the session is up.
    Established,
    /// `Idle`.
    Idle,
    /// `Idle (Admin)`: the neighbor or the instance is shut down.
    IdleAdmin,
    /// `Idle (PfxCt)`: the maximum-prefix limit was exceeded.
    IdlePrefixLimit,
    /// `Connect`.
    Connect,
    /// `Active`.
    Active,
    /// `OpenSent`.
    OpenSent,
    /// `OpenConfirm`.
    OpenConfirm,
    /// `Clearing`.
    Clearing,
    /// `Deleted`.
    Deleted,
    /// Anything else, as printed (never taken as up).
    Unknown(String),
}

impl BgpState {
    /// Whether the session is Established.
    pub fn is_established(&self) -> bool {
        matches!(self, Self::Established)
    }

    /// The state as FRR prints it (`Established` for the counts).
    pub fn as_str(&self) -> &str {
        match self {
            Self::Established => "Established",
            Self::Idle => "Idle",
            Self::IdleAdmin => "Idle (Admin)",
            Self::IdlePrefixLimit => "Idle (PfxCt)",
            Self::Connect => "Connect",
            Self::Active => "Active",
            Self::OpenSent => "OpenSent",
            Self::OpenConfirm => "OpenConfirm",
            Self::Clearing => "Clearing",
            Self::Deleted => "Deleted",
            Self::Unknown(s) => s,
        }
    }
}

/// A prefix count column (`State/PfxRcd` of an Established session, `PfxSnt`).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PrefixCount {
    /// A count.
    Count(u64),
    /// `(Policy)`: eBGP without the policy FRR requires (`bgp ebgp-requires-policy`): nothing
    /// is accepted or sent.
    Policy,
    /// `NoNeg`: the family was not negotiated.
    NotNegotiated,
    /// Not applicable: the session is not Established (the count column holds the state).
    None,
    /// Anything else, as printed.
    Unknown(String),
}

impl PrefixCount {
    fn parse(s: &str) -> Self {
        match s {
            "(Policy)" => Self::Policy,
            "NoNeg" => Self::NotNegotiated,
            _ => s
                .parse()
                .map_or_else(|_| Self::Unknown(s.to_owned()), Self::Count),
        }
    }
}

/// FRR's `peer_uptime`: `HH:MM:SS` under a day, `%dd%02dh%02dm` under a week, `%02dw%dd%02dh`
/// under a year, `%02dy%02dw%dd` beyond; `never`.
pub(crate) fn parse_peer_uptime(s: &str) -> Option<Duration> {
    if s.contains(':') {
        let mut it = s.split(':');
        let h: u64 = it.next()?.parse().ok()?;
        let m: u64 = it.next()?.parse().ok()?;
        let sec: u64 = it.next()?.parse().ok()?;
        if it.next().is_some() {
            return None;
        }
        return Some(Duration::from_secs(h * 3600 + m * 60 + sec));
    }
    let mut total: u64 = 0;
    let mut number = String::new();
    let mut units = 0;
    for c in s.chars() {
        if c.is_ascii_digit() {
            number.push(c);
            continue;
        }
        let unit = match c {
            'y' => 365 * 86_400,
            'w' => 7 * 86_400,
            'd' => 86_400,
            'h' => 3600,
            'm' => 60,
            _ => return None,
        };
        let n: u64 = number.parse().ok()?;
        total = total.checked_add(n.checked_mul(unit)?)?;
        number.clear();
        units += 1;
    }
    (number.is_empty() && units > 0).then(|| Duration::from_secs(total))
}

/// The whitespace-separated words of `line` with their byte offsets.
fn words(line: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in line.char_indices() {
        match (c.is_whitespace(), start) {
            (false, None) => start = Some(i),
            (true, Some(s)) => {
                out.push((s, &line[s..i]));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((s, &line[s..]));
    }
    out
}

fn parse_state(words: &[(usize, &str)], at: &mut usize) -> (BgpState, PrefixCount) {
    let Some(&(_, w)) = words.get(*at) else {
        return (BgpState::Unknown(String::new()), PrefixCount::None);
    };
    *at += 1;
    let state = match w {
        "Idle" => match words.get(*at).map(|w| w.1) {
            Some("(Admin)") => {
                *at += 1;
                BgpState::IdleAdmin
            }
            Some("(PfxCt)") => {
                *at += 1;
                BgpState::IdlePrefixLimit
            }
            _ => BgpState::Idle,
        },
        "Connect" => BgpState::Connect,
        "Active" => BgpState::Active,
        "OpenSent" => BgpState::OpenSent,
        "OpenConfirm" => BgpState::OpenConfirm,
        "Clearing" => BgpState::Clearing,
        "Deleted" => BgpState::Deleted,
        "Established" => BgpState::Established,
        "(Policy)" | "NoNeg" => return (BgpState::Established, PrefixCount::parse(w)),
        other if other.bytes().all(|b| b.is_ascii_digit()) => {
            return (BgpState::Established, PrefixCount::parse(other));
        }
        other => BgpState::Unknown(other.to_owned()),
    };
    (state, PrefixCount::None)
}

/// One neighbor line, `wide` when the header has `LocalAS`. `None` when the line has too few
/// columns to be one.
fn parse_neighbor(line: &str, name: Option<&str>, wide: bool) -> Option<BgpNeighbor> {
    let words = words(line);
    let mut at = 0;
    let raw_name = match name {
        Some(n) => n,
        None => {
            at += 1;
            words.first()?.1
        }
    };
    // V, AS, [LocalAS], MsgRcvd, MsgSent, TblVer, InQ, OutQ, Up/Down
    let fixed = if wide { 9 } else { 8 };
    if words.len() < at + fixed + 1 {
        return None;
    }
    let remote_as = words[at + 1].1.to_owned();
    let m = at + if wide { 3 } else { 2 };
    let messages_received = words[m].1.parse().ok();
    let messages_sent = words[m + 1].1.parse().ok();
    let up_down = words[m + 5].1.to_owned();
    at = m + 6;
    let (state, prefixes_received) = parse_state(&words, &mut at);
    let prefixes_sent = match words.get(at) {
        Some(&(_, w)) => {
            at += 1;
            if state.is_established() {
                PrefixCount::parse(w)
            } else {
                // FRR prints `0` after a state.
                PrefixCount::None
            }
        }
        None => PrefixCount::None,
    };
    let description = words
        .get(at)
        .map(|&(offset, _)| line[offset..].trim_end().to_owned())
        .filter(|d| d != "N/A");
    let (dynamic, bare) = match raw_name.strip_prefix('*') {
        Some(rest) => (true, rest),
        None => (false, raw_name),
    };
    let (neighbor, hostname) = match bare.strip_suffix(')').and_then(|b| b.split_once('(')) {
        Some((host, address)) => (address.to_owned(), Some(host.to_owned())),
        None => (bare.to_owned(), None),
    };
    Some(BgpNeighbor {
        neighbor,
        hostname,
        dynamic,
        remote_as,
        messages_received,
        messages_sent,
        since: parse_peer_uptime(&up_down),
        up_down,
        state,
        prefixes_received,
        prefixes_sent,
        description,
    })
}

/// What FRR prints when no BGP instance exists (`bgp_show_summary_vty`).
pub(crate) const NO_BGP_INSTANCE: &str = "% BGP instance not found";

/// Reads the text of `show bgp summary` / `show ip bgp summary`.
///
/// `None` when the text is not a summary: neither a `… Summary` block, nor FRR's `% No BGP
/// neighbors found in …` (BGP configured, no neighbor: an empty summary). Lines it does not
/// know are skipped; a neighbor is never invented.
pub fn parse_bgp_summary(text: &str) -> Option<BgpSummary> {
    let mut summary = BgpSummary::default();
    let mut recognized = false;
    // Inside a neighbor table, with whether it is the wide form.
    let mut table: Option<bool> = None;
    // A neighbor name printed alone on its line (older FRR wraps long names).
    let mut pending: Option<String> = None;
    for line in text.lines() {
        let trimmed = line.trim();
        if let Some(heading) = trimmed
            .strip_suffix(':')
            .filter(|_| !line.starts_with(' '))
            .and_then(|h| {
                h.strip_suffix(')')
                    .and_then(|h| h.split_once(" Summary ("))
                    .map(|(f, v)| (f, Some(v)))
                    .or_else(|| h.strip_suffix(" Summary").map(|f| (f, None)))
            })
        {
            recognized = true;
            table = None;
            summary.families.push(BgpFamilySummary {
                family: heading.0.to_owned(),
                vrf: heading.1.map(|v| v.trim_start_matches("VRF ").to_owned()),
                ..BgpFamilySummary::default()
            });
            continue;
        }
        if trimmed.starts_with("% No BGP neighbors found") {
            recognized = true;
            continue;
        }
        if let Some(rest) = trimmed.strip_prefix("BGP router identifier ") {
            recognized = true;
            if summary.families.is_empty() {
                summary.families.push(BgpFamilySummary::default());
            }
            let Some(family) = summary.families.last_mut() else {
                continue;
            };
            let (id, rest) = rest.split_once(", local AS number ").unwrap_or((rest, ""));
            family.router_id = Some(id.to_owned());
            let mut it = rest.split_whitespace();
            family.local_as = it.next().map(str::to_owned);
            // FRR 10: `VRF default vrf-id 0`; FRR 9: `vrf-id 0`.
            if let (Some("VRF"), Some(name)) = (it.next(), it.next())
                && family.vrf.is_none()
            {
                family.vrf = Some(name.to_owned());
            }
            continue;
        }
        if trimmed.starts_with("Neighbor ") && trimmed.contains("Up/Down") {
            table = Some(trimmed.contains("LocalAS"));
            continue;
        }
        if let Some(n) = trimmed.strip_prefix("Total number of neighbors ") {
            table = None;
            if let Some(family) = summary.families.last_mut() {
                family.total_neighbors = n.trim().parse().ok();
            }
            continue;
        }
        let Some(wide) = table else {
            continue;
        };
        if trimmed.is_empty() {
            table = None;
            pending = None;
            continue;
        }
        let starts_blank = line.starts_with(char::is_whitespace);
        if !starts_blank && !trimmed.contains(char::is_whitespace) {
            pending = Some(trimmed.to_owned());
            continue;
        }
        let name = pending.take();
        let name = name.as_deref().filter(|_| starts_blank);
        if let (Some(neighbor), Some(family)) = (
            parse_neighbor(line, name, wide),
            summary.families.last_mut(),
        ) {
            family.neighbors.push(neighbor);
        }
    }
    recognized.then_some(summary)
}

/// A BGP neighbor of the configuration: `protocols bgp neighbor NAME`, or `vrf name VRF
/// protocols bgp neighbor NAME` (vyos-1x `protocols_bgp.xml.in`, `vrf.xml.in`).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ConfiguredBgpNeighbor {
    /// The VRF; `None`: the default one.
    pub vrf: Option<String>,
    /// The neighbor as configured: an address or an interface.
    pub neighbor: String,
    /// Whether an address family is activated for it: VyOS writes `no bgp default
    /// ipv4-unicast` and `neighbor X activate` only under an `address-family` of the neighbor or
    /// of its peer group (vyos-1x `data/templates/frr/bgpd.frr.j2`), and FRR's
    /// `bgp_show_summary_afi_safi` prints only families with a peer, so only such a neighbor is
    /// in the summary.
    pub activated: bool,
}

impl ConfiguredBgpNeighbor {
    /// Whether the summary's `printed` name is this neighbor: addresses compared as addresses
    /// (FRR prints them in canonical form), anything else (an interface) as text.
    pub fn is(&self, printed: &str) -> bool {
        match (
            self.neighbor.parse::<std::net::IpAddr>(),
            printed.parse::<std::net::IpAddr>(),
        ) {
            (Ok(a), Ok(b)) => a == b,
            _ => self.neighbor == printed,
        }
    }
}

/// Every BGP neighbor of `tree`: the default VRF's first, then each VRF's, in file order.
pub fn configured_bgp_neighbors(tree: &crate::ConfigTree) -> Vec<ConfiguredBgpNeighbor> {
    let mut out = neighbors_of(&tree.root, &["protocols", "bgp"], None);
    for (vrf, branch) in tree.root.entries(&["vrf", "name"]) {
        out.extend(neighbors_of(branch, &["protocols", "bgp"], Some(vrf)));
    }
    out
}

fn neighbors_of(
    root: &crate::config::Branch,
    bgp: &[&str],
    vrf: Option<&str>,
) -> Vec<ConfiguredBgpNeighbor> {
    let Some(bgp) = root.branch(bgp) else {
        return Vec::new();
    };
    let group_active = |group: Option<&str>| {
        group.is_some_and(|g| bgp.exists(&["peer-group", g, "address-family"]))
    };
    bgp.entries(&["neighbor"])
        .map(|(name, n)| {
            let groups = [
                n.value(&["peer-group"]),
                n.value(&["interface", "peer-group"]),
                n.value(&["interface", "v6only", "peer-group"]),
            ];
            ConfiguredBgpNeighbor {
                vrf: vrf.map(str::to_owned),
                neighbor: name.to_owned(),
                activated: n.exists(&["address-family"]) || groups.into_iter().any(group_active),
            }
        })
        .collect()
}

/// The activated neighbors of `configured` that `summary` does not list, in the VRFs it
/// covers: the default VRF only (`show bgp summary`), or every VRF when `all_vrfs` (`show bgp
/// vrf all summary`, where an instance missing from the text has no session at all). A
/// neighbor missing there has no session in FRR: its configuration did not reach bgpd.
pub fn missing_from_summary<'a>(
    summary: &BgpSummary,
    configured: &'a [ConfiguredBgpNeighbor],
    all_vrfs: bool,
) -> Vec<&'a ConfiguredBgpNeighbor> {
    configured
        .iter()
        .filter(|c| c.activated && (all_vrfs || c.vrf.is_none()))
        .filter(|c| {
            let vrf = c.vrf.as_deref().unwrap_or("default");
            !summary.neighbors().any(|(family, n)| {
                family.vrf.as_deref().unwrap_or("default") == vrf && c.is(&n.neighbor)
            })
        })
        .collect()
}

impl crate::Client {
    /// `POST /show` `bgp vrf all summary`: every BGP instance, the default VRF's and each other
    /// VRF's, each family headed with its VRF ([`BgpFamilySummary::vrf`]). The command exists on
    /// 1.4 and 1.5 (vyos-1x `op-mode-definitions/show-bgp.xml.in`, `tagNode vrf` with `all`,
    /// whose children include `summary`); FRR prints it with
    /// `bgp_show_all_instances_summary_vty`. `None`: no BGP instance at all (`% BGP instance not
    /// found`).
    ///
    /// # Errors
    /// As [`crate::Client::bgp_summary`].
    pub async fn bgp_summary_all_vrfs(&self) -> Result<Option<BgpSummary>, crate::Error> {
        let path = ["bgp", "vrf", "all", "summary"];
        let says = |text: &str| text.lines().any(|l| l.trim() == NO_BGP_INSTANCE);
        // vtysh's CMD_WARNING makes the op-mode command exit non-zero, which the API answers
        // 400 with the text (vyos-1x `python/vyos/configsession.py` `__run_command`).
        let text = match self.show(&path).await {
            Ok(text) if says(&text) => return Ok(None),
            Ok(text) => text,
            Err(crate::Error::Api { message, .. }) if says(&message) => return Ok(None),
            Err(e) => return Err(e),
        };
        parse_bgp_summary(&text)
            .map(Some)
            .ok_or_else(|| crate::Error::UnexpectedAnswer {
                endpoint: "show",
                message: format!(
                    "`show {}` printed neither a BGP summary nor `{NO_BGP_INSTANCE}`",
                    path.join(" ")
                ),
            })
    }
}
