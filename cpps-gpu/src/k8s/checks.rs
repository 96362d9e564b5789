//! Cross-checks over a [`ClusterSnapshot`]: what Kubernetes believes against itself and against
//! what Kueue, Argo CD and cert-manager say. Pure functions, unit-tested on constructed objects.

use std::collections::{BTreeMap, BTreeSet};

use jiff::Timestamp;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use super::argocd::{OperationPhase, SyncStatusCode, health_severity};
use super::cni::CniKind;
use super::kueue::{AdmissionCheck, MultiKueueCluster, MultiKueueConfig, ResourceFlavor};
use super::nodes::{GpuNode, PluginPod};
use super::quantity;
use super::sharing::{
    Choice, ConfigSource, PluginConfig, PluginDeployment, SharingConfig, Strategy,
};
use super::snapshot::{
    ADMISSION_CHECK, APPLICATION, CERTIFICATE, CLUSTER_QUEUE, CONFIG_MAP, ClusterSnapshot,
    DAEMON_SET, LOCAL_QUEUE, MULTIKUEUE_CLUSTER, MULTIKUEUE_CONFIG, NODE, POD, RESOURCE_FLAVOR,
    RUNTIME_CLASS, WORKLOAD,
};
use crate::health::{Finding, Severity};
use crate::policy::CertExpiryPolicy;

/// Thresholds and expectations for the checks.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CheckPolicy {
    /// When a certificate's expiry is a finding (shared with `cpps-topology`'s INGRESS-002).
    pub cert_expiry: CertExpiryPolicy,
    /// The CNI this cluster should run (ADR-002 / ADR-009), if any.
    pub expected_cni: Option<CniKind>,
}

impl Default for CheckPolicy {
    /// The default [`CertExpiryPolicy`], no CNI expectation.
    fn default() -> Self {
        Self {
            cert_expiry: CertExpiryPolicy::default(),
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

    /// The same policy with other certificate-expiry thresholds.
    pub fn with_cert_expiry(mut self, cert_expiry: CertExpiryPolicy) -> Self {
        self.cert_expiry = cert_expiry;
        self
    }
}

fn obj(kind: &str, ns: Option<&str>, name: Option<&str>) -> String {
    match ns {
        Some(ns) => format!("{kind} {ns}/{}", name.unwrap_or("")),
        None => format!("{kind} {}", name.unwrap_or("")),
    }
}

/// `Kind namespace/name` of a namespaced object, from its metadata.
fn namespaced_obj(kind: &str, meta: &ObjectMeta) -> String {
    obj(kind, meta.namespace.as_deref(), meta.name.as_deref())
}

/// Runs every check; findings sorted most severe first. A check that needs a list the snapshot
/// could not read ([`ClusterSnapshot::unread`]) says "cannot tell" instead of judging an empty
/// list (which would pass, or call what exists missing).
pub fn run(s: &ClusterSnapshot, policy: &CheckPolicy, now: Timestamp) -> Vec<Finding> {
    let mut f = Vec::new();
    let f = &mut f;
    let nodes = [NODE, POD];
    if can_judge(
        s,
        "the device plugin",
        &[NODE, POD, DAEMON_SET, CONFIG_MAP],
        f,
    ) {
        device_plugin(s, f);
    }
    if can_judge(s, "the device-plugin pods", &[POD], f) {
        plugin_pods(&s.plugin_pods, f);
    }
    if can_judge(s, "the nvidia RuntimeClass", &[NODE, POD, RUNTIME_CLASS], f) {
        runtime_class(s, f);
    }
    if can_judge(s, "which device plugin serves each node", &nodes, f) {
        plugin_exclusivity(&s.nodes, f);
    }
    let queues = [RESOURCE_FLAVOR, CLUSTER_QUEUE, ADMISSION_CHECK];
    if can_judge(
        s,
        "the ResourceFlavors",
        &[&queues[..], &nodes[..]].concat(),
        f,
    ) {
        flavors(&local_flavors(s), &s.nodes, f);
    }
    if can_judge(s, "the ClusterQueues' quotas", &queues, f) {
        quotas(s, f);
    }
    kueue_versions(s, f);
    kueue_fallbacks(s, f);
    let mk = [ADMISSION_CHECK, MULTIKUEUE_CONFIG, MULTIKUEUE_CLUSTER];
    if can_judge(s, "MultiKueue", &mk, f) {
        multikueue(s, f);
    }
    if can_judge(
        s,
        "the MultiKueue kubeconfigs",
        &[MULTIKUEUE_CLUSTER, POD],
        f,
    ) {
        worker_kubeconfigs(s, policy, now, f);
    }
    if can_judge(
        s,
        "Kueue's queues",
        &[CLUSTER_QUEUE, LOCAL_QUEUE, WORKLOAD],
        f,
    ) {
        kueue_status(s, f);
    }
    if can_judge(s, "the Argo CD Applications", &[APPLICATION], f) {
        argocd(s, f);
    }
    if can_judge(s, "the Certificates", &[CERTIFICATE], f) {
        certificates(s, policy, now, f);
    }
    if can_judge(s, "the CNI", &[DAEMON_SET, NODE], f) {
        cni(s, policy, f);
    }
    let mut f = std::mem::take(f);
    f.sort_by_key(|x| std::cmp::Reverse(x.severity));
    f
}

/// The ResourceFlavors of this cluster's own queues (not only of MultiKueue manager queues).
fn local_flavors(s: &ClusterSnapshot) -> Vec<ResourceFlavor> {
    let manager = manager_flavors(s);
    s.resource_flavors
        .iter()
        .filter(|rf| {
            !rf.metadata
                .name
                .as_deref()
                .is_some_and(|n| manager.contains(n))
        })
        .cloned()
        .collect()
}

/// Whether the cluster-scoped `kind` `name` was listed but does not decode: it exists, and
/// [`kueue_status`] reports it as undecodable; nothing may call it missing.
fn is_undecodable(s: &ClusterSnapshot, kind: &str, name: &str) -> bool {
    let object = obj(kind, None, Some(name));
    s.undecodable.iter().any(|u| u.object == object)
}

/// Whether every kind `check` needs was read; if not, one "cannot tell" warning per unread kind.
fn can_judge(s: &ClusterSnapshot, check: &str, needs: &[&str], f: &mut Vec<Finding>) -> bool {
    let mut judge = true;
    for u in s.unread.iter().filter(|u| needs.contains(&u.kind)) {
        judge = false;
        f.push(
            Finding::new(
                Severity::Warning,
                "list-unreadable",
                format!("cannot tell {check}: the list could not be read: {}", u.why),
            )
            .about(u.kind),
        );
    }
    judge
}

/// The ClusterQueues whose Workloads MultiKueue dispatches to worker clusters: they use an
/// AdmissionCheck of the MultiKueue controller. Their flavors and quotas describe the workers'
/// capacity, not this cluster's nodes.
fn manager_queues(s: &ClusterSnapshot) -> BTreeSet<&str> {
    let checks: BTreeSet<&str> = s
        .admission_checks
        .iter()
        .filter(|ac| ac.is_multikueue())
        .filter_map(|ac| ac.metadata.name.as_deref())
        .collect();
    s.cluster_queues
        .iter()
        .filter(|cq| cq.spec.admission_check_names().any(|n| checks.contains(n)))
        .filter_map(|cq| cq.metadata.name.as_deref())
        .collect()
}

/// Flavors used only by MultiKueue manager queues.
fn manager_flavors(s: &ClusterSnapshot) -> BTreeSet<&str> {
    let managers = manager_queues(s);
    let mut manager = BTreeSet::new();
    let mut local = BTreeSet::new();
    for cq in &s.cluster_queues {
        let is_manager = cq
            .metadata
            .name
            .as_deref()
            .is_some_and(|n| managers.contains(n));
        for g in &cq.spec.resource_groups {
            for fq in &g.flavors {
                if is_manager {
                    manager.insert(fq.name.as_str());
                } else {
                    local.insert(fq.name.as_str());
                }
            }
        }
    }
    manager.retain(|n| !local.contains(n));
    manager
}

/// The Kueue version each kind was read at, as one informational finding ("say which").
pub fn kueue_versions(s: &ClusterSnapshot, f: &mut Vec<Finding>) {
    if s.kueue_versions.is_empty() {
        return;
    }
    let mut by_version: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (kind, version) in &s.kueue_versions {
        by_version.entry(version).or_default().push(kind);
    }
    let parts: Vec<String> = by_version
        .iter()
        .rev()
        .map(|(v, kinds)| format!("{v} ({})", kinds.join(", ")))
        .collect();
    f.push(Finding::new(
        Severity::Info,
        "kueue-version",
        format!("Kueue read at {}", parts.join("; ")),
    ));
}

/// Kueue kinds read at an older version because the newest answered 500: Kueue's conversion
/// webhook, served by kueue-controller-manager (kueue `config/components/crd/kustomization.yaml`,
/// `patches/webhook_in_*.yaml`), is down, so every read and write at the other version fails
/// (apiextensions-apiserver `pkg/apiserver/conversion/webhook_converter.go` `Convert`).
pub fn kueue_fallbacks(s: &ClusterSnapshot, f: &mut Vec<Finding>) {
    for fb in &s.kueue_fallbacks {
        f.push(
            Finding::new(
                Severity::Critical,
                "kueue-conversion-webhook-down",
                format!(
                    "Kueue's conversion webhook is down (is kueue-controller-manager running?): \
                     read at {} because {} answered {}",
                    fb.read_at, fb.refused, fb.why
                ),
            )
            .about(fb.kind),
        );
    }
}

/// MultiKueue manager: every MultiKueue AdmissionCheck names an existing MultiKueueConfig, and
/// every worker cluster of it exists and is `Active` (what Kueue's own AdmissionCheck
/// controller checks, `pkg/controller/admissionchecks/multikueue/admissioncheck.go`: missing or
/// inactive clusters; none usable makes the check inactive).
pub fn multikueue(s: &ClusterSnapshot, f: &mut Vec<Finding>) {
    let configs: BTreeMap<&str, &MultiKueueConfig> = s
        .multikueue_configs
        .iter()
        .filter_map(|c| c.metadata.name.as_deref().map(|n| (n, c)))
        .collect();
    let clusters: BTreeMap<&str, &MultiKueueCluster> = s
        .multikueue_clusters
        .iter()
        .filter_map(|c| c.metadata.name.as_deref().map(|n| (n, c)))
        .collect();
    let mut seen = WorkersSeen::default();
    for ac in s.admission_checks.iter().filter(|ac| ac.is_multikueue()) {
        let Some((config_name, config)) = multikueue_config_of(s, ac, &configs, f) else {
            continue;
        };
        let (usable, unknown) = judge_workers(s, config_name, config, &clusters, &mut seen, f);
        if usable == 0 && unknown == 0 {
            f.push(
                Finding::new(
                    Severity::Critical,
                    "multikueue-no-usable-cluster",
                    format!(
                        "none of the {} worker cluster(s) of MultiKueueConfig {config_name} is active: Workloads cannot run anywhere",
                        config.spec.clusters.len()
                    ),
                )
                .about(obj("AdmissionCheck", None, ac.metadata.name.as_deref())),
            );
        }
    }
    // Clusters no manager check uses: reported when they are not connected either.
    for (name, c) in &clusters {
        if seen.named.contains(name) {
            continue;
        }
        if let Some(why) = c.inactive_because() {
            f.push(
                Finding::new(
                    Severity::Warning,
                    "multikueue-cluster-inactive",
                    format!("the worker cluster is not connected ({why})"),
                )
                .about(obj("MultiKueueCluster", None, Some(name))),
            );
        }
    }
}

/// The worker clusters [`multikueue`] has met so far, across AdmissionChecks.
#[derive(Default)]
struct WorkersSeen<'a> {
    /// Named by some MultiKueueConfig.
    named: BTreeSet<&'a str>,
    /// Already reported inactive: one finding per cluster, however many configurations name it.
    reported: BTreeSet<&'a str>,
}

/// The MultiKueueConfig a MultiKueue AdmissionCheck names, with its name; `None`, after a
/// finding, when it names none, names one that does not exist, or one that does not decode.
fn multikueue_config_of<'a>(
    s: &ClusterSnapshot,
    ac: &'a AdmissionCheck,
    configs: &BTreeMap<&str, &'a MultiKueueConfig>,
    f: &mut Vec<Finding>,
) -> Option<(&'a str, &'a MultiKueueConfig)> {
    let o = obj("AdmissionCheck", None, ac.metadata.name.as_deref());
    let Some(config_name) = ac.multikueue_config() else {
        f.push(
            Finding::new(
                Severity::Critical,
                "multikueue-config-missing",
                "the MultiKueue AdmissionCheck names no MultiKueueConfig in its parameters",
            )
            .about(o),
        );
        return None;
    };
    if let Some(config) = configs.get(config_name) {
        return Some((config_name, config));
    }
    // Listed but not readable here: it exists, and its own finding says so.
    if is_undecodable(s, "MultiKueueConfig", config_name) {
        f.push(
            Finding::new(
                Severity::Warning,
                "multikueue-config-undecodable",
                format!(
                    "cannot tell where Workloads go: MultiKueueConfig {config_name} does not decode"
                ),
            )
            .about(o),
        );
        return None;
    }
    f.push(
        Finding::new(
            Severity::Critical,
            "multikueue-config-missing",
            format!("MultiKueueConfig {config_name} does not exist: no Workload can be dispatched"),
        )
        .about(o),
    );
    None
}

