//! An observation as Prometheus metrics, for the `exporter` example, written by the official
//! `prometheus-client` crate: OpenMetrics 1.0 text (`# HELP`/`# TYPE`/`# UNIT`, `# EOF`) for
//! scrapers that ask for it (Prometheus does), the Prometheus text format 0.0.4 otherwise
//! ([`Exposition::negotiate`]). Label values are escaped by the encoder.
//!
//! Names follow the exporters people already alert on, where they overlap:
//! prometheus-pve-exporter (`pve_up{id="node/…"}`, `pve_guest_info`, `pve_ha_state`), Argo
//! CD (`argocd_app_info{sync_status,health_status}`), cert-manager
//! (`certmanager_certificate_expiration_timestamp_seconds`,
//! `certmanager_certificate_ready_status`), natrontech/pbs-exporter (`pbs_up`,
//! `pbs_snapshot_vm_last_timestamp`, `pbs_snapshot_vm_last_verify`) and dcgm-exporter
//! (`DCGM_FI_DEV_XID_ERRORS` with `gpu`, `UUID`, `modelName`, `Hostname`). What none of them
//! has is `cpps_*`: source reachability, LINSTOR/DRBD resource health, PBS job results, GPU
//! health and the audit's findings. Every series carries the `site` label. Every metric is a
//! gauge; a name ending in `_seconds` carries the OpenMetrics unit `seconds` (OpenMetrics
//! requires the unit to be the name's suffix, so the names stay as they are).

use std::collections::BTreeMap;
use std::sync::Arc;

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric as _};
use prometheus_client::metrics::MetricType;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::registry::{Registry, Unit};

use super::facts::{Observation, SiteObservation, SourceKind, Sourced};
use crate::report::Report;

/// Every metric name [`render`] can write, with its help text (all gauges).
pub const METRICS: &[(&str, &str)] = &[
    (
        "cpps_up",
        "Whether a site's source answered the last observation (1) or not (0).",
    ),
    (
        "cpps_observation_timestamp_seconds",
        "When the last observation started.",
    ),
    (
        "pve_up",
        "Node online / guest running (1) or not (0), as prometheus-pve-exporter.",
    ),
    (
        "pve_guest_info",
        "Guest information (always 1), as prometheus-pve-exporter.",
    ),
    (
        "pve_ha_state",
        "HA state of an HA-managed guest (1 for its current state), as prometheus-pve-exporter.",
    ),
    (
        "cpps_linstor_node_online",
        "LINSTOR satellite seen ONLINE by the controller (1) or not (0).",
    ),
    (
        "cpps_linstor_resource_degraded",
        "LINSTOR resource with fewer UpToDate diskful replicas than its place count, or unknown (1).",
    ),
    (
        "cpps_drbd_resource_desynced",
        "DRBD resource Outdated, Inconsistent, resyncing or disconnected (1).",
    ),
    (
        "argocd_app_info",
        "Argo CD Application sync and health status (always 1), as argocd-application-controller.",
    ),
    (
        "certmanager_certificate_expiration_timestamp_seconds",
        "Expiry of a cert-manager Certificate, as cert-manager.",
    ),
    (
        "certmanager_certificate_ready_status",
        "Ready condition of a cert-manager Certificate, as cert-manager.",
    ),
    (
        "pbs_up",
        "Whether the site's PBS answered (1), as pbs-exporter.",
    ),
    (
        "pbs_snapshot_vm_last_timestamp",
        "When the newest backup of a guest was taken, as pbs-exporter.",
    ),
    (
        "pbs_snapshot_vm_last_verify",
        "Whether the newest backup of a guest verified OK (1), as pbs-exporter.",
    ),
    (
        "cpps_pbs_job_last_run_ok",
        "Whether a PBS job's last run succeeded (1) or failed (0).",
    ),
    (
        "cpps_pbs_job_running",
        "Whether a PBS job runs now (1), when it has no last result.",
    ),
    (
        "DCGM_FI_DEV_XID_ERRORS",
        "The last XID error seen on a GPU (0: none), as dcgm-exporter.",
    ),
    (
        "cpps_gpu_health_status",
        "GPU health: 0 ok, 1 info, 2 warning, 3 critical.",
    ),
    (
        "cpps_findings",
        "Unsuppressed audit findings by site, rule and severity.",
    ),
];

/// The wire format of a scrape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exposition {
    /// OpenMetrics 1.0 text, what Prometheus asks for first.
    OpenMetrics,
    /// The Prometheus text format 0.0.4, for clients that do not ask for OpenMetrics.
    PrometheusText,
}

