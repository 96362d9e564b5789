//! Cross-checks over a [`ClusterSnapshot`]: what Kubernetes believes against itself and against
//! what Kueue, Argo CD and cert-manager say. Pure functions, unit-tested on constructed objects.

use std::collections::BTreeMap;

use jiff::Timestamp;

use super::argocd::{HealthStatusCode, OperationPhase, SyncStatusCode};
use super::cni::CniKind;
use super::kueue::ResourceFlavor;
use super::nodes::{GpuNode, LABEL_PLUGIN_CONFIG};
use super::quantity;
use super::snapshot::ClusterSnapshot;
use crate::health::{Finding, Severity};

/// Thresholds and expectations for the checks.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CheckPolicy {
    /// A certificate expiring within this many days is a warning.
    pub cert_warning_days: i64,
    /// A certificate expiring within this many days is critical.
    pub cert_critical_days: i64,
    /// The CNI this cluster should run (ADR-002 / ADR-009), if any.
    pub expected_cni: Option<CniKind>,
}

impl Default for CheckPolicy {
    /// 21 days warning, 7 days critical, no CNI expectation.
    fn default() -> Self {
        Self {
            cert_warning_days: 21,
            cert_critical_days: 7,
            expected_cni: None,
        }
    }
}

impl CheckPolicy {
    /// The defaults, expecting `cni`.
    pub fn with_expected_cni(mut self, cni: CniKind) -> Self {
        self.expected_cni = Some(cni);
        self
    }
}

fn obj(kind: &str, ns: Option<&str>, name: Option<&str>) -> String {
    match ns {
        Some(ns) => format!("{kind} {ns}/{}", name.unwrap_or("")),
        None => format!("{kind} {}", name.unwrap_or("")),
    }
}

/// Runs every check; findings sorted most severe first.
pub fn run(s: &ClusterSnapshot, policy: &CheckPolicy, now: Timestamp) -> Vec<Finding> {
    let mut f = Vec::new();
    time_slicing(s, &mut f);
    plugin_exclusivity(&s.nodes, &mut f);
    flavors(&s.resource_flavors, &s.nodes, &mut f);
    quotas(s, &mut f);
    kueue_status(s, &mut f);
    argocd(s, &mut f);
    certificates(s, policy, now, &mut f);
    cni(s, policy, &mut f);
    f.sort_by_key(|x| std::cmp::Reverse(x.severity));
    f
}

/// Time-slicing: the device plugin's configuration against each node's labels and capacity.
pub fn time_slicing(s: &ClusterSnapshot, f: &mut Vec<Finding>) {
    for e in &s.time_slicing_errors {
        f.push(Finding::new(
            Severity::Warning,
            "time-slicing-config-invalid",
            e.clone(),
        ));
    }
    for node in s.nodes.iter().filter(|n| n.has_gpu()) {
        let config = match node.labels.get(LABEL_PLUGIN_CONFIG) {
            Some(key) => s.time_slicing.iter().find(|c| &c.key == key),
            None if s.time_slicing.len() == 1 => s.time_slicing.first(),
            None => None,
        };
        let Some(config) = config else { continue };
        let Some(replicas) = config.gpu_replicas() else {
            continue;
        };
        let o = obj("Node", None, Some(&node.name));
        if let Some(r) = node.replicas
            && r != replicas
        {
            f.push(
                Finding::new(
                    Severity::Warning,
                    "time-slicing-replicas",
                    format!(
                        "label nvidia.com/gpu.replicas is {r}, {} key {} configures {replicas}",
                        config.configmap, config.key
                    ),
                )
                .about(&o),
            );
        }
        if let Some(count) = node.count {
            let expected = f64::from(count) * f64::from(replicas);
            let (resource, actual) = if config.rename_by_default {
                ("nvidia.com/gpu.shared", node.shared_gpu_capacity)
            } else {
                ("nvidia.com/gpu", node.gpu_capacity)
            };
            if actual != Some(expected) {
                f.push(
                    Finding::new(
                        Severity::Warning,
                        "time-slicing-capacity",
                        format!(
                            "{resource} capacity is {}, expected {count} GPUs x {replicas} replicas = {expected} ({} key {})",
                            actual.map_or_else(|| "absent".to_owned(), |a| a.to_string()),
                            config.configmap,
                            config.key
                        ),
                    )
                    .about(&o),
                );
            }
        }
    }
}

/// HAMi and the NVIDIA device plugin must never serve the same node.
pub fn plugin_exclusivity(nodes: &[GpuNode], f: &mut Vec<Finding>) {
    for n in nodes {
        let hami = n.hami_registered || n.hami_plugin_pod.is_some();
        if hami && let Some(pod) = &n.nvidia_plugin_pod {
            f.push(
                Finding::new(
                    Severity::Critical,
                    "hami-and-device-plugin",
                    format!(
                        "both HAMi ({}) and the NVIDIA device plugin ({pod}) manage this node's GPUs",
                        n.hami_plugin_pod
                            .as_deref()
                            .unwrap_or("registration annotation")
                    ),
                )
                .about(obj("Node", None, Some(&n.name))),
            );
        }
    }
}

