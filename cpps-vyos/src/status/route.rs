//! Whether this router can reach an address, from what the API can read: neither API has a
//! `ping` operation on VyOS 1.4 or on the 1.5 builds this SDK knows (vyos-1x
//! `src/services/api/rest/routers.py`: `/show`, `/traceroute` from PR #4151 on later 1.5
//! builds, `/ping` only from PR #5415 of 2026), and `ping` is no `show` path. Where the API
//! has `/traceroute`, [`Client::trace_reachability`] reads its probe ([`parse_trace`]: the last
//! hop is the address, with less than 100 % loss; one mtr cycle, so a probe not delivered is
//! sent again, up to [`TRACE_TRIES`]); otherwise reachability is read from two tables:
//!
//! - the route: `show ip route ADDR` / `show ipv6 route ADDR` (vyos-1x
//!   `op-mode-definitions/show-ip-route.xml.in`: `vtysh_wrapper.sh`, FRR's `show ip route
//!   A.B.C.D`), printed by FRR `zebra/zebra_vty.c` `vty_show_ip_route_detail` and
//!   `show_nexthop_detail_helper`: `Routing entry for PREFIX`, `  Known via "TYPE", distance D,
//!   metric M[, best]`, `  Last update T ago`, then one line per next hop: two spaces, the
//!   status character (`*` installed in the FIB), then ` GATEWAY, via IFACE`, ` directly
//!   connected, IFACE` or ` unreachable[ (blackhole)| (ICMP unreachable)|…]`, and ` inactive`
//!   when the next hop is not active. No route: `% Network not in table`.
//! - the neighbour of the next hop: `show arp` / `show ipv6 neighbors` (vyos-1x
//!   `src/op_mode/neighbor.py` `format_neighbors`, both branches: a `tabulate` "simple" table
//!   `Address`, `Interface`, `Link layer address`, `State`, from `ip --json neighbor list`).
//!
//! "Reachable" means exactly: the best route to the address is installed with a next hop
//! that is active and is no blackhole or `unreachable`, and the neighbour that next hop
//! leads to (its gateway, or the address itself when it is directly connected) is not
//! `FAILED` or `INCOMPLETE` in the neighbour table. A point-to-point interface keeps no
//! neighbour entries (a WireGuard interface is `IFF_POINTOPOINT | IFF_NOARP`: wireguard-linux
//! `drivers/net/wireguard/device.c` `wg_setup`): over one, the route alone is the evidence, and
//! the state says so; a safe apply pairs it with the tunnel's handshake. Elsewhere no
//! neighbour entry cannot tell. It is not a ping: it proves the router would forward towards
//! the address, not that the address answers. The path ([`ReachPath`]: prefix, next hop,
//! interface) is kept, so that a change which moves the address to another next hop, or to the
//! default route, can be seen.

use std::net::IpAddr;

use super::table::parse_simple_table;
use crate::client::Client;
use crate::error::Error;

/// FRR's words when no route covers the address.
pub const NOT_IN_TABLE: &str = "% Network not in table";

/// One next hop of a route, as `show_nexthop_detail_helper` prints it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct RouteNexthop {
    /// The status character is `*`: installed in the FIB.
    pub installed: bool,
    /// The gateway (` GATEWAY, via IFACE`), `None` for a directly connected or blackhole one.
    pub gateway: Option<IpAddr>,
    /// The interface (`via IFACE` or `directly connected, IFACE`).
    pub interface: Option<String>,
    /// ` unreachable…`: a blackhole, reject or prohibit route.
    pub blackhole: bool,
    /// ` inactive`.
    pub inactive: bool,
    /// ` (recursive)`: resolved by the indented next hops that follow.
    pub recursive: bool,
    /// The line as printed, trimmed.
    pub text: String,
}

impl RouteNexthop {
    /// Whether traffic can leave by this next hop: installed, active, no blackhole, and not
    /// the recursive line itself (its resolution is).
    pub fn usable(&self) -> bool {
        self.installed && !self.blackhole && !self.inactive && !self.recursive
    }
}

/// One `Routing entry for` block.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct RouteEntry {
    /// The prefix (`192.0.2.0/24`).
    pub prefix: String,
    /// `Known via "TYPE"` (`static`, `connected`, `kernel`, `bgp`, …).
    pub protocol: String,
    /// `, best`: the route zebra selected.
    pub best: bool,
    /// Its next hops.
    pub nexthops: Vec<RouteNexthop>,
}