impl Exposition {
    /// The `Content-Type` of a response in this format.
    pub fn content_type(self) -> &'static str {
        match self {
            Exposition::OpenMetrics => "application/openmetrics-text; version=1.0.0; charset=utf-8",
            Exposition::PrometheusText => {
                prometheus_client::encoding::prometheus_text::CONTENT_TYPE
            }
        }
    }

    /// The format a request's `Accept` header asks for: OpenMetrics when it lists
    /// `application/openmetrics-text` with a non-zero `q`, the 0.0.4 text otherwise (as
    /// client_golang's `promhttp` negotiates).
    pub fn negotiate(accept: Option<&str>) -> Exposition {
        let wants_openmetrics = accept.is_some_and(|accept| {
            accept.split(',').any(|range| {
                let mut parts = range.split(';').map(str::trim);
                let media = parts.next().unwrap_or("");
                let q = parts
                    .filter_map(|p| p.strip_prefix("q="))
                    .find_map(|q| q.parse::<f64>().ok())
                    .unwrap_or(1.0);
                media.eq_ignore_ascii_case("application/openmetrics-text") && q > 0.0
            })
        });
        if wants_openmetrics {
            Exposition::OpenMetrics
        } else {
            Exposition::PrometheusText
        }
    }
}

type Labels = Vec<(&'static str, String)>;

/// The series of one observation, grouped by metric in the order of [`METRICS`]; encoded on
/// demand in either [`Exposition`].
#[derive(Debug, Clone, Default)]
pub struct Metrics {
    families: Arc<BTreeMap<&'static str, Vec<(Labels, i64)>>>,
}

#[derive(Debug)]
struct Collected(Arc<BTreeMap<&'static str, Vec<(Labels, i64)>>>);

impl Collector for Collected {
    fn encode(&self, mut encoder: DescriptorEncoder<'_>) -> Result<(), std::fmt::Error> {
        let seconds = Unit::Seconds;
        for (name, help) in METRICS {
            let Some(series) = self.0.get(name) else {
                continue;
            };
            // The encoder appends the unit to the name it is given.
            let (base, unit) = match name.strip_suffix("_seconds") {
                Some(base) => (base, Some(&seconds)),
                None => (*name, None),
            };
            let mut family = encoder.encode_descriptor(base, help, unit, MetricType::Gauge)?;
            for (labels, value) in series {
                let gauge = ConstGauge::new(*value);
                gauge.encode(family.encode_family(labels)?)?;
            }
        }
        Ok(())
    }
}

impl Metrics {
    /// The observation (and, when given, the audit's unsuppressed findings) as series.
    pub fn new(observed: &Observation, report: Option<&Report>) -> Metrics {
        let mut out = Out::default();
        collect(&mut out, observed, report);
        Metrics {
            families: Arc::new(out.series),
        }
    }

    /// The text of a scrape in `exposition`.
    pub fn encode(&self, exposition: Exposition) -> String {
        let mut registry = Registry::default();
        registry.register_collector(Box::new(Collected(self.families.clone())));
        let mut text = String::new();
        // Writing into a `String` cannot fail, and neither can a gauge of an `i64`.
        let _ = match exposition {
            Exposition::OpenMetrics => {
                prometheus_client::encoding::text::encode(&mut text, &registry)
            }
            Exposition::PrometheusText => {
                prometheus_client::encoding::prometheus_text::encode(&mut text, &registry)
            }
        };
        text
    }
}

#[derive(Default)]
struct Out {
    series: BTreeMap<&'static str, Vec<(Labels, i64)>>,
}

impl Out {
    fn push(&mut self, name: &'static str, labels: &[(&'static str, &str)], value: i64) {
        debug_assert!(
            METRICS.iter().any(|(n, _)| *n == name),
            "{name} is not in METRICS"
        );
        let labels = labels.iter().map(|(k, v)| (*k, (*v).to_owned())).collect();
        self.series.entry(name).or_default().push((labels, value));
    }
}

fn flag(b: bool) -> i64 {
    i64::from(b)
}

fn up<T>(out: &mut Out, site: &str, source: SourceKind, id: &str, s: &Sourced<T>) {
    if s.is_configured() {
        let mut labels = vec![("site", site), ("source", source.as_str())];
        if !id.is_empty() {
            labels.push(("id", id));
        }
        out.push("cpps_up", &labels, flag(s.observed().is_some()));
    }
}

/// The observation (and, when given, the audit's unsuppressed findings) as OpenMetrics text:
/// `Metrics::new(observed, report).encode(Exposition::OpenMetrics)`.
pub fn render(observed: &Observation, report: Option<&Report>) -> String {
    Metrics::new(observed, report).encode(Exposition::OpenMetrics)
}

