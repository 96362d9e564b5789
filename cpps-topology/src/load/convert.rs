//! From the file types to the model: ids, states, references, values.

use std::collections::HashMap;
use std::net::IpAddr;
use std::str::FromStr;

use serde_saphyr::MessageFormatter;

use super::file::{At, FileState, TopologyFile};
use super::{FORMAT_VERSION, FileError, FileErrorKind, suggest};
use crate::model::{
    Alert, ArgoCd, Capability, CertManager, Cni, ComponentKind, Datastore, Gpu, Guest, GuestKind,
    HardwareTier, Host, HostLinstor, IdError, Item, K3sCluster, Link, LinstorController,
    LinstorPool, Location, Meta, Pattern, Pbs, PbsSync, PlacementClaim, PoolNode, ProxmoxCluster,
    Router, Rpo, Site, Source, State, Suppression, TierCapabilities, Topology, Traefik, Version,
};

/// What kind a reference must point to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Target {
    Kind(ComponentKind),
    Tier,
    /// Any component, or `*` (suppression subjects).
    Any,
}

impl Target {
    fn name(self) -> &'static str {
        match self {
            Target::Kind(k) => k.as_str(),
            Target::Tier => "hardware tier",
            Target::Any => "component",
        }
    }
}

/// Byte offsets of line starts, to turn line/column into offsets.
struct Lines<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> Lines<'a> {
    fn new(text: &'a str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Lines { text, starts }
    }

    fn location(&self, l: &serde_saphyr::Location) -> Location {
        let (line, column) = (l.line(), l.column());
        if line == 0 || self.text.is_empty() {
            return Location::UNKNOWN;
        }
        let line_start = self
            .starts
            .get((line - 1) as usize)
            .copied()
            .unwrap_or(self.text.len());
        let line_end = self.text[line_start.min(self.text.len())..]
            .find('\n')
            .map_or(self.text.len(), |i| line_start + i);
        let from_col = || {
            let line_text = &self.text[line_start.min(line_end)..line_end];
            line_start
                + line_text
                    .char_indices()
                    .nth(column.saturating_sub(1) as usize)
                    .map_or(line_text.len(), |(i, _)| i)
        };
        let mut offset = l
            .span()
            .byte_offset()
            .map(|o| o as usize)
            .filter(|&o| o <= self.text.len() && self.text.is_char_boundary(o))
            .unwrap_or_else(from_col);
        let mut len = l.span().byte_len().map_or(1, |n| n as usize);
        // One line at most, never past the end, at least one character.
        let end_of_line = self.text[offset..]
            .find('\n')
            .map_or(self.text.len(), |i| offset + i);
        len = len.min(end_of_line - offset);
        if len == 0 {
            if offset >= self.text.len() {
                offset = self.text.len()
                    - self.text[..self.text.len()]
                        .chars()
                        .next_back()
                        .map_or(0, char::len_utf8);
            }
            len = self.text[offset..].chars().next().map_or(0, char::len_utf8);
        }
        Location {
            line: line.min(u32::MAX as u64) as u32,
            column: column.min(u32::MAX as u64) as u32,
            offset,
            len,
        }
    }
}

struct Cx<'a> {
    lines: Lines<'a>,
    errors: Vec<(FileErrorKind, Location)>,
    ids: HashMap<String, (ComponentKind, Location)>,
    tiers: HashMap<String, Location>,
    refs: Vec<(Target, String, Location)>,
}