/// Kueue ResourceFlavors whose node labels match no node, naming the `-SHARED` trap.
pub fn flavors(flavors: &[ResourceFlavor], nodes: &[GpuNode], f: &mut Vec<Finding>) {
    for rf in flavors {
        let labels = &rf.spec.node_labels;
        if labels.is_empty() || nodes.iter().any(|n| n.matches(labels)) {
            continue;
        }
        let mut message = format!(
            "nodeLabels {} match no node",
            labels
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(",")
        );
        for (k, v) in labels {
            let shared = format!("{v}-SHARED");
            let others_match = |n: &&GpuNode| {
                labels
                    .iter()
                    .all(|(k2, v2)| k2 == k || n.labels.get(k2) == Some(v2))
            };
            if let Some(n) = nodes
                .iter()
                .filter(others_match)
                .find(|n| n.labels.get(k) == Some(&shared))
            {
                message.push_str(&format!(
                    "; node {} has {k}={shared}: time-slicing adds -SHARED to the product label",
                    n.name
                ));
                break;
            }
        }
        f.push(
            Finding::new(Severity::Critical, "flavor-matches-no-node", message).about(obj(
                "ResourceFlavor",
                None,
                rf.metadata.name.as_deref(),
            )),
        );
    }
}

/// ClusterQueue nominal quotas above what the flavor's nodes can allocate.
pub fn quotas(s: &ClusterSnapshot, f: &mut Vec<Finding>) {
    let flavors: BTreeMap<&str, &ResourceFlavor> = s
        .resource_flavors
        .iter()
        .filter_map(|rf| rf.metadata.name.as_deref().map(|n| (n, rf)))
        .collect();
    for cq in &s.cluster_queues {
        let o = obj("ClusterQueue", None, cq.metadata.name.as_deref());
        for group in &cq.spec.resource_groups {
            for fq in &group.flavors {
                let Some(rf) = flavors.get(fq.name.as_str()) else {
                    f.push(
                        Finding::new(
                            Severity::Warning,
                            "flavor-missing",
                            format!("flavor {} does not exist", fq.name),
                        )
                        .about(&o),
                    );
                    continue;
                };
                let matching: Vec<&GpuNode> = s
                    .nodes
                    .iter()
                    .filter(|n| n.matches(&rf.spec.node_labels))
                    .collect();
                for r in &fq.resources {
                    let nominal = match quantity::value(&r.nominal_quota) {
                        Ok(v) => v,
                        Err(e) => {
                            f.push(
                                Finding::new(
                                    Severity::Warning,
                                    "quota-invalid",
                                    format!(
                                        "flavor {} resource {} nominalQuota: {e}",
                                        fq.name, r.name
                                    ),
                                )
                                .about(&o),
                            );
                            continue;
                        }
                    };
                    let capacity: f64 = matching
                        .iter()
                        .filter_map(|n| n.allocatable.get(&r.name))
                        .sum();
                    if nominal > capacity {
                        f.push(
                            Finding::new(
                                Severity::Warning,
                                "quota-above-capacity",
                                format!(
                                    "flavor {} {} nominalQuota {} is above the {capacity} allocatable on its {} node(s)",
                                    fq.name,
                                    r.name,
                                    r.nominal_quota.0,
                                    matching.len()
                                ),
                            )
                            .about(&o),
                        );
                    }
                }
            }
        }
    }
}

fn is_false(
    conds: &[k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition],
    t: &str,
) -> Option<String> {
    conds
        .iter()
        .find(|c| c.type_ == t && c.status == "False")
        .map(|c| format!("{}: {}", c.reason, c.message))
}

/// LocalQueues without their ClusterQueue, inactive queues, evicted Workloads, disconnected
/// MultiKueue clusters.
pub fn kueue_status(s: &ClusterSnapshot, f: &mut Vec<Finding>) {
    for lq in &s.local_queues {
        let o = obj(
            "LocalQueue",
            lq.metadata.namespace.as_deref(),
            lq.metadata.name.as_deref(),
        );
        if !s
            .cluster_queues
            .iter()
            .any(|cq| cq.metadata.name.as_deref() == Some(lq.spec.cluster_queue.as_str()))
        {
            f.push(
                Finding::new(
                    Severity::Warning,
                    "localqueue-without-clusterqueue",
                    format!("ClusterQueue {} does not exist", lq.spec.cluster_queue),
                )
                .about(o),
            );
        }
    }
    for cq in &s.cluster_queues {
        if let Some(why) = cq
            .status
            .as_ref()
            .and_then(|st| is_false(&st.conditions, "Active"))
        {
            f.push(
                Finding::new(Severity::Warning, "clusterqueue-inactive", why).about(obj(
                    "ClusterQueue",
                    None,
                    cq.metadata.name.as_deref(),
                )),
            );
        }
    }
    for wl in &s.workloads {
        if let super::kueue::WorkloadState::Evicted { reason } = wl.state() {
            f.push(
                Finding::new(
                    Severity::Warning,
                    "workload-evicted",
                    format!("evicted: {reason}"),
                )
                .about(obj(
                    "Workload",
                    wl.metadata.namespace.as_deref(),
                    wl.metadata.name.as_deref(),
                )),
            );
        }
    }
    for mk in &s.multikueue_clusters {
        if !mk.is_active() {
            f.push(
                Finding::new(
                    Severity::Warning,
                    "multikueue-cluster-inactive",
                    "the worker cluster is not connected",
                )
                .about(obj("MultiKueueCluster", None, mk.metadata.name.as_deref())),
            );
        }
    }
}