/// Every series of `observed` and `report`, site by site in the observation's order, then the
/// findings.
fn collect(out: &mut Out, observed: &Observation, report: Option<&Report>) {
    out.push("cpps_observation_timestamp_seconds", &[], observed.taken_at);
    for site in &observed.sites {
        let s = site.site.as_str();
        sources_up(out, s, site);
        proxmox(out, s, site);
        linstor(out, s, site);
        kubernetes(out, s, site);
        pbs(out, s, site);
        gpus(out, s, site);
    }
    if let Some(report) = report {
        findings(out, report);
    }
}

/// `cpps_up` for each configured source of site `s`.
fn sources_up(out: &mut Out, s: &str, site: &SiteObservation) {
    up(out, s, SourceKind::Proxmox, "", &site.proxmox);
    up(out, s, SourceKind::Linstor, "", &site.linstor);
    up(out, s, SourceKind::Pbs, "", &site.pbs);
    up(out, s, SourceKind::Vyos, "", &site.vyos);
    for (id, k) in &site.kubernetes {
        up(out, s, SourceKind::Kubernetes, id, k);
    }
    for (id, g) in &site.gpus {
        up(out, s, SourceKind::Nvml, id, g);
    }
}

/// prometheus-pve-exporter's `pve_up`, `pve_guest_info` and `pve_ha_state` of site `s`.
fn proxmox(out: &mut Out, s: &str, site: &SiteObservation) {
    if let Some(pve) = site.proxmox.observed() {
        for n in &pve.nodes {
            let id = format!("node/{}", n.name);
            out.push("pve_up", &[("site", s), ("id", &id)], flag(n.online));
        }
        for g in &pve.guests {
            let kind = if g.kind.as_str() == "lxc" {
                "lxc"
            } else {
                "qemu"
            };
            let id = format!("{kind}/{}", g.vmid);
            out.push(
                "pve_up",
                &[("site", s), ("id", &id)],
                flag(g.status == "running"),
            );
            out.push(
                "pve_guest_info",
                &[
                    ("site", s),
                    ("id", &id),
                    ("node", &g.node),
                    ("name", g.name.as_deref().unwrap_or("")),
                    ("type", kind),
                ],
                1,
            );
            if let Some(state) = &g.ha_state {
                out.push(
                    "pve_ha_state",
                    &[("site", s), ("id", &id), ("state", state)],
                    1,
                );
            }
        }
    }
}

/// LINSTOR's satellites and resources of site `s`, with their DRBD state.
fn linstor(out: &mut Out, s: &str, site: &SiteObservation) {
    if let Some(l) = site.linstor.observed() {
        for n in &l.nodes {
            out.push(
                "cpps_linstor_node_online",
                &[("site", s), ("node", &n.name)],
                flag(n.online),
            );
        }
        for r in &l.resources {
            let pool = r.storage_pools.join(",");
            let labels = [("site", s), ("resource", r.name.as_str()), ("pool", &pool)];
            out.push(
                "cpps_linstor_resource_degraded",
                &labels,
                flag(matches!(r.class.as_str(), "degraded" | "unknown")),
            );
            out.push(
                "cpps_drbd_resource_desynced",
                &labels,
                flag(matches!(r.class.as_str(), "desynced" | "disconnected")),
            );
        }
    }
}

/// Argo CD's `argocd_app_info` and cert-manager's certificate series of each cluster of site `s`.
fn kubernetes(out: &mut Out, s: &str, site: &SiteObservation) {
    for (cluster, k) in &site.kubernetes {
        let Some(k) = k.observed() else { continue };
        for app in &k.applications {
            let (ns, name) = app.name.split_once('/').unwrap_or(("", &app.name));
            out.push(
                "argocd_app_info",
                &[
                    ("site", s),
                    ("cluster", cluster),
                    ("namespace", ns),
                    ("name", name),
                    ("sync_status", app.sync.as_deref().unwrap_or("Unknown")),
                    ("health_status", app.health.as_deref().unwrap_or("Unknown")),
                ],
                1,
            );
        }
        for cert in &k.certificates {
            let (ns, name) = cert.name.split_once('/').unwrap_or(("", &cert.name));
            let labels = [
                ("site", s),
                ("cluster", cluster.as_str()),
                ("namespace", ns),
                ("name", name),
            ];
            if let Some(t) = cert.not_after {
                out.push(
                    "certmanager_certificate_expiration_timestamp_seconds",
                    &labels,
                    t,
                );
            }
            let mut ready = labels.to_vec();
            ready.push(("condition", "True"));
            out.push(
                "certmanager_certificate_ready_status",
                &ready,
                flag(cert.ready),
            );
        }
    }
}