/// Judges each worker cluster of one MultiKueueConfig: a finding for each one missing or not
/// connected; returns how many are usable and how many cannot be told (they do not decode).
fn judge_workers<'a>(
    s: &ClusterSnapshot,
    config_name: &str,
    config: &'a MultiKueueConfig,
    clusters: &BTreeMap<&str, &MultiKueueCluster>,
    seen: &mut WorkersSeen<'a>,
    f: &mut Vec<Finding>,
) -> (usize, usize) {
    let (mut usable, mut unknown) = (0, 0);
    for cluster in &config.spec.clusters {
        seen.named.insert(cluster.as_str());
        let co = obj("MultiKueueCluster", None, Some(cluster));
        match clusters.get(cluster.as_str()) {
            None if is_undecodable(s, "MultiKueueCluster", cluster) => unknown += 1,
            None => f.push(
                Finding::new(
                    Severity::Warning,
                    "multikueue-cluster-missing",
                    format!("MultiKueueConfig {config_name} names this worker cluster, which does not exist"),
                )
                .about(co),
            ),
            Some(c) => match c.inactive_because() {
                None => usable += 1,
                Some(_) if !seen.reported.insert(cluster.as_str()) => {}
                Some(why) => f.push(
                    Finding::new(
                        Severity::Warning,
                        "multikueue-cluster-inactive",
                        format!("the worker cluster is not connected ({why})"),
                    )
                    .about(co),
                ),
            },
        }
    }
    (usable, unknown)
}

/// The device plugin's configuration, per GPU node: the key its config-manager picks (node label,
/// `DEFAULT_CONFIG`, fallbacks; see [`sharing`](super::sharing)), then the sharing that key
/// configures against the node's labels and capacity, under the resource name the plugin really
/// advertises. Where the DaemonSet does not say which configuration the plugin gets, the node's
/// finding says so: that is never a pass.
pub fn device_plugin(s: &ClusterSnapshot, f: &mut Vec<Finding>) {
    for e in &s.plugin_config_errors {
        f.push(
            Finding::new(
                Severity::Warning,
                "device-plugin-config-invalid",
                e.message.clone(),
            )
            .about(format!("ConfigMap {} key {}", e.configmap, e.key)),
        );
    }
    renames_ignored(&s.plugin_configs, f);
    let mut keys: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for c in &s.plugin_configs {
        keys.entry(c.configmap.as_str()).or_default().push(&c.key);
    }
    for e in &s.plugin_config_errors {
        keys.entry(e.configmap.as_str()).or_default().push(&e.key);
    }
    for node in s.nodes.iter().filter(|n| n.has_gpu()) {
        let o = obj("Node", None, Some(&node.name));
        let deployment = match &node.nvidia_plugin_daemonset {
            Some(ds) => match s.device_plugins.iter().find(|d| &d.daemonset == ds) {
                Some(d) => d,
                None => {
                    f.push(unknown_config(
                        format!("DaemonSet {ds} of the node's device-plugin pod was not read"),
                        &o,
                    ));
                    continue;
                }
            },
            // A HAMi node runs HAMi's plugin, not NVIDIA's: its shares are HAMi's
            // (DeviceSplitCount), not this DaemonSet's configuration.
            None if node.hami_plugin_pod.is_some() => continue,
            // No plugin pod at all (audit N4): no DaemonSet's configuration applies here, and
            // HAMi's register annotation alone outlives HAMi, so it proves no plugin either.
            None => {
                f.push(plugin_absent(node, &o));
                continue;
            }
        };
        let (sharing, place) = match &deployment.config {
            ConfigSource::Unknown(why) => {
                f.push(unknown_config(
                    format!("DaemonSet {}: {why}", deployment.daemonset),
                    &o,
                ));
                continue;
            }
            ConfigSource::ConfigMap(cm) => {
                let cm_keys = keys.get(cm.as_str()).map_or(&[][..], Vec::as_slice);
                match chosen(s, node, deployment, cm, cm_keys, &o) {
                    Ok(chosen) => chosen,
                    Err(finding) => {
                        f.push(finding);
                        continue;
                    }
                }
            }
            _ => (
                None,
                format!(
                    "DaemonSet {} (built-in configuration)",
                    deployment.daemonset
                ),
            ),
        };
        node_sharing(node, sharing, &place, &o, f);
    }
}