/// Reads FRR's detailed route output; `None` when the text holds no `Routing entry for`
/// block (a message, not a route).
pub fn parse_route_detail(text: &str) -> Option<Vec<RouteEntry>> {
    let mut out: Vec<RouteEntry> = Vec::new();
    for line in text.lines() {
        if let Some(prefix) = line.strip_prefix("Routing entry for ") {
            let prefix = prefix.split_whitespace().next().unwrap_or("").to_owned();
            out.push(RouteEntry {
                prefix,
                protocol: String::new(),
                best: false,
                nexthops: Vec::new(),
            });
            continue;
        }
        let Some(entry) = out.last_mut() else {
            continue;
        };
        if let Some(rest) = line.strip_prefix("  Known via \"") {
            entry.protocol = rest.split('"').next().unwrap_or("").to_owned();
            entry.best = rest.split(", ").any(|w| w.trim() == "best");
        } else if line.starts_with("  Last update") || line.trim().is_empty() {
        } else if let Some(nh) = nexthop_line(line) {
            entry.nexthops.push(nh);
        }
    }
    (!out.is_empty()).then_some(out)
}

/// One next-hop line: two spaces, the status character, then the next hop.
fn nexthop_line(line: &str) -> Option<RouteNexthop> {
    let rest = line.strip_prefix("  ")?;
    let mut chars = rest.chars();
    let status = chars.next()?;
    if status == 'b' {
        // A backup next hop (`    b`): not the path in use.
        return None;
    }
    let body = chars.as_str().trim();
    let first = body.split(',').next().unwrap_or("").trim();
    let interface = body
        .split(", via ")
        .nth(1)
        .or_else(|| body.strip_prefix("directly connected, "))
        .map(|s| s.split([' ', ',']).next().unwrap_or("").to_owned());
    Some(RouteNexthop {
        installed: status == '*',
        gateway: first.parse().ok(),
        interface,
        blackhole: body.starts_with("unreachable"),
        inactive: body.split([' ', ',']).any(|w| w == "inactive"),
        recursive: body.contains("(recursive)"),
        text: body.to_owned(),
    })
}

/// One row of `show arp` / `show ipv6 neighbors`.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Neighbour {
    /// `Address`.
    pub address: String,
    /// `Interface`.
    pub interface: String,
    /// `Link layer address`; empty for a FAILED entry.
    pub lladdr: String,
    /// `State`, as iproute2 names it (`REACHABLE`, `STALE`, `FAILED`, …, joined by `, `).
    pub state: String,
}

impl Neighbour {
    /// Whether the kernel gave up on it: `FAILED` or `INCOMPLETE`.
    pub fn failed(&self) -> bool {
        self.state
            .split(", ")
            .any(|s| s == "FAILED" || s == "INCOMPLETE")
    }
}

/// Reads `neighbor.py`'s table; `None` when the text is no such table.
pub fn parse_neighbours(text: &str) -> Option<Vec<Neighbour>> {
    let table = parse_simple_table(text, 4)?;
    let (a, i, l, s) = (
        table.column("Address")?,
        table.column("Interface")?,
        table.column("Link layer address")?,
        table.column("State")?,
    );
    let cell = |row: &[String], n: usize| row.get(n).cloned().unwrap_or_default();
    Some(
        table
            .rows
            .iter()
            .map(|r| Neighbour {
                address: cell(r, a),
                interface: cell(r, i),
                lladdr: cell(r, l),
                state: cell(r, s),
            })
            .collect(),
    )
}

/// What the two tables say about one address.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Reachability {
    /// `Some(true)` reachable as the module documentation defines it, `Some(false)` not,
    /// `None` when a table could not be read or the neighbour cannot be told.
    pub reachable: Option<bool>,
    /// Why, in words.
    pub state: String,
    /// The path the address is reached by (the best route's prefix and usable next hop), when
    /// there is one: a safe apply compares it before and after the change.
    pub path: Option<ReachPath>,
}

/// The path an address is reached by: the best route's prefix and its first usable next hop.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ReachPath {
    /// The route's prefix (`10.20.0.0/16`, `0.0.0.0/0`).
    pub prefix: String,
    /// The next hop's gateway, `None` when directly connected.
    pub gateway: Option<IpAddr>,
    /// The next hop's interface.
    pub interface: Option<String>,
}