/// Argo CD: out of sync, degraded or missing, failed operations, error conditions.
pub fn argocd(s: &ClusterSnapshot, f: &mut Vec<Finding>) {
    for app in &s.applications {
        let o = obj(
            "Application",
            app.metadata.namespace.as_deref(),
            app.metadata.name.as_deref(),
        );
        let Some(st) = &app.status else { continue };
        if let Some(sync) = &st.sync
            && sync.status != SyncStatusCode::Synced
        {
            f.push(
                Finding::new(
                    Severity::Warning,
                    "argocd-out-of-sync",
                    format!("sync status {}", sync.status),
                )
                .about(&o),
            );
        }
        if let Some(code) = st.health.as_ref().and_then(|h| h.status.as_ref())
            && matches!(code, HealthStatusCode::Degraded | HealthStatusCode::Missing)
        {
            let msg = st.health.as_ref().and_then(|h| h.message.clone());
            f.push(
                Finding::new(
                    Severity::Critical,
                    "argocd-unhealthy",
                    match msg {
                        Some(m) => format!("health {code}: {m}"),
                        None => format!("health {code}"),
                    },
                )
                .about(&o),
            );
        }
        if let Some(op) = &st.operation_state
            && matches!(op.phase, OperationPhase::Failed | OperationPhase::Error)
        {
            f.push(
                Finding::new(
                    Severity::Critical,
                    "argocd-sync-failed",
                    format!(
                        "operation {}: {}",
                        op.phase,
                        op.message.as_deref().unwrap_or("")
                    ),
                )
                .about(&o),
            );
        }
        for c in st.conditions.iter().filter(|c| c.type_.ends_with("Error")) {
            f.push(
                Finding::new(
                    Severity::Warning,
                    "argocd-condition",
                    format!("{}: {}", c.type_, c.message),
                )
                .about(&o),
            );
        }
    }
}

/// cert-manager: expired, expiring, not ready.
pub fn certificates(
    s: &ClusterSnapshot,
    policy: &CheckPolicy,
    now: Timestamp,
    f: &mut Vec<Finding>,
) {
    for c in &s.certificates {
        let o = obj(
            "Certificate",
            c.metadata.namespace.as_deref(),
            c.metadata.name.as_deref(),
        );
        let not_after = c.status.as_ref().and_then(|st| st.not_after.as_ref());
        if let Some(na) = not_after {
            let secs = na.0.as_second() - now.as_second();
            let days = secs.div_euclid(86_400);
            if secs <= 0 {
                f.push(
                    Finding::new(
                        Severity::Critical,
                        "cert-expired",
                        format!("expired at {}", na.0),
                    )
                    .about(&o),
                );
            } else if days < policy.cert_critical_days {
                f.push(
                    Finding::new(
                        Severity::Critical,
                        "cert-expiring",
                        format!("expires at {} (in {days} days)", na.0),
                    )
                    .about(&o),
                );
            } else if days < policy.cert_warning_days {
                f.push(
                    Finding::new(
                        Severity::Warning,
                        "cert-expiring",
                        format!("expires at {} (in {days} days)", na.0),
                    )
                    .about(&o),
                );
            }
        }
        if !c.is_ready() {
            let why = c
                .status
                .iter()
                .flat_map(|st| st.conditions.iter())
                .find(|k| k.type_ == "Ready")
                .map(|k| k.message.clone().unwrap_or_default())
                .unwrap_or_else(|| "no Ready condition".to_owned());
            f.push(Finding::new(Severity::Warning, "cert-not-ready", why).about(&o));
        }
    }
}

/// The CNI: reported, and checked against the expected one.
pub fn cni(s: &ClusterSnapshot, policy: &CheckPolicy, f: &mut Vec<Finding>) {
    for c in &s.cni {
        f.push(Finding::new(
            Severity::Info,
            "cni",
            format!(
                "{:?} {} ({})",
                c.kind,
                c.version.as_deref().unwrap_or("version unknown"),
                c.source
            ),
        ));
    }
    if let Some(expected) = &policy.expected_cni {
        if s.cni.is_empty() {
            f.push(Finding::new(
                Severity::Warning,
                "cni-unknown",
                format!("no CNI observed, expected {expected:?}"),
            ));
        } else if s.cni.iter().any(|c| &c.kind != expected) {
            f.push(Finding::new(
                Severity::Warning,
                "cni-unexpected",
                format!(
                    "expected {expected:?}, observed {:?}",
                    s.cni.iter().map(|c| &c.kind).collect::<Vec<_>>()
                ),
            ));
        }
    }
}