/// Device-plugin pods that do not serve: a container in `CrashLoopBackOff` (the kubelet's
/// waiting reason for a container it restarts with back-off, kubernetes
/// `pkg/kubelet/container/sync_result.go` `ErrCrashLoopBackOff`) is critical, since the node's
/// GPUs are then neither advertised nor health-checked; a pod whose `Ready` condition is
/// `False` is a warning; one with no `Ready` condition cannot be judged, and says so.
pub fn plugin_pods(pods: &[PluginPod], f: &mut Vec<Finding>) {
    for p in pods {
        let o = format!("Pod {}", p.pod);
        let node = p.node.as_deref().unwrap_or("no node yet");
        let looping: Vec<&str> = p
            .waiting
            .iter()
            .filter(|(_, reason)| reason == "CrashLoopBackOff")
            .map(|(c, _)| c.as_str())
            .collect();
        let waiting = p
            .waiting
            .iter()
            .map(|(c, r)| format!("{c}: {r}"))
            .collect::<Vec<_>>()
            .join(", ");
        let finding = if !looping.is_empty() {
            Finding::new(
                Severity::Critical,
                "device-plugin-crashlooping",
                format!(
                    "device plugin on {node}: {} in CrashLoopBackOff ({} restarts); the node's GPUs are not advertised",
                    looping.join(", "),
                    p.restarts
                ),
            )
        } else if p.ready == Some(false) {
            Finding::new(
                Severity::Warning,
                "device-plugin-not-ready",
                format!(
                    "device plugin on {node} is not Ready (phase {}{}{waiting})",
                    p.phase.as_deref().unwrap_or("unknown"),
                    if waiting.is_empty() { "" } else { "; " },
                ),
            )
        } else if p.ready.is_none() {
            Finding::new(
                Severity::Warning,
                "device-plugin-readiness-unknown",
                format!(
                    "device plugin on {node} reports no Ready condition (phase {}): cannot tell whether it serves",
                    p.phase.as_deref().unwrap_or("unknown")
                ),
            )
        } else {
            continue;
        };
        f.push(finding.about(o));
    }
}

/// Each MultiKueueCluster's kubeconfig Secret (kueue `MultiKueueConfigSecretKey` `kubeconfig`
/// in Kueue's namespace): missing, or without the key, the manager cannot reach the worker
/// (critical); unreadable or unparsable is "cannot tell" (a warning); a bearer token's `exp`
/// is judged like a certificate's end (the shared [`CertExpiryPolicy`]).
/// Only the expiry is ever shown, never the token.
pub fn worker_kubeconfigs(
    s: &ClusterSnapshot,
    policy: &CheckPolicy,
    now: Timestamp,
    f: &mut Vec<Finding>,
) {
    use super::worker_kubeconfig::WorkerKubeconfig as K;
    for w in &s.worker_secrets {
        let o = obj("MultiKueueCluster", None, Some(&w.cluster));
        let (severity, code, message) = match &w.state {
            K::Missing => (
                Severity::Critical,
                "multikueue-kubeconfig-missing",
                format!(
                    "Secret {} does not exist: the manager cannot reach this worker",
                    w.secret
                ),
            ),
            K::NoKubeconfigKey => (
                Severity::Critical,
                "multikueue-kubeconfig-missing",
                format!(
                    "Secret {} has no key kubeconfig: the manager cannot reach this worker",
                    w.secret
                ),
            ),
            K::Unreadable(why) | K::Unparsable(why) => (
                Severity::Warning,
                "multikueue-kubeconfig-unreadable",
                format!(
                    "cannot tell whether Secret {} lets the manager in: {why}",
                    w.secret
                ),
            ),
            K::Token { expires: Some(exp) } => {
                match credential_expiry(policy, now, *exp, "token", &w.secret) {
                    Some(judged) => judged,
                    None => continue,
                }
            }
            K::ClientCertificate { expires: Some(exp) } => {
                match credential_expiry(policy, now, *exp, "client certificate", &w.secret) {
                    Some(judged) => judged,
                    None => continue,
                }
            }
            // A certificate that does not decode: its end is unknown, never "lasts forever".
            K::ClientCertificate { expires: None } => (
                Severity::Warning,
                "multikueue-kubeconfig-unreadable",
                format!(
                    "cannot tell when the client certificate in Secret {} expires: it does not decode",
                    w.secret
                ),
            ),
            // An exec plugin or credentials in files on the manager: not in the Secret.
            K::NoToken => (
                Severity::Info,
                "multikueue-credential-expiry-unknown",
                format!(
                    "Secret {} holds neither a token nor a client certificate: when its credentials expire cannot be told here",
                    w.secret
                ),
            ),
            K::Token { expires: None } => continue,
        };
        f.push(Finding::new(severity, code, message).about(o));
    }
}

/// A worker credential that ends at `exp` (seconds since the epoch), judged like a
/// certificate's end (the shared [`CertExpiryPolicy`]); `None` when it is not near.
fn credential_expiry(
    policy: &CheckPolicy,
    now: Timestamp,
    exp: i64,
    what: &str,
    secret: &str,
) -> Option<(Severity, &'static str, String)> {
    let e = policy.cert_expiry.judge(exp, now.as_second())?;
    let at = Timestamp::from_second(exp).map_or_else(|_| exp.to_string(), |t| t.to_string());
    Some(if e.expired {
        (
            e.severity,
            "multikueue-token-expired",
            format!("the {what} in Secret {secret} expired at {at}"),
        )
    } else {
        (
            e.severity,
            "multikueue-token-expiring",
            format!(
                "the {what} in Secret {secret} expires at {at} (in {} days)",
                e.days_left
            ),
        )
    })
}

/// The NVIDIA container runtime that GPU pods on K3s name in `runtimeClassName: nvidia`.
///
/// K3s applies RuntimeClass `nvidia` (handler `nvidia`) on every cluster (k3s-io/k3s
/// `manifests/runtimes.yaml`), but configures that handler in a node's containerd only where it
/// finds `nvidia-container-runtime` (`pkg/agent/containerd/nvidia.go`
/// `findNvidiaContainerRuntimes`). So the class is checked (missing, or another handler, is a
/// warning), and then each GPU node's own handlers, as the kubelet publishes them in
/// `status.runtimeHandlers`: without the class's handler, pods that name it cannot start there
/// (a warning about that node); a node that publishes none is "cannot tell" (info), since the
/// API shows nothing else about the node's containerd configuration. RuntimeClasses that could
/// not be read are listed in `missing`; the nodes are still judged, against handler `nvidia`.
pub fn runtime_class(s: &ClusterSnapshot, f: &mut Vec<Finding>) {
    if !s.nodes.iter().any(GpuNode::has_gpu) && s.plugin_pods.is_empty() {
        return;
    }
    let handler = match &s.runtime_classes {
        Some(classes) => nvidia_class(classes, f),
        None => Some("nvidia"),
    };
    if let Some(handler) = handler {
        node_runtimes(s.nodes.iter().filter(|n| n.has_gpu()), handler, f);
    }
}

/// Judges RuntimeClass `nvidia`; its handler, when it exists.
fn nvidia_class<'a>(
    classes: &'a BTreeMap<String, String>,
    f: &mut Vec<Finding>,
) -> Option<&'a str> {
    let o = obj("RuntimeClass", None, Some("nvidia"));
    match classes.get("nvidia").map(String::as_str) {
        Some("nvidia") => Some("nvidia"),
        Some(other) => {
            f.push(
                Finding::new(
                    Severity::Warning,
                    "runtimeclass-nvidia-handler",
                    format!("RuntimeClass nvidia runs handler {other}, not K3s's nvidia"),
                )
                .about(o),
            );
            Some(other)
        }
        None => {
            f.push(
                Finding::new(
                    Severity::Warning,
                    "runtimeclass-nvidia-missing",
                    "the cluster has GPU nodes but no RuntimeClass nvidia: pods that ask for it \
                     are refused (K3s creates it when it finds the NVIDIA container runtime)",
                )
                .about(o),
            );
            None
        }
    }
}

/// Each GPU node's runtime handlers against `handler`.
fn node_runtimes<'a>(
    nodes: impl Iterator<Item = &'a GpuNode>,
    handler: &str,
    f: &mut Vec<Finding>,
) {
    for n in nodes {
        let o = obj("Node", None, Some(&n.name));
        let finding = match &n.runtime_handlers {
            Some(hs) if hs.iter().any(|h| h == handler) => continue,
            Some(hs) => Finding::new(
                Severity::Warning,
                "runtime-nvidia-missing",
                format!(
                    "the node's container runtime has no handler {handler} (it has: {}): pods \
                     with runtimeClassName nvidia cannot start here (K3s adds the handler only \
                     where it finds nvidia-container-runtime)",
                    hs.iter()
                        .map(|h| if h.is_empty() { "\"\"" } else { h.as_str() })
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ),
            None => Finding::new(
                Severity::Info,
                "runtime-nvidia-unknown",
                format!(
                    "cannot tell whether the node has the {handler} container runtime: it \
                     publishes no status.runtimeHandlers (that needs Kubernetes 1.31 or later, or \
                     1.30 with the RecursiveReadOnlyMounts feature gate, which kube-apiserver \
                     otherwise drops the field without, and a CRI that reports its handlers, \
                     such as containerd 2), and RuntimeClass nvidia exists on every K3s cluster \
                     whatever the nodes have"
                ),
            ),
        };
        f.push(finding.about(o));
    }
}

/// The sharing config-manager chooses for `node` from ConfigMap `cm` (with keys `cm_keys`), and
/// where it comes from; `Err` is the finding when it chooses none, or one the plugin refuses.
fn chosen<'a>(
    s: &'a ClusterSnapshot,
    node: &GpuNode,
    deployment: &PluginDeployment,
    cm: &str,
    cm_keys: &[&str],
    o: &str,
) -> Result<(Option<&'a SharingConfig>, String), Finding> {
    let choice = deployment.choose(
        node.labels.get(&deployment.node_label).map(String::as_str),
        cm_keys,
    );
    if let Choice::Fails(why) = &choice {
        return Err(Finding::new(
            Severity::Warning,
            "device-plugin-config-unselected",
            format!("the device plugin's config-manager cannot choose a configuration: {why}"),
        )
        .about(o));
    }
    // The plugin refuses the chosen file and does not start (api/config/v1/replicas.go,
    // config.go): the node offers no GPU at all, not "no sharing".
    if let Some(e) = choice.key().and_then(|k| {
        s.plugin_config_errors
            .iter()
            .find(|e| e.configmap == cm && e.key == k)
    }) {
        return Err(Finding::new(
            Severity::Critical,
            "device-plugin-config-invalid",
            format!(
                "config-manager chooses {cm} key {}, which the device plugin cannot use, so it does not start and the node offers no GPU: {}",
                e.key, e.message
            ),
        )
        .about(o));
    }
    let config = choice.key().and_then(|k| {
        s.plugin_configs
            .iter()
            .find(|c| c.configmap == cm && c.key == k)
    });
    let place = match choice.key() {
        Some(k) => format!("{cm} key {k}"),
        None => format!("{cm} (empty fallback)"),
    };
    Ok((config.and_then(|c| c.sharing.as_ref()), place))
}