impl ReachPath {
    /// Whether the route is the default route (`0.0.0.0/0`, `::/0`).
    pub fn is_default(&self) -> bool {
        self.prefix == "0.0.0.0/0" || self.prefix == "::/0"
    }

    /// Whether `after` still reaches the address as `self` did: the same next hop and
    /// interface, and not the default route unless it was before (a change that drops a more
    /// specific route lets the longest match fall back to it).
    pub fn kept_by(&self, after: &ReachPath) -> bool {
        (self.is_default() || !after.is_default())
            && self.gateway == after.gateway
            && self.interface == after.interface
    }
}

/// Interfaces with no neighbour entries: point-to-point and `IFF_NOARP` (wireguard-linux
/// `drivers/net/wireguard/device.c` `wg_setup` for `wg*`; the kernel's IP tunnels for VyOS's
/// `tun*` and `vti*`; PPP for `pppoe*`, `sstpc*` and `l2tp*`).
fn point_to_point(interface: &str) -> bool {
    ["wg", "tun", "vti", "pppoe", "sstpc", "l2tp"]
        .iter()
        .any(|p| {
            interface
                .strip_prefix(p)
                .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
        })
}

impl Client {
    /// `POST /show` `ip route ADDR` (or `ipv6 route ADDR`), read by [`parse_route_detail`].
    /// `None`: no route covers it (`% Network not in table`, as text or as the refused
    /// command's message).
    ///
    /// # Errors
    /// As [`Client::show`]; [`Error::UnexpectedAnswer`] when the text is neither.
    pub async fn route_to(&self, addr: IpAddr) -> Result<Option<Vec<RouteEntry>>, Error> {
        let family = if addr.is_ipv4() { "ip" } else { "ipv6" };
        let a = addr.to_string();
        let says = |t: &str| t.lines().any(|l| l.trim() == NOT_IN_TABLE);
        let text = match self.show(&[family, "route", &a]).await {
            Ok(t) if says(&t) => return Ok(None),
            Ok(t) => t,
            Err(Error::Api { message, .. }) if says(&message) => return Ok(None),
            Err(e) => return Err(e),
        };
        parse_route_detail(&text)
            .map(Some)
            .ok_or_else(|| Error::UnexpectedAnswer {
                endpoint: "show",
                message: format!(
                    "`show {family} route {a}` printed no route and not `{NOT_IN_TABLE}`"
                ),
            })
    }

    /// `POST /show` `arp` (IPv4) or `ipv6 neighbors`, read by [`parse_neighbours`].
    ///
    /// # Errors
    /// As [`Client::show`]; [`Error::UnexpectedAnswer`] when the text is no table.
    pub async fn neighbours(&self, ipv6: bool) -> Result<Vec<Neighbour>, Error> {
        let path: &[&str] = if ipv6 {
            &["ipv6", "neighbors"]
        } else {
            &["arp"]
        };
        let text = self.show(path).await?;
        parse_neighbours(&text).ok_or_else(|| Error::UnexpectedAnswer {
            endpoint: "show",
            message: format!("`show {}` printed no neighbour table", path.join(" ")),
        })
    }

    /// Whether `addr` is reachable from this router, as the module documentation defines it:
    /// the best route and the neighbour table. Never an error: a table not read is
    /// `reachable: None`.
    pub async fn reachability(&self, addr: IpAddr) -> Reachability {
        let judged =
            |reachable: Option<bool>, state: String, path: Option<ReachPath>| Reachability {
                reachable,
                state,
                path,
            };
        let entries = match self.route_to(addr).await {
            Ok(Some(e)) => e,
            Ok(None) => return judged(Some(false), format!("no route ({NOT_IN_TABLE})"), None),
            Err(e) => return judged(None, format!("cannot tell: the route not read ({e})"), None),
        };
        let Some(best) = entries.iter().find(|e| e.best) else {
            let state = "no route selected (none is `best`)".to_owned();
            return judged(Some(false), state, None);
        };
        let Some(hop) = best.nexthops.iter().find(|n| n.usable()) else {
            let hops: Vec<&str> = best.nexthops.iter().map(|n| n.text.as_str()).collect();
            let state = format!(
                "{}: no usable next hop ({})",
                route_words(best),
                hops.join("; ")
            );
            return judged(Some(false), state, None);
        };
        let path = ReachPath {
            prefix: best.prefix.clone(),
            gateway: hop.gateway,
            interface: hop.interface.clone(),
        };
        let route = format!("{} ({})", route_words(best), hop.text);
        let target = hop.gateway.unwrap_or(addr);
        let neighbours = match self.neighbours(target.is_ipv6()).await {
            Ok(n) => n,
            Err(e) => {
                let state = format!("cannot tell: the neighbour table not read ({e})");
                return judged(None, state, Some(path));
            }
        };
        let mine = target.to_string();
        let (reachable, state) = match neighbours.iter().find(|n| n.address == mine) {
            Some(n) => (
                Some(!n.failed()),
                format!("{route}: neighbour {mine} is {}", n.state),
            ),
            None => no_neighbour(&route, &mine, hop.interface.as_deref()),
        };
        judged(reachable, state, Some(path))
    }
}