fn map_parse_error(e: &serde_saphyr::Error) -> FileErrorKind {
    use serde_saphyr::Error as E;
    let inner = e.without_snippet();
    let inner = match inner {
        E::AliasError { error, .. } => error.without_snippet(),
        other => other,
    };
    match inner {
        E::SerdeUnknownField {
            field, expected, ..
        } => FileErrorKind::UnknownKey {
            key: field.clone(),
            suggestion: suggest(field, expected.iter().copied()),
            expected: expected.iter().map(|s| (*s).to_owned()).collect(),
        },
        E::SerdeUnknownVariant {
            variant, expected, ..
        } => FileErrorKind::UnknownValue {
            value: variant.clone(),
            suggestion: suggest(variant, expected.iter().copied()),
            expected: expected.iter().map(|s| (*s).to_owned()).collect(),
        },
        E::SerdeMissingField { field, .. } => FileErrorKind::MissingKey {
            key: (*field).to_owned(),
        },
        E::DuplicateMappingKey { key, .. } => FileErrorKind::DuplicateKey {
            key: key.clone().unwrap_or_else(|| "?".to_owned()),
        },
        other => FileErrorKind::Syntax {
            message: serde_saphyr::DefaultMessageFormatter
                .format_message(other)
                .into_owned(),
        },
    }
}

/// Parses, converts and checks a whole file.
pub(super) fn load(source: Source) -> Result<Topology, FileError> {
    let text = source.text.clone();
    let lines = Lines::new(&text);
    // serde-saphyr's default budget (250k nodes, 1M events) protects against YAML bombs but
    // stops at about 40k guests; a datacenter model must load at 100k+ (the audit benchmark's
    // size), so the node and event caps are raised while the alias, anchor and depth caps stay.
    let options = serde_saphyr::options! {
        budget: serde_saphyr::budget! {
            max_nodes: 8_000_000,
            max_events: 32_000_000,
        },
    };
    let file: TopologyFile = match serde_saphyr::from_str_with_options(&text, options) {
        Ok(f) => f,
        Err(e) => {
            let location = e
                .location()
                .map_or(Location::UNKNOWN, |l| lines.location(&l));
            return Err(FileError::new(map_parse_error(&e), location, Some(&source)));
        }
    };
    let mut cx = Cx {
        lines,
        errors: Vec::new(),
        ids: HashMap::new(),
        tiers: HashMap::new(),
        refs: Vec::new(),
    };
    let mut topology = cx.convert(file);
    cx.check_references();
    if cx.errors.is_empty() {
        topology.source = Some(source);
        topology.reindex();
        return Ok(topology);
    }
    cx.errors.sort_by_key(|(_, l)| (l.line, l.column));
    let mut errors = cx
        .errors
        .into_iter()
        .map(|(k, l)| FileError::new(k, l, Some(&source)));
    let mut first = errors.next().expect("errors is not empty");
    first.related = errors.collect();
    Err(first)
}