/// Label by which the GPU Operator deploys the device plugin on a node (NVIDIA/gpu-operator
/// `assets/state-device-plugin/0500_daemonset.yaml` nodeSelector, value `"true"`).
const DEPLOY_PLUGIN_LABEL: &str = "nvidia.com/gpu.deploy.device-plugin";

/// A GPU node on which no device-plugin pod (NVIDIA's or HAMi's) runs: the kubelet advertises
/// GPUs only while a plugin is registered, so they are not offered to the scheduler. A warning,
/// or info where the GPU Operator was told not to deploy the plugin there.
fn plugin_absent(node: &GpuNode, o: &str) -> Finding {
    let skipped = node.labels.get(DEPLOY_PLUGIN_LABEL).map(String::as_str) == Some("false");
    let (severity, why) = if skipped {
        (
            Severity::Info,
            format!(" ({DEPLOY_PLUGIN_LABEL}=false: the GPU Operator was told to skip it)"),
        )
    } else {
        (Severity::Warning, String::new())
    };
    Finding::new(
        severity,
        "device-plugin-absent",
        format!(
            "no GPU device-plugin pod runs on this GPU node, so the kubelet does not offer its \
             GPUs to the scheduler{why}"
        ),
    )
    .about(o)
}

/// "Cannot tell which configuration the plugin uses", about `object`.
fn unknown_config(why: String, object: &str) -> Finding {
    Finding::new(
        Severity::Warning,
        "device-plugin-config-unknown",
        format!("cannot tell which configuration the device plugin uses: {why}"),
    )
    .about(object)
}

/// Per-resource renames the plugin ignores (`DisableResourceNamingInConfig`).
fn renames_ignored(configs: &[PluginConfig], f: &mut Vec<Finding>) {
    for c in configs {
        let Some(sh) = &c.sharing else { continue };
        for r in &sh.resources {
            if let Some(rename) = r.ignored_rename(sh.rename_by_default) {
                f.push(
                    Finding::new(
                        Severity::Warning,
                        "device-plugin-rename-ignored",
                        format!(
                            "sharing.{}.resources {} sets rename {rename}, which the device plugin ignores (DisableResourceNamingInConfig): it advertises {}",
                            match sh.strategy {
                                Strategy::Mps => "mps",
                                _ => "timeSlicing",
                            },
                            r.name,
                            r.advertised(sh.rename_by_default)
                        ),
                    )
                    .about(format!("ConfigMap {} key {}", c.configmap, c.key)),
                );
            }
        }
    }
}

/// The node's labels and capacity against the sharing its configuration (at `place`) sets.
fn node_sharing(
    node: &GpuNode,
    sharing: Option<&SharingConfig>,
    place: &str,
    o: &str,
    f: &mut Vec<Finding>,
) {
    let (replicas, resource, strategy) = match sharing {
        Some(sh) => match sh.gpu_resource() {
            Some(r) => (
                r.replicas,
                r.advertised(sh.rename_by_default),
                Some(sh.strategy),
            ),
            None => return,
        },
        None => (1, super::nodes::GPU_RESOURCE.to_owned(), None),
    };
    if let Some(r) = node.replicas
        && r != replicas
    {
        f.push(
            Finding::new(
                Severity::Warning,
                "time-slicing-replicas",
                format!("label nvidia.com/gpu.replicas is {r}, {place} configures {replicas}"),
            )
            .about(o),
        );
    }
    if let (Some(label), Some(strategy)) = (&node.sharing_strategy, strategy)
        && label != &strategy.to_string()
    {
        f.push(
            Finding::new(
                Severity::Warning,
                "sharing-strategy",
                format!("label nvidia.com/gpu.sharing-strategy is {label}, {place} configures {strategy}"),
            )
            .about(o),
        );
    }
    if let Some(count) = node.count {
        let expected = f64::from(count) * f64::from(replicas);
        let actual = match resource.as_str() {
            super::nodes::GPU_RESOURCE => node.gpu_capacity,
            super::nodes::SHARED_GPU_RESOURCE => node.shared_gpu_capacity,
            other => node.allocatable.get(other).copied(),
        };
        if actual != Some(expected) {
            f.push(
                Finding::new(
                    Severity::Warning,
                    "time-slicing-capacity",
                    format!(
                        "{resource} capacity is {}, expected {count} GPUs x {replicas} replicas = {expected} ({place})",
                        actual.map_or_else(|| "absent".to_owned(), |a| a.to_string()),
                    ),
                )
                .about(o),
            );
        }
    }
}