/// pbs-exporter's `pbs_up` and snapshot series of site `s`, and its jobs' last results.
fn pbs(out: &mut Out, s: &str, site: &SiteObservation) {
    if site.pbs.is_configured() {
        out.push(
            "pbs_up",
            &[("site", s)],
            flag(site.pbs.observed().is_some()),
        );
    }
    if let Some(p) = site.pbs.observed() {
        let names: BTreeMap<String, &str> = site
            .proxmox
            .observed()
            .map(|pve| {
                pve.guests
                    .iter()
                    .map(|g| (g.vmid.to_string(), g.name.as_deref().unwrap_or("")))
                    .collect()
            })
            .unwrap_or_default();
        for b in &p.backups {
            let vm_name = names.get(&b.backup_id).copied().unwrap_or("");
            let labels = [
                ("site", s),
                ("datastore", b.store.as_str()),
                ("namespace", b.namespace.as_str()),
                ("vm_id", b.backup_id.as_str()),
                ("vm_name", vm_name),
            ];
            out.push("pbs_snapshot_vm_last_timestamp", &labels, b.newest_time);
            out.push(
                "pbs_snapshot_vm_last_verify",
                &labels,
                flag(b.newest_verified_time == Some(b.newest_time)),
            );
        }
        for j in &p.jobs {
            let labels = [
                ("site", s),
                ("kind", j.kind.as_str()),
                ("id", j.id.as_str()),
                ("datastore", j.store.as_str()),
            ];
            if let Some(ok) = j.last_ok {
                out.push("cpps_pbs_job_last_run_ok", &labels, flag(ok));
            }
            // A running job has no result (`compute_schedule_status`, `Started`); the alert
            // holds the last `last_run_ok` sample while this is 1.
            out.push(
                "cpps_pbs_job_running",
                &labels,
                flag(j.running_since.is_some()),
            );
        }
    }
}

/// dcgm-exporter's `DCGM_FI_DEV_XID_ERRORS` and the GPU health of each host of site `s`.
fn gpus(out: &mut Out, s: &str, site: &SiteObservation) {
    for (host, g) in &site.gpus {
        let Some(g) = g.observed() else { continue };
        let driver = g.driver_version.as_deref().unwrap_or("");
        for gpu in &g.gpus {
            let index = gpu.index.to_string();
            let uuid = gpu.uuid.as_deref().unwrap_or("");
            let labels = [
                ("site", s),
                ("Hostname", host.as_str()),
                ("gpu", index.as_str()),
                ("UUID", uuid),
                ("modelName", gpu.name.as_deref().unwrap_or("")),
                ("DCGM_FI_DRIVER_VERSION", driver),
            ];
            // An event without a UUID is not this GPU's: it has its own series below.
            let last_xid = g
                .xids
                .iter()
                .rev()
                .find(|(u, _)| u.is_some() && u.as_deref() == gpu.uuid.as_deref())
                .map_or(0, |(_, x)| xid_value(*x));
            out.push("DCGM_FI_DEV_XID_ERRORS", &labels, last_xid);
            let health = match gpu.health.as_str() {
                "ok" => 0,
                "info" => 1,
                "warning" => 2,
                _ => 3,
            };
            out.push("cpps_gpu_health_status", &labels, health);
        }
        // NVML gave these events no GPU UUID: the host had one, on a GPU unknown here.
        if let Some((_, x)) = g.xids.iter().rev().find(|(u, _)| u.is_none()) {
            let labels = [
                ("site", s),
                ("Hostname", host.as_str()),
                ("gpu", "unknown"),
                ("UUID", ""),
                ("modelName", ""),
                ("DCGM_FI_DRIVER_VERSION", driver),
            ];
            out.push("DCGM_FI_DEV_XID_ERRORS", &labels, xid_value(*x));
        }
    }
}

/// An XID as the metric's value. cpps-gpu's pseudo-XID for a GPU NVML calls lost
/// ([`cpps_gpu::xid::GPU_LOST`], `NVML_ERROR_GPU_IS_LOST`) is 79, the XID the driver prints
/// when a GPU falls off the bus (NVIDIA's Xid catalog), never a number no driver prints.
fn xid_value(xid: u64) -> i64 {
    if xid == cpps_gpu::xid::GPU_LOST {
        return 79;
    }
    i64::try_from(xid).unwrap_or(i64::MAX)
}

/// `cpps_findings`: the report's unsuppressed findings counted by site, rule and severity.
fn findings(out: &mut Out, report: &Report) {
    let mut counts: BTreeMap<(String, &str, &str), usize> = BTreeMap::new();
    for f in report.active() {
        *counts
            .entry((
                f.site.clone().unwrap_or_default(),
                f.rule.as_str(),
                f.severity.as_str(),
            ))
            .or_default() += 1;
    }
    for ((site, rule, severity), n) in counts {
        out.push(
            "cpps_findings",
            &[("site", &site), ("rule", rule), ("severity", severity)],
            i64::try_from(n).unwrap_or(i64::MAX),
        );
    }
}