impl Cx<'_> {
    fn loc(&self, l: &serde_saphyr::Location) -> Location {
        self.lines.location(l)
    }

    fn error(&mut self, kind: FileErrorKind, at: Location) {
        self.errors.push((kind, at));
    }

    fn invalid(&mut self, field: &str, message: impl Into<String>, at: Location) {
        self.error(
            FileErrorKind::InvalidValue {
                field: field.to_owned(),
                message: message.into(),
            },
            at,
        );
    }

    fn parse<T: FromStr>(&mut self, field: &str, v: &At<String>) -> Option<T>
    where
        T::Err: std::fmt::Display,
    {
        match v.value.parse::<T>() {
            Ok(t) => Some(t),
            Err(e) => {
                let at = self.loc(&v.at);
                self.invalid(field, e.to_string(), at);
                None
            }
        }
    }

    /// Parses a component's own id and registers it (duplicates are errors), then builds its
    /// meta (a missing state is an error).
    #[allow(clippy::too_many_arguments)]
    fn component<T: FromStr<Err = IdError>>(
        &mut self,
        kind: ComponentKind,
        id: &At<String>,
        state: &Option<At<FileState>>,
        note: &Option<String>,
        use_case: &Option<String>,
        deferred: bool,
    ) -> Option<(T, Meta)> {
        let at = self.loc(&id.at);
        let parsed = self.parse::<T>("id", id);
        if let Some(&(_, first)) = self.ids.get(&id.value) {
            self.error(
                FileErrorKind::DuplicateId {
                    id: id.value.clone(),
                    first,
                },
                at,
            );
        } else {
            self.ids.insert(id.value.clone(), (kind, at));
        }
        let state = match state {
            Some(s) => {
                let sat = self.loc(&s.at);
                Some((s.value.0, sat))
            }
            None => {
                self.error(
                    FileErrorKind::MissingState {
                        kind: kind.as_str().to_owned(),
                        id: id.value.clone(),
                    },
                    at,
                );
                None
            }
        };
        let mut meta = Meta::new(state.map_or(State::Desired, |s| s.0));
        meta.note = note.clone();
        meta.use_case = use_case.clone();
        meta.deferred = deferred;
        meta.location = at;
        if let Some((_, sat)) = state {
            meta.set_field_location("state", sat);
        }
        Some((parsed?, meta))
    }

    /// Parses a reference, records its location under `path` and queues the existence check.
    fn reference<T: FromStr<Err = IdError>>(
        &mut self,
        meta: &mut Meta,
        path: impl Into<String>,
        target: Target,
        v: &At<String>,
    ) -> Option<T> {
        let path = path.into();
        let at = self.loc(&v.at);
        meta.set_field_location(path.clone(), at);
        let parsed = self.parse::<T>(&path, v)?;
        self.refs.push((target, v.value.clone(), at));
        Some(parsed)
    }

    fn opt_reference<T: FromStr<Err = IdError>>(
        &mut self,
        meta: &mut Meta,
        path: &str,
        target: Target,
        v: &Option<At<String>>,
    ) -> Option<T> {
        v.as_ref()
            .and_then(|v| self.reference(meta, path, target, v))
    }

    fn references<T: FromStr<Err = IdError>>(
        &mut self,
        meta: &mut Meta,
        path: &str,
        target: Target,
        vs: &[At<String>],
    ) -> Vec<T> {
        vs.iter()
            .enumerate()
            .filter_map(|(i, v)| self.reference(meta, format!("{path}[{i}]"), target, v))
            .collect()
    }

    fn field<T: FromStr>(
        &mut self,
        meta: &mut Meta,
        path: &str,
        v: &Option<At<String>>,
    ) -> Option<T>
    where
        T::Err: std::fmt::Display,
    {
        let v = v.as_ref()?;
        let at = self.loc(&v.at);
        meta.set_field_location(path, at);
        self.parse(path, v)
    }

    fn flag(&mut self, meta: &mut Meta, path: &str, v: &Option<At<bool>>) -> bool {
        match v {
            Some(v) => {
                let at = self.loc(&v.at);
                meta.set_field_location(path, at);
                v.value
            }
            None => false,
        }
    }

    fn gpu(&mut self, meta: &mut Meta, path: &str, g: &At<super::file::GpuFile>) -> Option<Gpu> {
        let at = self.loc(&g.at);
        meta.set_field_location(path, at);
        let model = g.value.model.value.trim().to_owned();
        if model.is_empty() {
            let mat = self.loc(&g.value.model.at);
            self.invalid(&format!("{path}.model"), "the GPU model is empty", mat);
            return None;
        }
        if g.value.count.value == 0 {
            let cat = self.loc(&g.value.count.at);
            self.invalid(&format!("{path}.count"), "a GPU count is at least 1", cat);
            return None;
        }
        Some(Gpu {
            model,
            count: g.value.count.value,
        })
    }

    fn state_of(
        &mut self,
        meta: &mut Meta,
        path: &str,
        s: &Option<At<FileState>>,
    ) -> Option<State> {
        let s = s.as_ref()?;
        let at = self.loc(&s.at);
        meta.set_field_location(path, at);
        Some(s.value.0)
    }

    #[allow(clippy::too_many_lines)]
    fn convert(&mut self, f: TopologyFile) -> Topology {
        use ComponentKind as K;
        let mut t = Topology::new();
        if f.version.value != FORMAT_VERSION {
            let at = self.loc(&f.version.at);
            self.error(
                FileErrorKind::UnsupportedVersion {
                    version: f.version.value,
                },
                at,
            );
        }
        t.version = f.version.value;
        t.name = f.name;
        if let Some(r) = &f.rpo {
            t.rpo = self.parse::<Rpo>("rpo", r);
        }

        for tier in &f.tiers {
            let at = self.loc(&tier.id.at);
            let Some(id) = self.parse("id", &tier.id) else {
                continue;
            };
            if let Some(&first) = self.tiers.get(&tier.id.value) {
                self.error(
                    FileErrorKind::DuplicateId {
                        id: tier.id.value.clone(),
                        first,
                    },
                    at,
                );
                continue;
            }
            self.tiers.insert(tier.id.value.clone(), at);
            let c = &tier.capabilities;
            t.tiers.push(HardwareTier {
                id,
                description: tier.description.clone(),
                capabilities: TierCapabilities {
                    igpu: c.igpu,
                    gpu_passthrough_vm: c.gpu_passthrough_vm,
                    gpu_lxc_only: c.gpu_lxc_only,
                    gpu_shared_with_display: c.gpu_shared_with_display,
                },
                location: at,
            });
        }

        for s in &f.sites {
            let Some((id, meta)) =
                self.component(K::Site, &s.id, &s.state, &s.note, &s.use_case, s.deferred)
            else {
                continue;
            };
            t.sites.push(Site {
                id,
                name: s.name.clone(),
                meta,
            });
        }

        for c in &f.proxmox_clusters {
            let Some((id, mut meta)) = self.component(
                K::ProxmoxCluster,
                &c.id,
                &c.state,
                &c.note,
                &c.use_case,
                c.deferred,
            ) else {
                continue;
            };
            let Some(site) = self.reference(&mut meta, "site", Target::Kind(K::Site), &c.site)
            else {
                continue;
            };
            t.proxmox_clusters.push(ProxmoxCluster { id, site, meta });
        }

        for h in &f.hosts {
            let Some((id, mut meta)) =
                self.component(K::Host, &h.id, &h.state, &h.note, &h.use_case, h.deferred)
            else {
                continue;
            };
            let site = self.reference(&mut meta, "site", Target::Kind(K::Site), &h.site);
            let proxmox_cluster = self.opt_reference(
                &mut meta,
                "proxmox_cluster",
                Target::Kind(K::ProxmoxCluster),
                &h.proxmox_cluster,
            );
            let tier = self.opt_reference(&mut meta, "tier", Target::Tier, &h.tier);
            let gpus = h
                .gpus
                .iter()
                .enumerate()
                .filter_map(|(i, g)| self.gpu(&mut meta, &format!("gpus[{i}]"), g))
                .collect();
            let pve_version = self.field::<Version>(&mut meta, "pve_version", &h.pve_version);
            let nvidia_driver = self.field::<Version>(&mut meta, "nvidia_driver", &h.nvidia_driver);
            let linstor = h.linstor.as_ref().map(|l| {
                let at = self.loc(&l.at);
                meta.set_field_location("linstor", at);
                if l.value.roles.at.line() > 0 {
                    let rat = self.loc(&l.value.roles.at);
                    meta.set_field_location("linstor.roles", rat);
                }
                let interface = l.value.interface.as_ref().map(|i| {
                    let iat = self.loc(&i.at);
                    meta.set_field_location("linstor.interface", iat);
                    i.value.clone()
                });
                HostLinstor {
                    roles: l.value.roles.value.clone(),
                    interface,
                }
            });
            let Some(site) = site else { continue };
            t.hosts.push(Host {
                id,
                site,
                proxmox_cluster,
                tier,
                gpus,
                pve_version,
                linstor,
                nvidia_driver,
                placeholder: h.placeholder,
                meta,
            });
        }

        for g in &f.guests {
            let Some((id, mut meta)) =
                self.component(K::Guest, &g.id, &g.state, &g.note, &g.use_case, g.deferred)
            else {
                continue;
            };
            let host = self.reference(&mut meta, "host", Target::Kind(K::Host), &g.host);
            let kat = self.loc(&g.kind.at);
            meta.set_field_location("kind", kat);
            let privileged = self.flag(&mut meta, "privileged", &g.privileged);
            if privileged && g.kind.value == GuestKind::Vm {
                let at = meta.at("privileged");
                self.invalid("privileged", "only an LXC can be privileged", at);
            }
            let ha = self.flag(&mut meta, "ha", &g.ha);
            let ha_state = self.state_of(&mut meta, "ha_state", &g.ha_state);
            let gpu = g.gpu.as_ref().and_then(|gp| self.gpu(&mut meta, "gpu", gp));
            let storage = self.opt_reference(
                &mut meta,
                "storage",
                Target::Kind(K::LinstorPool),
                &g.storage,
            );
            let backup = self.opt_reference(&mut meta, "backup", Target::Kind(K::Pbs), &g.backup);
            let rpo = self.field::<Rpo>(&mut meta, "rpo", &g.rpo);
            let Some(host) = host else { continue };
            t.guests.push(Guest {
                id,
                host,
                kind: g.kind.value,
                privileged,
                ha,
                ha_state,
                on_boot: g.on_boot,
                role: g.role.clone(),
                gpu,
                storage,
                backup,
                rpo,
                meta,
            });
        }

        for p in &f.linstor_pools {
            let Some((id, mut meta)) = self.component(
                K::LinstorPool,
                &p.id,
                &p.state,
                &p.note,
                &p.use_case,
                p.deferred,
            ) else {
                continue;
            };
            let site = self.reference(&mut meta, "site", Target::Kind(K::Site), &p.site);
            let mut nodes = Vec::new();
            for (i, n) in p.nodes.iter().enumerate() {
                let at = self.loc(&n.at);
                meta.set_field_location(format!("nodes[{i}]"), at);
                if let Some(host) = self.reference(
                    &mut meta,
                    format!("nodes[{i}].host"),
                    Target::Kind(K::Host),
                    &n.value.host,
                ) {
                    nodes.push(PoolNode {
                        host,
                        diskful: n.value.diskful,
                    });
                }
            }
            let pat = self.loc(&p.place_count.at);
            meta.set_field_location("place_count", pat);
            if p.place_count.value == 0 {
                self.invalid("place_count", "place_count is at least 1", pat);
            }
            let controller = p.controller.as_ref().map(|c| {
                let at = self.loc(&c.at);
                meta.set_field_location("controller", at);
                let primary = self.opt_reference(
                    &mut meta,
                    "controller.primary",
                    Target::Kind(K::Host),
                    &c.value.primary,
                );
                let standby = self.references(
                    &mut meta,
                    "controller.standby",
                    Target::Kind(K::Host),
                    &c.value.standby,
                );
                let vip = self.field::<IpAddr>(&mut meta, "controller.vip", &c.value.vip);
                LinstorController {
                    primary,
                    standby,
                    vip,
                    ha: c.value.ha,
                }
            });
            let Some(site) = site else { continue };
            t.linstor_pools.push(LinstorPool {
                id,
                site,
                provider: p.provider.clone(),
                storage_pool: p.storage_pool.clone(),
                nodes,
                place_count: p.place_count.value,
                controller,
                meta,
            });
        }

        for k in &f.k3s_clusters {
            let Some((id, mut meta)) = self.component(
                K::K3sCluster,
                &k.id,
                &k.state,
                &k.note,
                &k.use_case,
                k.deferred,
            ) else {
                continue;
            };
            let site = self.reference(&mut meta, "site", Target::Kind(K::Site), &k.site);
            let nodes = self.references(&mut meta, "nodes", Target::Kind(K::Guest), &k.nodes);
            let node_placement = k.node_placement.as_ref().map(|n| {
                let at = self.loc(&n.at);
                meta.set_field_location("node_placement", at);
                n.value
            });
            let candidate_hosts = self.references(
                &mut meta,
                "candidate_hosts",
                Target::Kind(K::Host),
                &k.candidate_hosts,
            );
            let cat = self.loc(&k.cni.at);
            meta.set_field_location("cni", cat);
            let kat = self.loc(&k.cni.value.kind.at);
            meta.set_field_location("cni.kind", kat);
            let cni = Cni {
                kind: k.cni.value.kind.value,
                version: self.field::<Version>(&mut meta, "cni.version", &k.cni.value.version),
            };
            let pat = self.loc(&k.purpose.at);
            meta.set_field_location("purpose", pat);
            let default_deny = self.flag(&mut meta, "default_deny", &k.default_deny);
            let cert_manager = k.cert_manager.as_ref().map(|c| {
                let at = self.loc(&c.at);
                meta.set_field_location("cert_manager", at);
                let state = match &c.value.state {
                    Some(s) => {
                        let sat = self.loc(&s.at);
                        meta.set_field_location("cert_manager.state", sat);
                        s.value.0
                    }
                    None => {
                        self.error(
                            FileErrorKind::MissingState {
                                kind: "cert-manager".to_owned(),
                                id: format!("{}.cert_manager", k.id.value),
                            },
                            at,
                        );
                        State::Desired
                    }
                };
                CertManager {
                    dns01_cluster_issuer: c.value.dns01_cluster_issuer,
                    dns01_provider: c.value.dns01_provider.clone(),
                    state,
                    note: c.value.note.clone(),
                }
            });
            let nvidia_driver = self.field::<Version>(&mut meta, "nvidia_driver", &k.nvidia_driver);
            let cilium_lxc_exception = k.cilium_lxc_exception.as_ref().map(|e| {
                let at = self.loc(&e.at);
                meta.set_field_location("cilium_lxc_exception", at);
                e.value.clone()
            });
            let placement_claims = k
                .placement_claims
                .iter()
                .map(|c| PlacementClaim {
                    placement: c.value.placement,
                    cni: c.value.cni,
                    source: c.value.source.clone(),
                    quote: c.value.quote.clone(),
                    location: self.loc(&c.at),
                })
                .collect();
            let Some(site) = site else { continue };
            t.k3s_clusters.push(K3sCluster {
                id,
                site,
                nodes,
                node_placement,
                candidate_hosts,
                cni,
                purpose: k.purpose.value,
                default_deny,
                hubble: k.hubble,
                cert_manager,
                nvidia_driver,
                cilium_lxc_exception,
                placement_claims,
                meta,
            });
        }

        for a in &f.argocd {
            let Some((id, mut meta)) =
                self.component(K::ArgoCd, &a.id, &a.state, &a.note, &a.use_case, a.deferred)
            else {
                continue;
            };
            let site = self.reference(&mut meta, "site", Target::Kind(K::Site), &a.site);
            let runs_in = self.opt_reference(
                &mut meta,
                "runs_in",
                Target::Kind(K::K3sCluster),
                &a.runs_in,
            );
            let manages = self.references(
                &mut meta,
                "manages",
                Target::Kind(K::K3sCluster),
                &a.manages,
            );
            let Some(site) = site else { continue };
            t.argocd.push(ArgoCd {
                id,
                site,
                runs_in,
                manages,
                meta,
            });
        }

        for p in &f.pbs {
            let Some((id, mut meta)) =
                self.component(K::Pbs, &p.id, &p.state, &p.note, &p.use_case, p.deferred)
            else {
                continue;
            };
            let site = self.reference(&mut meta, "site", Target::Kind(K::Site), &p.site);
            let guest = self.opt_reference(&mut meta, "guest", Target::Kind(K::Guest), &p.guest);
            let datastores = p
                .datastores
                .iter()
                .enumerate()
                .map(|(i, d)| {
                    let at = self.loc(&d.at);
                    meta.set_field_location(format!("datastores[{i}]"), at);
                    Datastore {
                        name: d.value.name.clone(),
                        encrypted: d.value.encrypted,
                    }
                })
                .collect();
            let mut sync_to = Vec::new();
            for (i, s) in p.sync_to.iter().enumerate() {
                let at = self.loc(&s.at);
                meta.set_field_location(format!("sync_to[{i}]"), at);
                let target = self.reference(
                    &mut meta,
                    format!("sync_to[{i}].target"),
                    Target::Kind(K::Pbs),
                    &s.value.target,
                );
                let link = s.value.link.as_ref().and_then(|l| {
                    self.reference(
                        &mut meta,
                        format!("sync_to[{i}].link"),
                        Target::Kind(K::Link),
                        l,
                    )
                });
                if let Some(target) = target {
                    sync_to.push(PbsSync { target, link });
                }
            }
            let rpo = self.field::<Rpo>(&mut meta, "rpo", &p.rpo);
            let Some(site) = site else { continue };
            t.pbs.push(Pbs {
                id,
                site,
                guest,
                datastores,
                sync_to,
                rpo,
                meta,
            });
        }

        for r in &f.routers {
            let Some((id, mut meta)) =
                self.component(K::Router, &r.id, &r.state, &r.note, &r.use_case, r.deferred)
            else {
                continue;
            };
            let site = self.reference(&mut meta, "site", Target::Kind(K::Site), &r.site);
            let vrrp_peer = self.opt_reference(
                &mut meta,
                "vrrp_peer",
                Target::Kind(K::Router),
                &r.vrrp_peer,
            );
            let wireguard_peers = self.references(
                &mut meta,
                "wireguard_peers",
                Target::Kind(K::Router),
                &r.wireguard_peers,
            );
            let Some(site) = site else { continue };
            t.routers.push(Router {
                id,
                site,
                vrrp_peer,
                wireguard_peers,
                subnets: r.subnets.clone(),
                meta,
            });
        }

        for x in &f.traefik {
            let Some((id, mut meta)) = self.component(
                K::Traefik,
                &x.id,
                &x.state,
                &x.note,
                &x.use_case,
                x.deferred,
            ) else {
                continue;
            };
            let site = self.reference(&mut meta, "site", Target::Kind(K::Site), &x.site);
            let guest = self.opt_reference(&mut meta, "guest", Target::Kind(K::Guest), &x.guest);
            let address = self.field::<IpAddr>(&mut meta, "address", &x.address);
            let ha = self.flag(&mut meta, "ha", &x.ha);
            let ha_state = self.state_of(&mut meta, "ha_state", &x.ha_state);
            let Some(site) = site else { continue };
            t.traefik.push(Traefik {
                id,
                site,
                guest,
                address,
                ha,
                ha_state,
                on_boot: x.on_boot,
                meta,
            });
        }

        for l in &f.links {
            let Some((id, mut meta)) =
                self.component(K::Link, &l.id, &l.state, &l.note, &l.use_case, l.deferred)
            else {
                continue;
            };
            let sat = self.loc(&l.sites.at);
            meta.set_field_location("sites", sat);
            let sites: Vec<crate::model::SiteId> =
                self.references(&mut meta, "sites", Target::Kind(K::Site), &l.sites.value);
            let endpoints = self.references(
                &mut meta,
                "endpoints",
                Target::Kind(K::Router),
                &l.endpoints,
            );
            if l.sites.value.len() != 2 {
                self.invalid("sites", "a link joins exactly two sites", sat);
                continue;
            }
            if l.sites.value[0].value == l.sites.value[1].value {
                self.invalid("sites", "a link joins two different sites", sat);
                continue;
            }
            let Ok([a, b]) = <[crate::model::SiteId; 2]>::try_from(sites) else {
                continue;
            };
            t.links.push(Link {
                id,
                kind: l.kind,
                sites: [a, b],
                endpoints,
                over: l.over.clone(),
                meta,
            });
        }

        for p in &f.patterns {
            let Some((id, mut meta)) = self.component(
                K::Pattern,
                &p.id,
                &p.state,
                &p.note,
                &p.use_case,
                p.deferred,
            ) else {
                continue;
            };
            let members = self.references(
                &mut meta,
                "members",
                Target::Kind(K::K3sCluster),
                &p.members,
            );
            let manager = self.opt_reference(
                &mut meta,
                "manager",
                Target::Kind(K::K3sCluster),
                &p.manager,
            );
            let argocd =
                self.opt_reference(&mut meta, "argocd", Target::Kind(K::ArgoCd), &p.argocd);
            t.patterns.push(Pattern {
                id,
                kind: p.kind,
                members,
                manager,
                argocd,
                meta,
            });
        }

        for c in &f.capabilities {
            let Some((id, mut meta)) = self.component(
                K::Capability,
                &c.id,
                &c.state,
                &c.note,
                &c.use_case,
                c.deferred,
            ) else {
                continue;
            };
            let site = self.opt_reference(&mut meta, "site", Target::Kind(K::Site), &c.site);
            let mut alerts = Vec::new();
            for (i, a) in c.alerts.iter().enumerate() {
                let at = self.loc(&a.at);
                meta.set_field_location(format!("alerts[{i}]"), at);
                let state = match &a.value.state {
                    Some(s) => s.value.0,
                    None => {
                        self.error(
                            FileErrorKind::MissingState {
                                kind: "alert".to_owned(),
                                id: format!("{}.alerts[{i}]", c.id.value),
                            },
                            at,
                        );
                        State::Desired
                    }
                };
                alerts.push(Alert {
                    kind: a.value.kind,
                    state,
                    note: a.value.note.clone(),
                    location: at,
                });
            }
            t.capabilities.push(Capability {
                id,
                kind: c.kind,
                tool: c.tool.clone(),
                site,
                alerts,
                meta,
            });
        }

        for i in &f.items {
            let Some((id, mut meta)) =
                self.component(K::Item, &i.id, &i.state, &i.note, &i.use_case, i.deferred)
            else {
                continue;
            };
            let site = self.opt_reference(&mut meta, "site", Target::Kind(K::Site), &i.site);
            let cluster = self.opt_reference(
                &mut meta,
                "cluster",
                Target::Kind(K::K3sCluster),
                &i.cluster,
            );
            t.items.push(Item {
                id,
                layer: i.layer.clone(),
                site,
                cluster,
                meta,
            });
        }

        for s in &f.suppressions {
            let at = self.loc(&s.rule.at);
            let rule = s.rule.value.trim().to_owned();
            if rule.is_empty() {
                self.invalid("rule", "a suppression names a rule id", at);
            }
            let sat = self.loc(&s.subject.at);
            let subject = s.subject.value.trim().to_owned();
            if subject != "*" {
                self.refs.push((Target::Any, subject.clone(), sat));
            }
            let reason = s.reason.value.trim().to_owned();
            if reason.is_empty() {
                let rat = self.loc(&s.reason.at);
                self.invalid("reason", "a suppression must give a reason", rat);
            }
            let expires = s
                .expires
                .as_ref()
                .and_then(|e| self.parse::<jiff::civil::Date>("expires", e));
            t.suppressions.push(Suppression {
                rule,
                subject,
                reason,
                expires,
                location: at,
            });
        }
        t
    }

    fn check_references(&mut self) {
        let mut by_kind: HashMap<ComponentKind, Vec<&str>> = HashMap::new();
        let refs = std::mem::take(&mut self.refs);
        let mut new_errors = Vec::new();
        for (target, id, at) in &refs {
            let found = self.ids.get(id.as_str()).map(|(k, _)| *k);
            let ok = match target {
                Target::Tier => self.tiers.contains_key(id.as_str()),
                Target::Any => found.is_some(),
                Target::Kind(k) => found == Some(*k),
            };
            if ok {
                continue;
            }
            let suggestion = match target {
                Target::Tier => suggest(id, self.tiers.keys().map(String::as_str)),
                Target::Any => suggest(id, self.ids.keys().map(String::as_str)),
                Target::Kind(k) => {
                    if by_kind.is_empty() {
                        for (name, (kind, _)) in &self.ids {
                            by_kind.entry(*kind).or_default().push(name);
                        }
                    }
                    suggest(id, by_kind.get(k).into_iter().flatten().copied())
                }
            };
            new_errors.push((
                FileErrorKind::UnknownReference {
                    kind: target.name().to_owned(),
                    id: id.clone(),
                    suggestion,
                    found_kind: match target {
                        Target::Kind(_) => found.map(|k| k.as_str().to_owned()),
                        Target::Tier | Target::Any => None,
                    },
                },
                *at,
            ));
        }
        self.errors.extend(new_errors);
    }
}