/// HAMi and the NVIDIA device plugin must never serve the same node.
///
/// Judged by the plugin pods that run there: HAMi never removes its register annotation
/// (its `NodeCleanUp` clears only the handshake), so after a move to NVIDIA's plugin the
/// annotation alone is a stale leftover, reported as Info.
pub fn plugin_exclusivity(nodes: &[GpuNode], f: &mut Vec<Finding>) {
    for n in nodes {
        let Some(pod) = &n.nvidia_plugin_pod else {
            continue;
        };
        let o = obj("Node", None, Some(&n.name));
        if let Some(hami) = &n.hami_plugin_pod {
            f.push(
                Finding::new(
                    Severity::Critical,
                    "hami-and-device-plugin",
                    format!(
                        "both HAMi ({hami}) and the NVIDIA device plugin ({pod}) manage this node's GPUs"
                    ),
                )
                .about(o),
            );
        } else if n.hami_registered {
            f.push(
                Finding::new(
                    Severity::Info,
                    "hami-registration-stale",
                    format!(
                        "annotation {} is left from HAMi, which no longer runs here; the NVIDIA device plugin ({pod}) serves the node",
                        super::nodes::HAMI_REGISTER
                    ),
                )
                .about(o),
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

/// A flavor a ClusterQueue names that is not among the decoded ones: missing, or, when the list
/// returned it but it does not decode, existing and unjudgeable (Kueue's cache only calls a
/// flavor missing when it is absent, `pkg/cache/scheduler/clusterqueue.go`
/// `updateFlavorMetadata`).
fn flavor_absent(s: &ClusterSnapshot, name: &str) -> Finding {
    if is_undecodable(s, "ResourceFlavor", name) {
        Finding::new(
            Severity::Warning,
            "flavor-undecodable",
            format!(
                "cannot tell the quota of flavor {name}: ResourceFlavor {name} exists but does not decode"
            ),
        )
    } else {
        Finding::new(
            Severity::Warning,
            "flavor-missing",
            format!("flavor {name} does not exist"),
        )
    }
}

/// ClusterQueue nominal quotas above what the flavor's nodes can allocate.
///
/// A MultiKueue manager's queues are left out: their quotas are the worker clusters' capacity.
pub fn quotas(s: &ClusterSnapshot, f: &mut Vec<Finding>) {
    let managers = manager_queues(s);
    let flavors: BTreeMap<&str, &ResourceFlavor> = s
        .resource_flavors
        .iter()
        .filter_map(|rf| rf.metadata.name.as_deref().map(|n| (n, rf)))
        .collect();
    for cq in &s.cluster_queues {
        if cq
            .metadata
            .name
            .as_deref()
            .is_some_and(|n| managers.contains(n))
        {
            continue;
        }
        let o = obj("ClusterQueue", None, cq.metadata.name.as_deref());
        for group in &cq.spec.resource_groups {
            for fq in &group.flavors {
                let Some(rf) = flavors.get(fq.name.as_str()) else {
                    f.push(flavor_absent(s, &fq.name).about(&o));
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

/// Kueue objects that do not decode, LocalQueues without their ClusterQueue, inactive queues,
/// evicted Workloads.
pub fn kueue_status(s: &ClusterSnapshot, f: &mut Vec<Finding>) {
    for u in &s.undecodable {
        // Applications and Certificates are decoded one by one too (snapshot::list_items).
        let other = ["Application ", "Certificate "]
            .iter()
            .any(|k| u.object.starts_with(k));
        f.push(
            Finding::new(
                Severity::Warning,
                if other {
                    "object-undecodable"
                } else {
                    "kueue-object-undecodable"
                },
                format!("cannot tell what it says: {}", u.reason),
            )
            .about(&u.object),
        );
    }
    for lq in &s.local_queues {
        let o = namespaced_obj("LocalQueue", &lq.metadata);
        // Kueue's LocalQueue controller (`pkg/controller/core/localqueue_controller.go`) marks a
        // queue whose ClusterQueue it cannot find inactive, `ClusterQueueDoesNotExist`.
        let message = match lq.spec.cluster_queue.as_deref() {
            None | Some("") => {
                "spec.clusterQueue is not set: Kueue admits nothing from this queue".to_owned()
            }
            Some(name)
                if !s
                    .cluster_queues
                    .iter()
                    .any(|cq| cq.metadata.name.as_deref() == Some(name))
                    && !is_undecodable(s, "ClusterQueue", name) =>
            {
                format!("ClusterQueue {name} does not exist")
            }
            Some(_) => continue,
        };
        f.push(
            Finding::new(
                Severity::Warning,
                "localqueue-without-clusterqueue",
                message,
            )
            .about(o),
        );
    }
    for cq in &s.cluster_queues {
        if let Some(why) = cq
            .status
            .as_ref()
            .and_then(|st| is_false(&st.queue.conditions, "Active"))
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
                .about(namespaced_obj("Workload", &wl.metadata)),
            );
        }
    }
}

/// Argo CD: out of sync, degraded or missing, failed operations, error conditions.
pub fn argocd(s: &ClusterSnapshot, f: &mut Vec<Finding>) {
    for app in &s.applications {
        let o = namespaced_obj("Application", &app.metadata);
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
            && let Some(severity) = health_severity(code)
        {
            let msg = st.health.as_ref().and_then(|h| h.message.clone());
            let finding = if severity == Severity::Critical {
                Finding::new(
                    severity,
                    "argocd-unhealthy",
                    match msg {
                        Some(m) => format!("health {code}: {m}"),
                        None => format!("health {code}"),
                    },
                )
            } else {
                Finding::new(
                    severity,
                    "argocd-health-unknown",
                    format!("health {code}: cannot tell whether the Application is healthy"),
                )
            };
            f.push(finding.about(&o));
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
        let o = namespaced_obj("Certificate", &c.metadata);
        let not_after = c.status.as_ref().and_then(|st| st.not_after.as_ref());
        if let Some(na) = not_after
            && let Some(e) = policy.cert_expiry.judge(na.0.as_second(), now.as_second())
        {
            let (code, message) = if e.expired {
                ("cert-expired", format!("expired at {}", na.0))
            } else {
                (
                    "cert-expiring",
                    format!("expires at {} (in {} days)", na.0, e.days_left),
                )
            };
            f.push(Finding::new(e.severity, code, message).about(&o));
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
    use crate::k8s::sharing::PluginDeployment;

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
            nvidia_plugin_daemonset: None,
            allocatable: BTreeMap::from([("nvidia.com/gpu".to_owned(), gpus)]),
            runtime_handlers: None,
        }
    }

    fn empty() -> ClusterSnapshot {
        ClusterSnapshot::empty()
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

    /// What `collect` records when ConfigMaps answer 403 and Kueue's ClusterQueues 500 (its
    /// conversion webhook down: apiextensions-apiserver `webhook_converter.go`; see
    /// `snapshot::tests`): each check that needs an unread list says "cannot tell" for it.
    #[test]
    fn a_list_not_read_is_cannot_tell_for_each_check_that_needs_it() {
        let mut snap = empty();
        snap.unread = vec![
            super::super::snapshot::Unread::new(
                CONFIG_MAP,
                "403 Forbidden: configmaps is forbidden",
            ),
            super::super::snapshot::Unread::new(
                CLUSTER_QUEUE,
                "Kueue's API is unavailable: 500 InternalError: conversion webhook failed",
            ),
        ];
        let findings = run(&snap, &CheckPolicy::default(), Timestamp::UNIX_EPOCH);
        let unreadable: Vec<(&str, &str)> = findings
            .iter()
            .filter(|f| f.code == "list-unreadable")
            .map(|f| (f.object.as_deref().unwrap_or(""), f.message.as_str()))
            .map(|(o, m)| (o, m.split(':').next().unwrap_or("")))
            .collect();
        assert_eq!(
            unreadable,
            [
                (CONFIG_MAP, "cannot tell the device plugin"),
                (CLUSTER_QUEUE, "cannot tell the ResourceFlavors"),
                (CLUSTER_QUEUE, "cannot tell the ClusterQueues' quotas"),
                (CLUSTER_QUEUE, "cannot tell Kueue's queues"),
            ]
        );
    }

    /// Issue 34 C2: a Kueue kind read at v1beta1 because v1beta2 answered 500 (kueue
    /// `config/components/crd/kustomization.yaml` `patches/webhook_in_*.yaml`: the conversion
    /// webhook is kueue-controller-manager's; apiextensions-apiserver `webhook_converter.go`
    /// `Convert` fails the list without it) is judged as read, and Kueue is said to be down.
    #[test]
    fn a_kueue_list_read_at_the_storage_version_says_the_webhook_is_down() {
        let mut snap = empty();
        snap.kueue_fallbacks = vec![super::super::snapshot::KueueFallback {
            kind: CLUSTER_QUEUE,
            refused: "v1beta2".to_owned(),
            read_at: "v1beta1".to_owned(),
            why: "500 InternalError: conversion webhook for kueue.x-k8s.io/v1beta1, \
                  Kind=ClusterQueue failed: connection refused"
                .to_owned(),
        }];
        let findings = run(&snap, &CheckPolicy::default(), Timestamp::UNIX_EPOCH);
        let down: Vec<(Severity, Option<&str>)> = findings
            .iter()
            .filter(|f| f.code == "kueue-conversion-webhook-down")
            .map(|f| (f.severity, f.object.as_deref()))
            .collect();
        assert_eq!(down, [(Severity::Critical, Some(CLUSTER_QUEUE))]);
        let message = &findings
            .iter()
            .find(|f| f.code == "kueue-conversion-webhook-down")
            .map(|f| f.message.clone())
            .unwrap_or_default();
        assert!(
            message.contains("read at v1beta1 because v1beta2 answered 500 InternalError"),
            "{message}"
        );
        assert!(!findings.iter().any(|f| f.code == "list-unreadable"));
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

    fn plugin(default: Option<&str>) -> PluginDeployment {
        PluginDeployment {
            daemonset: "kube-system/nvdp".to_owned(),
            config: ConfigSource::ConfigMap("kube-system/nvdp-configs".to_owned()),
            node_label: crate::k8s::sharing::CONFIG_LABEL.to_owned(),
            default_config: default.map(str::to_owned),
            fallback_strategies: vec!["named".to_owned(), "single".to_owned()],
        }
    }

    fn config(key: &str, yaml: &str) -> PluginConfig {
        crate::k8s::sharing::parse("kube-system/nvdp-configs", key, yaml).unwrap()
    }

    #[test]
    fn time_slicing_with_renaming_checks_the_shared_resource() {
        let mut s = empty();
        let mut n = node("gpu-sp-01", &[], 0.0);
        n.gpu_capacity = None;
        n.shared_gpu_capacity = Some(4.0);
        n.count = Some(1);
        n.nvidia_plugin_daemonset = Some("kube-system/nvdp".to_owned());
        s.nodes = vec![n];
        s.device_plugins = vec![plugin(None)];
        let ts = |replicas: u32| {
            format!(
                "version: v1\nsharing:\n  timeSlicing:\n    renameByDefault: true\n    resources:\n    - name: nvidia.com/gpu\n      replicas: {replicas}\n"
            )
        };
        s.plugin_configs = vec![config("any", &ts(4))];
        let mut f = Vec::new();
        device_plugin(&s, &mut f);
        assert!(f.is_empty(), "{f:?}");
        s.plugin_configs = vec![config("any", &ts(8))];
        device_plugin(&s, &mut f);
        assert_eq!(f.len(), 1);
        assert_eq!(
            f[0].message,
            "nvidia.com/gpu.shared capacity is 4, expected 1 GPUs x 8 replicas = 8 (kube-system/nvdp-configs key any)"
        );
    }

    /// Issue 34 D1: a plugin DaemonSet whose configuration cannot be followed, or that was not
    /// read at all, is a "cannot tell" finding on each of its nodes, never a silent pass.
    #[test]
    fn an_unknown_configuration_is_said_not_passed() {
        let mut s = empty();
        let mut n = node("gpu-sp-01", &[], 4.0);
        n.nvidia_plugin_daemonset = Some("kube-system/nvdp".to_owned());
        s.nodes = vec![n.clone()];
        let mut d = plugin(None);
        d.config = ConfigSource::Unknown("volume time-slicing-config is not a ConfigMap".into());
        s.device_plugins = vec![d];
        let mut f = Vec::new();
        device_plugin(&s, &mut f);
        let got: Vec<_> = f
            .iter()
            .map(|x| (x.code.as_str(), x.message.as_str()))
            .collect();
        assert_eq!(
            got,
            [(
                "device-plugin-config-unknown",
                "cannot tell which configuration the device plugin uses: DaemonSet kube-system/nvdp: volume time-slicing-config is not a ConfigMap"
            )]
        );
        // The pod's DaemonSet was not among those read (a list filtered by permission).
        s.device_plugins = vec![];
        let mut f = Vec::new();
        device_plugin(&s, &mut f);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].code, "device-plugin-config-unknown");
        assert_eq!(f[0].object.as_deref(), Some("Node gpu-sp-01"));
    }

    /// Suspected item of issue 34, confirmed: a HAMi node (HAMi's device plugin advertises
    /// `nvidia.com/gpu` shares of its own, `nvidia.deviceSplitCount`, default 10, in
    /// Project-HAMi/HAMi `docs/config.md`) was judged by the cluster's only NVIDIA plugin
    /// configuration, which does not run there.
    #[test]
    fn a_hami_node_is_not_judged_by_the_nvidia_plugin_config() {
        let mut s = empty();
        let mut n = node("gpu-hami-01", &[], 10.0);
        n.hami_registered = true;
        n.hami_plugin_pod = Some("kube-system/hami-device-plugin-x".to_owned());
        s.nodes = vec![n];
        s.device_plugins = vec![plugin(None)];
        s.plugin_configs = vec![config(
            "default",
            "version: v1\nsharing:\n  timeSlicing:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 4\n",
        )];
        let mut f = Vec::new();
        device_plugin(&s, &mut f);
        assert!(f.is_empty(), "{f:?}");
    }

    #[test]
    fn an_ignored_rename_is_named_and_capacity_follows_what_is_advertised() {
        let mut s = empty();
        let mut n = node("gpu-sp-01", &[], 4.0);
        n.count = Some(1);
        n.nvidia_plugin_daemonset = Some("kube-system/nvdp".to_owned());
        s.nodes = vec![n];
        s.device_plugins = vec![plugin(None)];
        s.plugin_configs = vec![config(
            "default",
            "version: v1\nsharing:\n  timeSlicing:\n    resources:\n    - name: nvidia.com/gpu\n      rename: nvidia.com/a5000\n      replicas: 4\n",
        )];
        let mut f = Vec::new();
        device_plugin(&s, &mut f);
        let codes: Vec<&str> = f.iter().map(|x| x.code.as_str()).collect();
        // nvidia.com/gpu = 4 is what the plugin advertises: no capacity finding.
        assert_eq!(codes, ["device-plugin-rename-ignored"], "{f:?}");
    }

    #[test]
    fn mps_and_the_default_key() {
        let mut s = empty();
        let mut n = node(
            "gpu-sp-01",
            &[("nvidia.com/gpu.sharing-strategy", "time-slicing")],
            2.0,
        );
        n.sharing_strategy = Some("time-slicing".to_owned());
        n.count = Some(1);
        n.nvidia_plugin_daemonset = Some("kube-system/nvdp".to_owned());
        s.nodes = vec![n];
        s.device_plugins = vec![plugin(Some("a5000-mps"))];
        s.plugin_configs = vec![
            config("other", "version: v1\n"),
            config(
                "a5000-mps",
                "version: v1\nsharing:\n  mps:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 3\n",
            ),
        ];
        let mut f = Vec::new();
        device_plugin(&s, &mut f);
        let msgs: Vec<&str> = f.iter().map(|x| x.message.as_str()).collect();
        assert_eq!(
            msgs,
            [
                "label nvidia.com/gpu.sharing-strategy is time-slicing, kube-system/nvdp-configs key a5000-mps configures mps",
                "nvidia.com/gpu capacity is 2, expected 1 GPUs x 3 replicas = 3 (kube-system/nvdp-configs key a5000-mps)",
            ]
        );
        // A label naming a key the ConfigMap lacks: config-manager fails on that node.
        s.nodes[0].labels.insert(
            crate::k8s::nodes::LABEL_PLUGIN_CONFIG.to_owned(),
            "nope".to_owned(),
        );
        let mut f = Vec::new();
        device_plugin(&s, &mut f);
        assert_eq!(f[0].code, "device-plugin-config-unselected");
    }

    /// Issue 34 D6: a node whose chosen key the plugin refuses (`api/config/v1/replicas.go`:
    /// "number of replicas must be >= 2") runs no device plugin, so it offers no GPU: critical,
    /// not "no sharing".
    #[test]
    fn a_node_on_a_refused_configuration_is_critical() {
        let mut s = empty();
        let mut n = node("gpu-sp-01", &[], 1.0);
        n.labels.insert(
            crate::k8s::nodes::LABEL_PLUGIN_CONFIG.to_owned(),
            "one".to_owned(),
        );
        n.nvidia_plugin_daemonset = Some("kube-system/nvdp".to_owned());
        s.nodes = vec![n];
        s.device_plugins = vec![plugin(None)];
        let (configs, errors) = crate::k8s::sharing::configs(
            &s.device_plugins,
            &[serde_json::from_value(serde_json::json!({
                "metadata": {"name": "nvdp-configs", "namespace": "kube-system"},
                "data": {"one": "version: v1\nsharing:\n  timeSlicing:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 1\n"}
            }))
            .unwrap()],
        );
        (s.plugin_configs, s.plugin_config_errors) = (configs, errors);
        let mut f = Vec::new();
        device_plugin(&s, &mut f);
        let got: Vec<_> = f
            .iter()
            .map(|x| (x.severity, x.code.as_str(), x.object.as_deref()))
            .collect();
        assert_eq!(
            got,
            [
                (
                    Severity::Warning,
                    "device-plugin-config-invalid",
                    Some("ConfigMap kube-system/nvdp-configs key one")
                ),
                (
                    Severity::Critical,
                    "device-plugin-config-invalid",
                    Some("Node gpu-sp-01")
                ),
            ]
        );
        assert!(
            f[1].message.contains("number of replicas must be >= 2"),
            "{}",
            f[1].message
        );
    }

    /// Issue 34 D3: a LocalQueue without `spec.clusterQueue` (optional in kueue
    /// `apis/kueue/v1beta2/localqueue_types.go`) and an object that did not decode are each a
    /// finding about that object.
    #[test]
    fn kueue_objects_are_judged_one_by_one() {
        let mut s = empty();
        let mut lq = crate::k8s::kueue::LocalQueue::new("ml", "team-b", "gpu");
        lq.spec.cluster_queue = None;
        s.local_queues = vec![lq];
        s.undecodable = vec![crate::k8s::kueue::Undecodable {
            object: "LocalQueue ml/odd".into(),
            reason: "invalid type: integer `7`, expected a string".into(),
        }];
        let mut f = Vec::new();
        kueue_status(&s, &mut f);
        let got: Vec<_> = f
            .iter()
            .map(|x| (x.object.as_deref(), x.code.as_str(), x.message.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                (
                    Some("LocalQueue ml/odd"),
                    "kueue-object-undecodable",
                    "cannot tell what it says: invalid type: integer `7`, expected a string"
                ),
                (
                    Some("LocalQueue ml/team-b"),
                    "localqueue-without-clusterqueue",
                    "spec.clusterQueue is not set: Kueue admits nothing from this queue"
                ),
            ]
        );
    }

    /// Audit 34, suspected item 4 (N5 residual). A MultiKueueConfig, MultiKueueCluster or
    /// ClusterQueue that was listed but does not decode exists: Kueue's own controllers read it
    /// (kueue `pkg/controller/admissionchecks/multikueue/admissioncheck.go` looks the config
    /// up by name; `pkg/controller/core/localqueue_controller.go` says
    /// `ClusterQueueDoesNotExist` only when the get is NotFound). The object's own finding says
    /// it cannot be read; nothing calls it missing.
    #[test]
    fn an_undecodable_object_is_not_reported_missing() {
        use crate::k8s::kueue::{AdmissionCheck, LocalQueue, MultiKueueConfig, Undecodable};
        let mut s = empty();
        s.admission_checks = vec![
            AdmissionCheck::multikueue("mk", "odd-config"),
            AdmissionCheck::multikueue("mk2", "config"),
        ];
        s.multikueue_configs = vec![MultiKueueConfig::new("config", &["odd-worker"])];
        s.local_queues = vec![LocalQueue::new("ml", "team-a", "odd-cq")];
        let odd = |object: &str| Undecodable {
            object: object.to_owned(),
            reason: "invalid type: integer `7`, expected a string".to_owned(),
        };
        s.undecodable = vec![
            odd("MultiKueueConfig odd-config"),
            odd("MultiKueueCluster odd-worker"),
            odd("ClusterQueue odd-cq"),
        ];
        let findings = run(&s, &CheckPolicy::default(), Timestamp::UNIX_EPOCH);
        let missing: Vec<(&str, &str)> = findings
            .iter()
            .filter(|f| f.code.ends_with("-missing") || f.code.contains("without"))
            .map(|f| (f.code.as_str(), f.message.as_str()))
            .collect();
        assert_eq!(missing, []);
        let mut got: Vec<(Option<&str>, &str)> = findings
            .iter()
            .filter(|f| f.code.contains("undecodable"))
            .map(|f| (f.object.as_deref(), f.code.as_str()))
            .collect();
        got.sort_unstable();
        assert_eq!(
            got,
            [
                (Some("AdmissionCheck mk"), "multikueue-config-undecodable"),
                (Some("ClusterQueue odd-cq"), "kueue-object-undecodable"),
                (
                    Some("MultiKueueCluster odd-worker"),
                    "kueue-object-undecodable"
                ),
                (
                    Some("MultiKueueConfig odd-config"),
                    "kueue-object-undecodable"
                ),
            ]
        );
    }

    /// Every finding `multikueue` makes, in order, for one snapshot that takes each path: an
    /// AdmissionCheck without parameters, one naming an absent config and one an undecodable
    /// config; a config with an active, an inactive, an absent and an undecodable worker; a
    /// config whose workers are all down (one already reported); and clusters no config names.
    /// It pins the check's whole output so that splitting the function changes nothing.
    #[test]
    fn multikueue_reports_each_path_once_in_order() {
        use crate::k8s::kueue::{AdmissionCheck, MultiKueueCluster, MultiKueueConfig, Undecodable};
        let cluster = |name: &str, active: Option<bool>| -> MultiKueueCluster {
            let status = active.map(|up| {
                serde_json::json!({"conditions": [{
                    "type": "Active",
                    "status": if up { "True" } else { "False" },
                    "reason": if up { "Active" } else { "ClientConnectionFailed" },
                    "message": if up { "Connected" } else { "dial tcp: connection refused" },
                    "lastTransitionTime": "2026-01-01T00:00:00Z",
                }]})
            });
            serde_json::from_value(serde_json::json!({
                "apiVersion": "kueue.x-k8s.io/v1beta2",
                "kind": "MultiKueueCluster",
                "metadata": {"name": name},
                "spec": {},
                "status": status,
            }))
            .expect("a MultiKueueCluster")
        };
        let mut no_params = AdmissionCheck::multikueue("no-params", "unused");
        no_params.spec.parameters = None;
        let mut s = empty();
        s.admission_checks = vec![
            no_params,
            AdmissionCheck::multikueue("gone", "absent"),
            AdmissionCheck::multikueue("odd", "odd-config"),
            AdmissionCheck::multikueue("mk", "cfg"),
            AdmissionCheck::multikueue("mk-down", "cfg-down"),
        ];
        s.multikueue_configs = vec![
            MultiKueueConfig::new("cfg", &["up", "down", "nowhere", "odd-worker"]),
            MultiKueueConfig::new("cfg-down", &["down", "down2"]),
        ];
        s.multikueue_clusters = vec![
            cluster("up", Some(true)),
            cluster("down", Some(false)),
            cluster("down2", None),
            cluster("spare", Some(false)),
            cluster("spare-up", Some(true)),
        ];
        s.undecodable = [
            "MultiKueueConfig odd-config",
            "MultiKueueCluster odd-worker",
        ]
        .map(|object| Undecodable {
            object: object.to_owned(),
            reason: "invalid type: integer `7`, expected a string".to_owned(),
        })
        .to_vec();
        let mut f = Vec::new();
        multikueue(&s, &mut f);
        let got: Vec<String> = f
            .iter()
            .map(|f| {
                format!(
                    "{} {} [{}] {}",
                    f.severity,
                    f.code,
                    f.object.as_deref().unwrap_or(""),
                    f.message
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                "critical multikueue-config-missing [AdmissionCheck no-params] the MultiKueue AdmissionCheck names no MultiKueueConfig in its parameters",
                "critical multikueue-config-missing [AdmissionCheck gone] MultiKueueConfig absent does not exist: no Workload can be dispatched",
                "warning multikueue-config-undecodable [AdmissionCheck odd] cannot tell where Workloads go: MultiKueueConfig odd-config does not decode",
                "warning multikueue-cluster-inactive [MultiKueueCluster down] the worker cluster is not connected (ClientConnectionFailed: dial tcp: connection refused)",
                "warning multikueue-cluster-missing [MultiKueueCluster nowhere] MultiKueueConfig cfg names this worker cluster, which does not exist",
                "warning multikueue-cluster-inactive [MultiKueueCluster down2] the worker cluster is not connected (no Active condition)",
                "critical multikueue-no-usable-cluster [AdmissionCheck mk-down] none of the 2 worker cluster(s) of MultiKueueConfig cfg-down is active: Workloads cannot run anywhere",
                "warning multikueue-cluster-inactive [MultiKueueCluster spare] the worker cluster is not connected (ClientConnectionFailed: dial tcp: connection refused)",
            ]
        );
    }

    /// A ResourceFlavor the list returned but that does not decode here exists: Kueue's cache
    /// calls a flavor missing only when it is absent from its map of flavors (kueue
    /// `pkg/cache/scheduler/clusterqueue.go` `updateFlavorMetadata` appends to `missingFlavors`
    /// only when `flavors[fName]` does not exist, which sets the ClusterQueue inactive with
    /// `FlavorNotFound`). So a ClusterQueue naming it gets a "cannot tell" about its quota, not
    /// `flavor-missing`, as 5e79ddd did for the other Kueue kinds.
    #[test]
    fn an_undecodable_flavor_is_not_reported_missing() {
        use crate::k8s::kueue::Undecodable;
        let mut s = empty();
        s.nodes = vec![node("a", &[("pool", "gpu")], 4.0)];
        s.cluster_queues = vec![
            serde_json::from_value(serde_json::json!({
                "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue",
                "metadata": {"name": "cq"},
                "spec": {"resourceGroups": [{"coveredResources": ["nvidia.com/gpu"], "flavors": [
                    {"name": "odd", "resources": [{"name": "nvidia.com/gpu", "nominalQuota": "4"}]},
                    {"name": "ghost", "resources": [{"name": "nvidia.com/gpu", "nominalQuota": "4"}]}]}]}
            }))
            .unwrap(),
        ];
        s.undecodable = vec![Undecodable {
            object: "ResourceFlavor odd".to_owned(),
            reason: "invalid type: integer `7`, expected a string".to_owned(),
        }];
        let mut f = Vec::new();
        quotas(&s, &mut f);
        let got: Vec<(&str, Severity, &str)> = f
            .iter()
            .map(|x| (x.code.as_str(), x.severity, x.message.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                (
                    "flavor-undecodable",
                    Severity::Warning,
                    "cannot tell the quota of flavor odd: ResourceFlavor odd exists but does not decode"
                ),
                (
                    "flavor-missing",
                    Severity::Warning,
                    "flavor ghost does not exist"
                ),
            ]
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

    /// Audit 34 N1: HAMi never removes its register annotation. Project-HAMi/HAMi
    /// `pkg/device/nvidia/device.go` `NodeCleanUp` marks only `hami.io/node-handshake` for
    /// deletion (`pkg/util/util.go` `MarkAnnotationsToDelete`), and `hami.io/node-nvidia-register`
    /// is written only by the plugin's `register.go`. After a move to NVIDIA's plugin the
    /// annotation stays: what runs on the node decides, and a stale annotation is no conflict.
    #[test]
    fn a_stale_hami_annotation_beside_the_nvidia_plugin_is_not_a_conflict() {
        let mut n = node("gpu-sp-01", &[], 1.0);
        n.hami_registered = true;
        n.nvidia_plugin_pod = Some("kube-system/nvidia-device-plugin-y".to_owned());
        let mut f = Vec::new();
        plugin_exclusivity(std::slice::from_ref(&n), &mut f);
        let got: Vec<(Severity, &str)> = f.iter().map(|x| (x.severity, x.code.as_str())).collect();
        assert_eq!(got, [(Severity::Info, "hami-registration-stale")], "{f:?}");
        // With HAMi's plugin also running there, both serve the node: Critical.
        n.hami_plugin_pod = Some("kube-system/hami-device-plugin-x".to_owned());
        let mut f = Vec::new();
        plugin_exclusivity(&[n], &mut f);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].severity, Severity::Critical);
        assert_eq!(f[0].code, "hami-and-device-plugin");
    }

    #[test]
    fn certificate_thresholds() {
        let now: Timestamp = "2026-06-01T00:00:00Z".parse().unwrap();
        let mut s = empty();
        for (name, not_after) in [
            ("a", "2026-06-15T00:00:00Z"),
            ("b", "2026-06-14T23:59:59Z"),
            ("c", "2026-06-03T23:59:59Z"),
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
                    "expires at 2026-06-14T23:59:59Z (in 13 days)"
                ),
                (
                    "Certificate web/c",
                    Severity::Critical,
                    "expires at 2026-06-03T23:59:59Z (in 2 days)"
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
            Some(crate::k8s::argocd::HealthStatusCode::Unknown(
                "Unheard".to_owned()
            ))
        );
        let mut f = Vec::new();
        argocd(&s, &mut f);
        let got: Vec<_> = f
            .iter()
            .map(|x| (x.severity, x.code.as_str(), x.message.as_str()))
            .collect();
        // A health value this crate does not know is never a pass.
        assert_eq!(
            got,
            [
                (
                    Severity::Warning,
                    "argocd-out-of-sync",
                    "sync status Unknown"
                ),
                (
                    Severity::Warning,
                    "argocd-health-unknown",
                    "health Unheard: cannot tell whether the Application is healthy"
                ),
            ]
        );
    }

    /// argoproj/gitops-engine `pkg/health/health.go`: `HealthStatusUnknown` = "Unknown", "health
    /// assessment failed and actual health status is unknown"; `HealthStatusMissing` = "Missing",
    /// the resource "is missing in the cluster". Unknown is "cannot tell" (a warning), never
    /// silence; Missing is critical, one answer shared with the live audit
    /// (`argocd::health_severity`).
    #[test]
    fn argocd_health_unknown_is_said_and_missing_is_critical() {
        use crate::k8s::argocd::HealthStatusCode;
        let code = |s: &str| -> HealthStatusCode { s.parse().unwrap() };
        assert_eq!(health_severity(&code("Unknown")), Some(Severity::Warning));
        assert_eq!(health_severity(&code("Missing")), Some(Severity::Critical));
        assert_eq!(health_severity(&code("Degraded")), Some(Severity::Critical));
        assert_eq!(health_severity(&code("Healthy")), None);
        assert_eq!(health_severity(&code("Progressing")), None);
        assert_eq!(health_severity(&code("Suspended")), None);
    }

    /// k3s-io/k3s `manifests/runtimes.yaml`: RuntimeClass `nvidia` with handler `nvidia`.
    #[test]
    fn the_nvidia_runtimeclass_is_checked_only_with_gpus() {
        let codes = |s: &ClusterSnapshot| {
            let mut f = Vec::new();
            runtime_class(s, &mut f);
            f.into_iter()
                .map(|x| (x.object.unwrap_or_default(), x.severity, x.code))
                .collect::<Vec<_>>()
        };
        let mut s = empty();
        let mut gpu = node("gpu-1", &[], 1.0);
        gpu.runtime_handlers = Some(vec!["nvidia".to_owned()]);
        s.nodes = vec![gpu];
        // Not read: no verdict on the class here (the snapshot's `missing` says so).
        assert!(codes(&s).is_empty());
        s.runtime_classes = Some(BTreeMap::new());
        assert_eq!(
            codes(&s),
            [(
                "RuntimeClass nvidia".to_owned(),
                Severity::Warning,
                "runtimeclass-nvidia-missing".to_owned()
            )]
        );
        s.runtime_classes = Some(BTreeMap::from([("nvidia".to_owned(), "runc".to_owned())]));
        assert_eq!(codes(&s)[0].2, "runtimeclass-nvidia-handler");
        s.runtime_classes = Some(BTreeMap::from([("nvidia".to_owned(), "nvidia".to_owned())]));
        assert!(codes(&s).is_empty());
        // No GPU anywhere: nothing to say.
        let mut cpu_only = empty();
        cpu_only.runtime_classes = Some(BTreeMap::new());
        assert!(codes(&cpu_only).is_empty());
    }

    /// Audit S-h: a worker kubeconfig with a client certificate (K3s's `k3s.yaml`) is judged by
    /// its `notAfter` like a token's `exp`; one with neither is said, not skipped.
    #[test]
    fn client_certificate_worker_kubeconfigs_are_judged_not_skipped() {
        use crate::k8s::worker_kubeconfig::{WorkerKubeconfig as K, WorkerSecret};
        let now = Timestamp::from_second(1_800_000_000).unwrap();
        let mut s = empty();
        let secret = |cluster: &str, state| WorkerSecret {
            cluster: cluster.to_owned(),
            secret: format!("kueue-system/{cluster}"),
            state,
        };
        s.worker_secrets = vec![
            secret(
                "w-cert",
                K::ClientCertificate {
                    expires: Some(1_800_000_000 + 5 * 86_400),
                },
            ),
            secret("w-exec", K::NoToken),
        ];
        let mut f = Vec::new();
        worker_kubeconfigs(&s, &CheckPolicy::default(), now, &mut f);
        let got: Vec<_> = f
            .iter()
            .map(|x| {
                (
                    x.object.as_deref().unwrap_or(""),
                    x.code.as_str(),
                    x.message.as_str(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                (
                    "MultiKueueCluster w-cert",
                    "multikueue-token-expiring",
                    "the client certificate in Secret kueue-system/w-cert expires at 2027-01-20T08:00:00Z (in 5 days)"
                ),
                (
                    "MultiKueueCluster w-exec",
                    "multikueue-credential-expiry-unknown",
                    "Secret kueue-system/w-exec holds neither a token nor a client certificate: when its credentials expire cannot be told here"
                ),
            ]
        );
    }

    /// Audit N4. The kubelet advertises a node's GPUs only while a device plugin is registered
    /// there; the GPU Operator deploys the plugin only on nodes labelled
    /// `nvidia.com/gpu.deploy.device-plugin=true` (NVIDIA/gpu-operator
    /// `assets/state-device-plugin/0500_daemonset.yaml` nodeSelector). A GPU node with no plugin
    /// pod of either kind is a finding about that node, even where one plugin DaemonSet exists
    /// (it does not run there) and even with HAMi's register annotation, which outlives HAMi
    /// (Project-HAMi/HAMi `pkg/device/nvidia/device.go` `NodeCleanUp` leaves it). A node the
    /// Operator was told to skip (`false`) is only worth knowing.
    #[test]
    fn a_gpu_node_without_a_plugin_pod_is_named() {
        let mut s = empty();
        let mut served = node("gpu-served", &[], 1.0);
        served.nvidia_plugin_daemonset = Some("kube-system/nvdp".to_owned());
        served.nvidia_plugin_pod = Some("kube-system/nvdp-x".to_owned());
        let bare = node("gpu-bare", &[], 4.0);
        let mut stale_hami = node("gpu-stale-hami", &[], 0.0);
        stale_hami.hami_registered = true;
        let skipped = node(
            "gpu-skipped",
            &[
                ("nvidia.com/gpu.deploy.device-plugin", "false"),
                ("nvidia.com/gpu.product", "NVIDIA-RTX-A5000"),
            ],
            0.0,
        );
        s.nodes = vec![served, bare, stale_hami, skipped];
        s.device_plugins = vec![plugin(None)];
        s.plugin_configs = vec![config("any", "version: v1\n")];
        let mut f = Vec::new();
        device_plugin(&s, &mut f);
        let got: Vec<_> = f
            .iter()
            .map(|x| {
                (
                    x.object.as_deref().unwrap_or(""),
                    x.severity,
                    x.code.as_str(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("Node gpu-bare", Severity::Warning, "device-plugin-absent"),
                (
                    "Node gpu-stale-hami",
                    Severity::Warning,
                    "device-plugin-absent"
                ),
                ("Node gpu-skipped", Severity::Info, "device-plugin-absent"),
            ]
        );
        assert_eq!(
            f[0].message,
            "no GPU device-plugin pod runs on this GPU node, so the kubelet does not offer its \
             GPUs to the scheduler"
        );
    }

    /// Audit N3. K3s applies RuntimeClass `nvidia` on every cluster (k3s-io/k3s
    /// `manifests/runtimes.yaml`) but adds the containerd handler only on a node where it finds
    /// `nvidia-container-runtime` (`pkg/agent/containerd/nvidia.go` `findNvidiaContainerRuntimes`),
    /// so the class says nothing about the nodes. What the API does show is each node's
    /// `status.runtimeHandlers`: containerd 2.x reports every configured runtime, the default
    /// one also as `""` (containerd `internal/cri/server/status.go` `Status`), and the kubelet
    /// copies them (kubernetes `pkg/kubelet/nodestatus/setters.go` `RuntimeHandlers`). A GPU
    /// node without `nvidia` there is a finding about that node; a node that publishes no
    /// handlers is "cannot tell", never a pass.
    #[test]
    fn a_gpu_node_without_the_nvidia_handler_is_named_though_the_class_exists() {
        let mut s = empty();
        s.runtime_classes = Some(BTreeMap::from([("nvidia".to_owned(), "nvidia".to_owned())]));
        let mut bare = node("gpu-bare", &[], 1.0);
        bare.runtime_handlers = Some(vec!["".to_owned(), "runc".to_owned()]);
        let mut ready = node("gpu-ready", &[], 1.0);
        ready.runtime_handlers = Some(vec!["".to_owned(), "nvidia".to_owned(), "runc".to_owned()]);
        let silent = node("gpu-silent", &[], 1.0);
        s.nodes = vec![bare, ready, silent];
        let mut f = Vec::new();
        runtime_class(&s, &mut f);
        let got: Vec<_> = f
            .iter()
            .map(|x| {
                (
                    x.object.as_deref().unwrap_or(""),
                    x.severity,
                    x.code.as_str(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("Node gpu-bare", Severity::Warning, "runtime-nvidia-missing"),
                ("Node gpu-silent", Severity::Info, "runtime-nvidia-unknown"),
            ]
        );
        assert_eq!(
            f[0].message,
            "the node's container runtime has no handler nvidia (it has: \"\", runc): pods with \
             runtimeClassName nvidia cannot start here (K3s adds the handler only where it finds \
             nvidia-container-runtime)"
        );
        // Audit 34, suspected item 6: kube-apiserver drops `status.runtimeHandlers` while the
        // RecursiveReadOnlyMounts gate is off (kubernetes `pkg/registry/core/node/strategy.go`
        // `dropDisabledFields`), and that gate is alpha, off, in 1.30 (on by default from
        // 1.31), so a K3s 1.30 node never shows it: the message says why.
        assert!(
            f[1].message.contains(
                "Kubernetes 1.31 or later, or 1.30 with the RecursiveReadOnlyMounts feature gate"
            ),
            "{}",
            f[1].message
        );
    }

    /// An Application without `spec` (a field this crate's type requires) is one finding about
    /// that Application; the list's other items are read.
    #[test]
    fn one_odd_application_does_not_sink_the_list() {
        let item = |name: &str, spec: bool| -> kube::api::DynamicObject {
            let mut v = serde_json::json!({
                "apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
                "metadata": {"name": name, "namespace": "argocd"},
            });
            if spec {
                v["spec"] = serde_json::json!({"destination": {"name": "in-cluster"},
                    "project": "default"});
            }
            serde_json::from_value(v).unwrap()
        };
        let listed: crate::k8s::kueue::Listed<Application> = crate::k8s::kueue::decode_items(
            "Application",
            vec![item("good", true), item("odd", false)],
        );
        assert_eq!(listed.items.len(), 1);
        assert_eq!(listed.undecodable.len(), 1);
        assert_eq!(listed.undecodable[0].object, "Application argocd/odd");
        let mut s = empty();
        s.undecodable = listed.undecodable;
        let mut f = Vec::new();
        kueue_status(&s, &mut f);
        assert_eq!(
            (f[0].object.as_deref(), f[0].code.as_str(), f[0].severity),
            (
                Some("Application argocd/odd"),
                "object-undecodable",
                Severity::Warning
            )
        );
    }
}