/// `route P via TYPE`, naming the default route as such.
fn route_words(best: &RouteEntry) -> String {
    let default = if best.prefix == "0.0.0.0/0" || best.prefix == "::/0" {
        " (the default route)"
    } else {
        ""
    };
    format!("route {}{default} via {}", best.prefix, best.protocol)
}

/// No neighbour entry for the next hop: on a point-to-point interface there never is one, so
/// the route alone is the evidence; elsewhere the neighbour was never resolved or has expired,
/// which cannot tell.
fn no_neighbour(route: &str, target: &str, interface: Option<&str>) -> (Option<bool>, String) {
    match interface {
        Some(i) if point_to_point(i) => (
            Some(true),
            format!(
                "{route}: {i} is point-to-point and keeps no neighbour entries, so the route \
                 alone is the evidence"
            ),
        ),
        _ => (
            None,
            format!(
                "cannot tell: {route}: no neighbour entry for {target} (never resolved or expired)"
            ),
        ),
    }
}

/// One hop of a `/traceroute` answer (mtr's `hubs`).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct TraceHop {
    /// `count`: the hop's number, from 1.
    pub count: u64,
    /// `host`: the address or name that answered; `???` when nothing answered
    /// (`snprint_hop_name` in mtr `ui/report.c`).
    pub host: String,
    /// `Loss%`: the share of probes lost, in percent; `None` when the hop has no such number.
    pub loss_percent: Option<f64>,
}

/// How many probes [`Client::trace_reachability`] sends at most before it reads an address as
/// not delivered: each is one mtr cycle, so one lost packet is 100 % loss.
pub const TRACE_TRIES: u32 = 3;

/// What `POST /traceroute` answered: mtr's report of one cycle.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Trace {
    /// `report.mtr.dst`: the host mtr was asked to reach, as it was given.
    pub dst: Option<String>,
    /// The hops in order.
    pub hops: Vec<TraceHop>,
}

impl Trace {
    /// Whether the probe was delivered: the last hop is [`Trace::dst`] itself and lost less
    /// than 100 % of its probes. mtr also ends its report at a router that answered an ICMP
    /// error such as "no route to host" (traviscross/mtr `ui/net.c` `net_max`), so a last hop
    /// that answered is not enough. `Some(false)` when the last hop is `???`, lost every probe,
    /// is an error or another address; `None` without hops, `Loss%` or `dst`, or when the
    /// last hop is a name that cannot be matched with `dst` (mtr prints PTR names with DNS on).
    pub fn delivered(&self) -> Option<bool> {
        let last = self.hops.last()?;
        let loss = last.loss_percent?;
        if last.host == "???" || loss >= 100.0 {
            return Some(false);
        }
        hop_is(&last.host, self.dst.as_deref()?)
    }
}

/// Whether the hop `host`, as mtr `ui/report.c` `snprint_hop_name` prints it (an address, a
/// name, `name (address)`, or `(error)`), is `dst`; `None` for a bare name that is not `dst`.
fn hop_is(host: &str, dst: &str) -> Option<bool> {
    if host == dst {
        return Some(true);
    }
    if host.starts_with('(') {
        return Some(false);
    }
    let address = host
        .strip_suffix(')')
        .and_then(|h| h.rsplit_once(" ("))
        .map_or(host, |(_, a)| a);
    match (address.parse::<IpAddr>(), dst.parse::<IpAddr>()) {
        (Ok(a), Ok(d)) => Some(a == d),
        _ => None,
    }
}

