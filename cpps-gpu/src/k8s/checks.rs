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

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::k8s::argocd::Application;
    use crate::k8s::certmanager::Certificate;
    use crate::k8s::timeslicing::{SharedResource, TimeSlicingConfig};

    fn node(name: &str, labels: &[(&str, &str)], gpus: f64) -> GpuNode {
        GpuNode {
            name: name.to_owned(),
            labels: labels
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
            gpu_capacity: Some(gpus),
            gpu_allocatable: Some(gpus),
            shared_gpu_capacity: None,
            product: labels
                .iter()
                .find(|(k, _)| *k == "nvidia.com/gpu.product")
                .map(|(_, v)| (*v).to_owned()),
            count: Some(1),
            replicas: None,
            sharing_strategy: None,
            memory_mib: None,
            hami_gpumem: None,
            hami_gpucores: None,
            hami_registered: false,
            hami_plugin_pod: None,
            nvidia_plugin_pod: None,
            allocatable: BTreeMap::from([("nvidia.com/gpu".to_owned(), gpus)]),
        }
    }

    fn empty() -> ClusterSnapshot {
        ClusterSnapshot {
            nodes: vec![],
            time_slicing: vec![],
            time_slicing_errors: vec![],
            resource_flavors: vec![],
            cluster_queues: vec![],
            local_queues: vec![],
            workloads: vec![],
            multikueue_clusters: vec![],
            applications: vec![],
            certificates: vec![],
            cni: vec![],
            missing: vec![],
        }
    }

    fn flavor(name: &str, labels: &[(&str, &str)]) -> ResourceFlavor {
        ResourceFlavor::new(
            name,
            labels
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
        )
    }

    #[test]
    fn shared_trap_names_the_node() {
        let nodes = vec![
            node(
                "gpu-sp-01",
                &[("nvidia.com/gpu.product", "NVIDIA-RTX-A5000-SHARED")],
                4.0,
            ),
            node("other", &[("nvidia.com/gpu.product", "NVIDIA-A5500")], 1.0),
        ];
        let mut f = Vec::new();
        flavors(
            &[
                flavor("a5000", &[("nvidia.com/gpu.product", "NVIDIA-RTX-A5000")]),
                flavor(
                    "a5000-shared",
                    &[("nvidia.com/gpu.product", "NVIDIA-RTX-A5000-SHARED")],
                ),
                flavor("any", &[]),
            ],
            &nodes,
            &mut f,
        );
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].object.as_deref(), Some("ResourceFlavor a5000"));
        assert_eq!(
            f[0].message,
            "nodeLabels nvidia.com/gpu.product=NVIDIA-RTX-A5000 match no node; node gpu-sp-01 has \
             nvidia.com/gpu.product=NVIDIA-RTX-A5000-SHARED: time-slicing adds -SHARED to the product label"
        );
    }

    #[test]
    fn quota_against_matching_nodes_only() {
        let mut s = empty();
        s.nodes = vec![
            node("a", &[("pool", "gpu")], 4.0),
            node("b", &[("pool", "gpu")], 4.0),
            node("c", &[("pool", "cpu")], 8.0),
        ];
        s.resource_flavors = vec![flavor("gpu", &[("pool", "gpu")])];
        let cq = |q: &str| -> crate::k8s::kueue::ClusterQueue {
            serde_json::from_value(serde_json::json!({
                "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue",
                "metadata": {"name": format!("cq-{q}")},
                "spec": {"resourceGroups": [{"coveredResources": ["nvidia.com/gpu"], "flavors": [
                    {"name": "gpu", "resources": [{"name": "nvidia.com/gpu", "nominalQuota": q}]},
                    {"name": "ghost", "resources": [{"name": "nvidia.com/gpu", "nominalQuota": q}]}]}]}
            }))
            .unwrap()
        };
        s.cluster_queues = vec![cq("8"), cq("9"), cq("x9")];
        let mut f = Vec::new();
        quotas(&s, &mut f);
        let got: Vec<(&str, &str)> = f
            .iter()
            .map(|x| (x.object.as_deref().unwrap(), x.code.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("ClusterQueue cq-8", "flavor-missing"),
                ("ClusterQueue cq-9", "quota-above-capacity"),
                ("ClusterQueue cq-9", "flavor-missing"),
                ("ClusterQueue cq-x9", "quota-invalid"),
                ("ClusterQueue cq-x9", "flavor-missing"),
            ]
        );
    }

    #[test]
    fn time_slicing_with_renaming_checks_the_shared_resource() {
        let mut s = empty();
        let mut n = node("gpu-sp-01", &[], 0.0);
        n.gpu_capacity = None;
        n.shared_gpu_capacity = Some(4.0);
        n.count = Some(1);
        s.nodes = vec![n];
        s.time_slicing = vec![TimeSlicingConfig {
            configmap: "gpu-operator/ts".to_owned(),
            key: "any".to_owned(),
            rename_by_default: true,
            resources: vec![SharedResource {
                name: "nvidia.com/gpu".to_owned(),
                replicas: 4,
                rename: None,
            }],
        }];
        let mut f = Vec::new();
        time_slicing(&s, &mut f);
        assert!(f.is_empty(), "{f:?}");
        s.time_slicing[0].resources[0].replicas = 8;
        time_slicing(&s, &mut f);
        assert_eq!(f.len(), 1);
        assert_eq!(
            f[0].message,
            "nvidia.com/gpu.shared capacity is 4, expected 1 GPUs x 8 replicas = 8 (gpu-operator/ts key any)"
        );
    }

    #[test]
    fn exclusivity() {
        let mut n = node("n", &[], 1.0);
        n.hami_plugin_pod = Some("kube-system/hami-device-plugin-x".to_owned());
        let mut f = Vec::new();
        plugin_exclusivity(std::slice::from_ref(&n), &mut f);
        assert!(f.is_empty());
        n.nvidia_plugin_pod = Some("kube-system/nvidia-device-plugin-y".to_owned());
        plugin_exclusivity(&[n], &mut f);
        assert_eq!(f[0].severity, Severity::Critical);
    }

    #[test]
    fn certificate_thresholds() {
        let now: Timestamp = "2026-06-01T00:00:00Z".parse().unwrap();
        let mut s = empty();
        for (name, not_after) in [
            ("a", "2026-06-30T00:00:00Z"),
            ("b", "2026-06-15T00:00:00Z"),
            ("c", "2026-06-03T00:00:00Z"),
            ("d", "2026-05-31T00:00:00Z"),
        ] {
            let mut c = Certificate::new("web", name, "tls", "le", &["x.example.invalid"]);
            c.status = Some(
                serde_json::from_value(serde_json::json!({
                    "notAfter": not_after,
                    "conditions": [{"type": "Ready", "status": "True"}]
                }))
                .unwrap(),
            );
            s.certificates.push(c);
        }
        let mut f = Vec::new();
        certificates(&s, &CheckPolicy::default(), now, &mut f);
        let got: Vec<(&str, Severity, &str)> = f
            .iter()
            .map(|x| (x.object.as_deref().unwrap(), x.severity, x.message.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                (
                    "Certificate web/b",
                    Severity::Warning,
                    "expires at 2026-06-15T00:00:00Z (in 14 days)"
                ),
                (
                    "Certificate web/c",
                    Severity::Critical,
                    "expires at 2026-06-03T00:00:00Z (in 2 days)"
                ),
                (
                    "Certificate web/d",
                    Severity::Critical,
                    "expired at 2026-05-31T00:00:00Z"
                ),
            ]
        );
    }

    #[test]
    fn argocd_unknown_values_are_kept_and_flagged() {
        let mut s = empty();
        let mut app = Application::new("argocd", "x", "default", "https://k", "ns");
        app.status = Some(
            serde_json::from_value(serde_json::json!({
                "sync": {"status": "Unknown"},
                "health": {"status": "Unheard"}
            }))
            .unwrap(),
        );
        s.applications.push(app);
        let st = s.applications[0].status.as_ref().unwrap();
        assert_eq!(
            st.sync.as_ref().unwrap().status,
            SyncStatusCode::Unknown("Unknown".to_owned())
        );
        assert_eq!(
            st.health.as_ref().unwrap().status,
            Some(HealthStatusCode::Unknown("Unheard".to_owned()))
        );
        let mut f = Vec::new();
        argocd(&s, &mut f);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].message, "sync status Unknown");
    }
}