/// Reads the `data` of `POST /traceroute`. vyos-1x `python/vyos/configsession.py` `traceroute`
/// runs `TRACEROUTE` (`src/op_mode/mtr_execute.py mtr --for-api --report-mode --report-cycles
/// 1 --json --host HOST`) and answers its output; `mtr_execute.py` `mtr` turns mtr's JSON into
/// a dict with `loads` and `print`s it, so the text is Python's `repr` of the dict (`'…'`
/// strings, `True`/`None`), not JSON. mtr `ui/report.c` `json_close` writes `{"report":
/// {"mtr": {…}, "hubs": [{"count", "host", "Loss%", "Snt", …}]}}`. JSON text, and a JSON
/// object in `data`, are read too. Each hop is read on its own: one without `count` or `host`
/// is skipped. `None` when the text is neither form or has no `hubs` list.
pub fn parse_trace(data: &serde_json::Value) -> Option<Trace> {
    let doc = match data {
        serde_json::Value::String(text) => serde_json::from_str(text)
            .ok()
            .or_else(|| python_literal(text))?,
        other => other.clone(),
    };
    let hubs = doc.pointer("/report/hubs")?.as_array()?;
    let dst = doc
        .pointer("/report/mtr/dst")
        .and_then(serde_json::Value::as_str)
        .map(str::to_owned);
    let hops = hubs
        .iter()
        .filter_map(|h| {
            Some(TraceHop {
                count: h.get("count")?.as_u64()?,
                host: h.get("host")?.as_str()?.to_owned(),
                loss_percent: h.get("Loss%").and_then(serde_json::Value::as_f64),
            })
        })
        .collect();
    Some(Trace { dst, hops })
}

/// How deep [`python_literal`] nests; mtr's report is three levels deep.
const MAX_LITERAL_DEPTH: usize = 16;

/// Python's `repr` of a dict of strings, numbers, lists, dicts, `True`, `False` and `None`,
/// as JSON. `None` when the text is anything else.
fn python_literal(text: &str) -> Option<serde_json::Value> {
    let chars: Vec<char> = text.chars().collect();
    let mut at = 0;
    let value = literal(&chars, &mut at, 0)?;
    skip_space(&chars, &mut at);
    (at == chars.len()).then_some(value)
}

fn skip_space(chars: &[char], at: &mut usize) {
    while chars.get(*at).is_some_and(|c| c.is_whitespace()) {
        *at += 1;
    }
}

/// One value of a Python literal at `at` (see [`python_literal`]).
fn literal(chars: &[char], at: &mut usize, depth: usize) -> Option<serde_json::Value> {
    use serde_json::Value;
    if depth > MAX_LITERAL_DEPTH {
        return None;
    }
    skip_space(chars, at);
    let c = *chars.get(*at)?;
    match c {
        '{' | '[' => {
            let close = if c == '{' { '}' } else { ']' };
            *at += 1;
            let (mut map, mut list) = (serde_json::Map::new(), Vec::new());
            loop {
                skip_space(chars, at);
                if chars.get(*at) == Some(&close) {
                    *at += 1;
                    break;
                }
                let item = literal(chars, at, depth + 1)?;
                if c == '{' {
                    skip_space(chars, at);
                    (chars.get(*at) == Some(&':')).then_some(())?;
                    *at += 1;
                    map.insert(item.as_str()?.to_owned(), literal(chars, at, depth + 1)?);
                } else {
                    list.push(item);
                }
                skip_space(chars, at);
                match chars.get(*at) {
                    Some(',') => *at += 1,
                    Some(x) if *x == close => {}
                    _ => return None,
                }
            }
            Some(if c == '{' {
                Value::Object(map)
            } else {
                Value::Array(list)
            })
        }
        '\'' | '"' => quoted(chars, at),
        _ => {
            let start = *at;
            while chars
                .get(*at)
                .is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+'))
            {
                *at += 1;
            }
            let word: String = chars[start..*at].iter().collect();
            match word.as_str() {
                "True" => Some(Value::Bool(true)),
                "False" => Some(Value::Bool(false)),
                "None" => Some(Value::Null),
                w => serde_json::from_str::<serde_json::Number>(w)
                    .ok()
                    .map(Value::Number),
            }
        }
    }
}

/// A Python string literal at `at`, quoted with `'` or `"`, with its backslash escapes.
fn quoted(chars: &[char], at: &mut usize) -> Option<serde_json::Value> {
    let quote = *chars.get(*at)?;
    *at += 1;
    let mut out = String::new();
    loop {
        let c = *chars.get(*at)?;
        *at += 1;
        match c {
            '\\' => {
                let e = *chars.get(*at)?;
                *at += 1;
                out.push(match e {
                    'n' => '\n',
                    't' => '\t',
                    'r' => '\r',
                    other => other,
                });
            }
            c if c == quote => return Some(serde_json::Value::String(out)),
            c => out.push(c),
        }
    }
}

#[derive(serde::Serialize)]
struct TracerouteBody<'a> {
    op: &'static str,
    host: &'a str,
}

impl Client {
    /// `POST /traceroute` (vyos-1x PR #4151, later 1.5 builds; `traceroute_op` in
    /// `src/services/api/rest/routers.py`, `TracerouteModel` {op, host}), read by
    /// [`parse_trace`]. See [`Client::has_traceroute`] for whether the router has it.
    ///
    /// # Errors
    /// As [`Client::show`]; [`Error::UnexpectedAnswer`] when the answer is no mtr report.
    pub async fn traceroute(&self, addr: IpAddr) -> Result<Trace, Error> {
        let host = addr.to_string();
        let body = TracerouteBody {
            op: "traceroute",
            host: &host,
        };
        let data: serde_json::Value = self.read("traceroute", &body).await?;
        parse_trace(&data).ok_or_else(|| Error::UnexpectedAnswer {
            endpoint: "traceroute",
            message: format!("`traceroute {host}` answered no mtr report"),
        })
    }

    /// Whether `addr` is reachable, proven by [`Client::traceroute`]: delivered when the last
    /// hop is `addr` and lost less than 100 % ([`Trace::delivered`]). Each probe is one mtr
    /// cycle, which the API cannot lengthen (vyos-1x `python/vyos/configsession.py`
    /// `TRACEROUTE` passes `--report-cycles 1`, and `traceroute_op` in
    /// `src/services/api/rest/routers.py` takes only `host`), so one lost packet reads as
    /// 100 % loss: a probe not delivered is sent again, up to [`TRACE_TRIES`] in all, and one
    /// delivery proves it. Never an error: a trace that failed is `reachable: None`. No path
    /// is kept: [`Client::reachability`] gives it.
    pub async fn trace_reachability(&self, addr: IpAddr) -> Reachability {
        let mut tries = 1;
        let mut probe = self.trace_once(addr).await;
        while probe.reachable == Some(false) && tries < TRACE_TRIES {
            tries += 1;
            probe = self.trace_once(addr).await;
        }
        if tries > 1 {
            let verdict = match probe.reachable {
                Some(true) => "delivered",
                Some(false) => "none delivered",
                None => "cannot tell",
            };
            probe.state = format!("{} ({tries} probes, {verdict})", probe.state);
        }
        probe
    }

    /// One probe of [`Client::trace_reachability`].
    async fn trace_once(&self, addr: IpAddr) -> Reachability {
        let (reachable, state) = match self.traceroute(addr).await {
            Ok(trace) => {
                let last = trace.hops.last().map_or_else(
                    || "no hop".to_owned(),
                    |h| {
                        let loss = h
                            .loss_percent
                            .map_or_else(|| "no Loss%".to_owned(), |l| format!("loss {l}%"));
                        format!("last hop {} {} ({loss})", h.count, h.host)
                    },
                );
                (trace.delivered(), format!("traceroute: {last}"))
            }
            Err(e) => (None, format!("cannot tell: the traceroute failed ({e})")),
        };
        Reachability {
            reachable,
            state,
            path: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Laid out as FRR `zebra/zebra_vty.c` `vty_show_ip_route_detail` and
    /// `show_nexthop_detail_helper` print it: a blackhole static route, and a BGP route whose
    /// second next hop is not installed.
    #[test]
    fn frr_route_details_are_read() {
        let text = "Routing entry for 203.0.113.0/24\n  Known via \"static\", distance 1, metric 0, best\n  Last update 00:00:10 ago\n  * unreachable (blackhole), weight 1\n\n";
        let e = parse_route_detail(text).unwrap();
        assert_eq!(e.len(), 1);
        assert_eq!(
            (e[0].prefix.as_str(), e[0].protocol.as_str()),
            ("203.0.113.0/24", "static")
        );
        assert!(e[0].best);
        assert!(e[0].nexthops[0].blackhole);
        assert!(!e[0].nexthops[0].usable());

        let text = "Routing entry for 0.0.0.0/0\n  Known via \"bgp\", distance 20, metric 0, best\n  Last update 2d01h02m ago\n  * 192.0.2.1, via eth0, weight 1\n    192.0.2.9, via eth1 inactive, weight 1\n\n";
        let e = parse_route_detail(text).unwrap();
        let hops = &e[0].nexthops;
        assert_eq!(hops.len(), 2);
        assert_eq!(hops[0].gateway, Some("192.0.2.1".parse().unwrap()));
        assert_eq!(hops[0].interface.as_deref(), Some("eth0"));
        assert!(hops[0].usable());
        assert!(!hops[1].installed && hops[1].inactive && !hops[1].usable());

        let text = "Routing entry for 192.0.2.0/24\n  Known via \"connected\", distance 0, metric 0, best\n  Last update 00:01:02 ago\n  * directly connected, eth0\n";
        let e = parse_route_detail(text).unwrap();
        assert_eq!(e[0].nexthops[0].gateway, None);
        assert_eq!(e[0].nexthops[0].interface.as_deref(), Some("eth0"));
        assert!(e[0].nexthops[0].usable());
        assert_eq!(parse_route_detail(NOT_IN_TABLE), None);
    }

    /// No neighbour entry: over `wg0` (wireguard-linux `device.c` `wg_setup`: `IFF_NOARP`) the
    /// route alone is the evidence; over an ethernet it cannot tell (never resolved or
    /// expired). A path that falls back to the default route, or changes next hop, is not kept.
    #[test]
    fn no_neighbour_entry_and_paths() {
        assert_eq!(no_neighbour("r", "10.8.0.2", Some("wg0")).0, Some(true));
        assert_eq!(no_neighbour("r", "192.0.2.7", Some("eth0")).0, None);
        assert_eq!(no_neighbour("r", "192.0.2.7", Some("wgx")).0, None);
        let path = |prefix: &str, gw: &str, i: &str| ReachPath {
            prefix: prefix.to_owned(),
            gateway: gw.parse().ok(),
            interface: Some(i.to_owned()),
        };
        let tunnel = path("10.20.0.0/16", "10.8.0.2", "wg0");
        assert!(tunnel.kept_by(&path("10.20.0.0/24", "10.8.0.2", "wg0")));
        assert!(!tunnel.kept_by(&path("0.0.0.0/0", "10.8.0.2", "wg0")));
        assert!(!tunnel.kept_by(&path("10.20.0.0/16", "192.0.2.1", "eth0")));
        let default = path("0.0.0.0/0", "192.0.2.1", "eth0");
        assert!(default.kept_by(&default.clone()));
    }

    /// `POST /traceroute`'s text: vyos-1x `src/op_mode/mtr_execute.py` `mtr` prints
    /// `loads(output)` of mtr's `--json` report (mtr `ui/report.c` `json_close`), so Python's
    /// `repr` (`'…'`, and `"…"` around a string holding `'`); the same report as JSON reads
    /// alike. A hop without `host` is skipped; a last hop `???` at 100 % is not delivered.
    #[test]
    fn mtr_reports_are_read_as_python_prints_them_or_as_json() {
        // Nesting past the bound ends the read instead of the stack.
        assert_eq!(python_literal(&"[".repeat(100_000)), None);
        use serde_json::json;
        let repr = "{'report': {'mtr': {'src': 'vyos', 'dst': '10.20.0.5', 'tos': 0, 'tests': 1, 'psize': '64', 'bitpattern': '0x00'}, 'hubs': [{'count': 1, 'host': \"gw's.example\", 'Loss%': 0.0, 'Snt': 1, 'Last': 0.52, 'Avg': 0.52, 'Best': 0.52, 'Wrst': 0.52, 'StDev': 0.0}, {'count': 2, 'Loss%': 0.0}, {'count': 3, 'host': '10.20.0.5', 'Loss%': 0.0, 'Snt': 1, 'Last': 1.5, 'Avg': 1.5, 'Best': 1.5, 'Wrst': 1.5, 'StDev': 0.0}]}}\n";
        let trace = parse_trace(&json!(repr)).unwrap();
        let hops: Vec<_> = trace
            .hops
            .iter()
            .map(|h| (h.count, h.host.as_str(), h.loss_percent))
            .collect();
        assert_eq!(
            hops,
            [(1, "gw's.example", Some(0.0)), (3, "10.20.0.5", Some(0.0))]
        );
        assert_eq!(trace.delivered(), Some(true));
        let lost = r#"{"report": {"mtr": {"src": "vyos", "dst": "10.20.0.5", "tos": 0, "tests": 1}, "hubs": [{"count": 1, "host": "???", "Loss%": 100.0, "Snt": 1}]}}"#;
        assert_eq!(parse_trace(&json!(lost)).unwrap().delivered(), Some(false));
        let object = json!({"report": {"hubs": [{"count": 1, "host": "10.20.0.5"}]}});
        assert_eq!(parse_trace(&object).unwrap().delivered(), None);
        for junk in [
            "Invalid command",
            "{'report': {'hubs': 3}}",
            "{'a': [1, 2}",
            "",
        ] {
            assert_eq!(parse_trace(&json!(junk)), None, "{junk}");
        }
        assert_eq!(
            python_literal("{'a': True, 'b': None, 'c': -1.5e3}"),
            Some(json!({"a": true, "b": null, "c": -1500.0}))
        );
    }

    /// mtr ends its report at a router that answered an ICMP error (traviscross/mtr
    /// `ui/net.c` `net_max`: "a hop that returned an ICMP error … final hop"; `packet/probe.c`
    /// turns ICMP_DEST_UNREACH into an error from the router's address), with `hubs` up to that
    /// hop and the target in `report.mtr.dst` (`ui/report.c` `json_close`). So only a last hop
    /// that is `dst` is delivered; a router's own address is not, an error hop (`(no route to
    /// host)`, `snprint_hop_name`) is not, and a PTR name (vyos-1x `mtr_execute.py` leaves DNS
    /// on) that cannot be matched cannot tell.
    #[test]
    fn a_router_answering_unreachable_is_not_delivery() {
        let report = |last: &str| {
            serde_json::json!(format!(
                "{{'report': {{'mtr': {{'src': 'vyos', 'dst': '10.20.0.5', 'tos': 0, 'tests': 1}}, 'hubs': [{{'count': 1, 'host': '192.0.2.1', 'Loss%': 0.0, 'Snt': 1}}, {{'count': 2, 'host': '{last}', 'Loss%': 0.0, 'Snt': 1}}]}}}}"
            ))
        };
        let delivered = |last: &str| parse_trace(&report(last)).unwrap().delivered();
        assert_eq!(delivered("198.51.100.1"), Some(false));
        assert_eq!(delivered("(no route to host)"), Some(false));
        assert_eq!(delivered("gw.example.net"), None);
        assert_eq!(delivered("host.example.net (10.20.0.5)"), Some(true));
        assert_eq!(delivered("core.example.net (198.51.100.1)"), Some(false));
        assert_eq!(delivered("10.20.0.5"), Some(true));
        // No `dst`: which host was asked for cannot be told.
        let object = serde_json::json!({"report": {"hubs": [{"count": 1, "host": "10.20.0.5", "Loss%": 0.0}]}});
        assert_eq!(parse_trace(&object).unwrap().delivered(), None);
    }

    /// `neighbor.py` `format_neighbors` (vyos-1x `src/op_mode/neighbor.py`): tabulate
    /// "simple", `None` (no `lladdr` in a FAILED entry) printed blank.
    #[test]
    fn neighbour_tables_are_read() {
        let text = "Address      Interface    Link layer address    State\n-----------  -----------  --------------------  ---------\n192.0.2.1    eth0         00:53:00:00:00:01     REACHABLE\n192.0.2.9    eth1                               FAILED\n";
        let n = parse_neighbours(text).unwrap();
        assert_eq!(n.len(), 2);
        assert_eq!(n[0].lladdr, "00:53:00:00:00:01");
        assert!(!n[0].failed());
        assert_eq!((n[1].lladdr.as_str(), n[1].failed()), ("", true));
        assert_eq!(parse_neighbours("Invalid command"), None);
    }
}
