//! The NVIDIA driver update of ADR-009 as a plan: «Atualização do driver no Proxmox = janela de
//! manutenção do cluster GPU», «Plano de rollback: snapshot LINSTOR do LXC antes»,
//! «Documentar versão exata em runbook».
//!
//! [`plan_driver_update`] finds the GPU LXC(s) of a host in the topology (and where they really
//! run, in Proxmox, when observed), the LINSTOR resources behind their volumes, and writes the
//! maintenance steps and the rollback. Only the snapshot step is executable
//! ([`apply_snapshots`]); every other step is for a person, written so that it can be followed.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::time::Duration;

use cpps_linstor::{Plan, ResourceName, SnapshotName};
use serde::Serialize;

use super::facts::{LinstorFacts, PveFacts, PveGuest};
use crate::model::{Guest, GuestKind, Host, Topology};

/// A GPU container of the host and what protects its data.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PlannedGuest {
    /// The guest id of the topology.
    pub id: String,
    /// Its VM id, when Proxmox was observed.
    pub vmid: Option<u32>,
    /// The K3s cluster it is a node of.
    pub cluster: Option<String>,
    /// Its volumes, as Proxmox writes them (`storage:volume`).
    pub volumes: Vec<String>,
    /// The LINSTOR resources behind those volumes.
    pub resources: Vec<String>,
}

/// The whole plan.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DriverUpdatePlan {
    /// The GPU host.
    pub host: String,
    /// The driver version the topology pins today (what a rollback returns to).
    pub current_driver: Option<String>,
    /// The version to install, when given.
    pub target_driver: Option<String>,
    /// The snapshot name used for every resource.
    pub snapshot: String,
    /// The GPU containers.
    pub guests: Vec<PlannedGuest>,
    /// The LINSTOR snapshot requests (the executable step).
    pub snapshots: Vec<Plan>,
    /// The maintenance steps, in order.
    pub steps: Vec<String>,
    /// The rollback, in order.
    pub rollback: Vec<String>,
    /// What the plan could not establish and a person must check.
    pub warnings: Vec<String>,
}

/// Why no plan can be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RunbookError {
    /// The host is not in the topology.
    #[error("the topology has no host `{0}`")]
    UnknownHost(String),
    /// The host has no GPU LXC in the topology nor in Proxmox.
    #[error("host `{0}` has no GPU container: nothing to plan")]
    NoGpuGuest(String),
    /// The snapshot name is not a valid LINSTOR name.
    #[error("`{0}` is not a valid LINSTOR snapshot name")]
    SnapshotName(String),
}

/// The name part of a Proxmox volume id (`linstor_sp:pm-1a2b3c4d_201` → `pm-1a2b3c4d_201`).
fn volume_name(volume: &str) -> &str {
    volume.split_once(':').map_or(volume, |(_, name)| name)
}

/// Plans the driver update of `host`.
///
/// `pve` and `linstor` are what the site's systems say, when observed: without Proxmox the
/// containers' volumes are unknown; without LINSTOR no snapshot can be planned. Each gap is a
/// warning in the plan, never a guess.
pub fn plan_driver_update(
    topology: &Topology,
    host: &str,
    pve: Option<&PveFacts>,
    linstor: Option<&LinstorFacts>,
    snapshot: &str,
    target_driver: Option<&str>,
) -> Result<DriverUpdatePlan, RunbookError> {
    let h = host
        .parse()
        .ok()
        .and_then(|id| topology.host(&id))
        .ok_or_else(|| RunbookError::UnknownHost(host.to_owned()))?;
    let snapshot_name =
        SnapshotName::new(snapshot).map_err(|_| RunbookError::SnapshotName(snapshot.to_owned()))?;
    let mut warnings = Vec::new();
    let gpu_guests: Vec<_> = topology
        .guests_on(&h.id)
        .filter(|g| g.kind == GuestKind::Lxc && g.gpu.is_some())
        .collect();
    if gpu_guests.is_empty() {
        return Err(RunbookError::NoGpuGuest(host.to_owned()));
    }
    let current_driver = current_driver(topology, h, &gpu_guests);
    if current_driver.is_none() {
        warnings.push(format!(
            "the topology pins no NVIDIA driver for {host}: write the running version in `nvidia_driver` before the update, or the rollback has no target (ADR-009: «Documentar versão exata»)"
        ));
    }
    if pve.is_none() {
        warnings.push(
            "Proxmox was not observed: the containers' VM ids and volumes are unknown".to_owned(),
        );
    }
    if linstor.is_none() {
        warnings.push("LINSTOR was not observed: no snapshot can be planned".to_owned());
    }

    let planning = GuestPlanning {
        topology,
        host,
        pve_observed: pve.is_some(),
        pve_index: pve.map(super::pve::index::PveIndex::new),
        linstor,
        resource_names: linstor
            .map(|l| l.resources.iter().map(|r| r.name.as_str()).collect())
            .unwrap_or_default(),
        snapshot_name: &snapshot_name,
    };
    let mut guests = Vec::new();
    let mut snapshots = Vec::new();
    for g in &gpu_guests {
        guests.push(planning.plan(g, &mut snapshots, &mut warnings));
    }

    let target = target_driver.map(ToOwned::to_owned);
    let target_text = target.as_deref().unwrap_or("<target version>");
    let current_text = current_driver.as_deref().unwrap_or("<current version>");
    let steps = steps(host, &guests, &snapshots, target_text, current_text);
    let rollback = rollback(
        host,
        &guests,
        !snapshots.is_empty(),
        snapshot,
        &snapshot_name,
        current_text,
    );
    Ok(DriverUpdatePlan {
        host: host.to_owned(),
        current_driver,
        target_driver: target,
        snapshot: snapshot.to_owned(),
        guests,
        snapshots,
        steps,
        rollback,
        warnings,
    })
}

/// The driver the topology pins for host `h`: the host's own, else the first of the clusters
/// its GPU guests are nodes of.
fn current_driver(topology: &Topology, h: &Host, gpu_guests: &[&Guest]) -> Option<String> {
    h.nvidia_driver
        .as_ref()
        .map(ToString::to_string)
        .or_else(|| {
            gpu_guests
                .iter()
                .filter_map(|g| topology.cluster_of_guest(&g.id))
                .find_map(|k| k.nvidia_driver.as_ref().map(ToString::to_string))
        })
}

/// What planning each GPU container of the host reads: the topology and what Proxmox and
/// LINSTOR said.
struct GuestPlanning<'a> {
    topology: &'a Topology,
    host: &'a str,
    /// Whether Proxmox was observed (a guest it does not list is then a warning).
    pve_observed: bool,
    pve_index: Option<super::pve::index::PveIndex<'a>>,
    linstor: Option<&'a LinstorFacts>,
    /// The names of the LINSTOR resources observed.
    resource_names: HashSet<&'a str>,
    snapshot_name: &'a SnapshotName,
}

impl GuestPlanning<'_> {
    /// Guest `g`'s part of the plan; its snapshot requests go to `snapshots`, what cannot be
    /// established to `warnings`.
    fn plan(
        &self,
        g: &Guest,
        snapshots: &mut Vec<Plan>,
        warnings: &mut Vec<String>,
    ) -> PlannedGuest {
        let host = self.host;
        let observed = self.pve_index.as_ref().and_then(|p| p.guest(g.id.as_str()));
        if self.pve_observed && observed.is_none() {
            let why = self
                .pve_index
                .as_ref()
                .and_then(super::pve::index::PveIndex::nameless_guests);
            warnings.push(match why {
                Some(why) => format!("guest {} is not in Proxmox by name: {why}", g.id),
                None => format!("guest {} is not in Proxmox", g.id),
            });
        }
        if let Some(o) = observed
            && o.node != host
        {
            warnings.push(format!(
                "guest {} runs on {}, not on {host}: its GPU is not this host's",
                g.id, o.node
            ));
        }
        let volumes = observed.map(|o| o.volumes.clone()).unwrap_or_default();
        let mut resources = Vec::new();
        if let (Some(l), Some(o)) = (self.linstor, observed) {
            resources = self.resources(g, o, l, &volumes, warnings);
        }
        for r in &resources {
            match ResourceName::new(r.as_str()) {
                Ok(name) => snapshots.push(Plan::snapshot_create(&name, self.snapshot_name, &[])),
                Err(_) => warnings.push(format!("`{r}` is not a valid LINSTOR resource name")),
            }
        }
        PlannedGuest {
            id: g.id.to_string(),
            vmid: observed.map(|o| o.vmid),
            cluster: self
                .topology
                .cluster_of_guest(&g.id)
                .map(|k| k.id.to_string()),
            volumes,
            resources,
        }
    }

    /// The LINSTOR resources behind guest `g` (observed as `o`): those its `volumes` name, then
    /// those named after its VM id.
    fn resources(
        &self,
        g: &Guest,
        o: &PveGuest,
        l: &LinstorFacts,
        volumes: &[String],
        warnings: &mut Vec<String>,
    ) -> Vec<String> {
        let mut resources = Vec::new();
        let suffix = format!("_{}", o.vmid);
        for v in volumes {
            let name = volume_name(v);
            // linstor-proxmox names a volume after its resource (`pm-1a2b3c4d_201`, or
            // `vm-201-disk-1` in older plugins).
            match self.resource_names.get(name) {
                Some(r) => resources.push((*r).to_owned()),
                None => warnings.push(format!(
                    "volume {v} of {} is not a LINSTOR resource: no snapshot protects it (a PBS backup must)",
                    g.id
                )),
            }
        }
        let by_vmid: Vec<String> = l
            .resources
            .iter()
            .filter(|r| r.name.ends_with(&suffix) && !resources.contains(&r.name))
            .map(|r| r.name.clone())
            .collect();
        resources.extend(by_vmid);
        resources
    }
}

/// A container as the steps name it: its VM id and guest id, or the guest id alone.
fn container(g: &PlannedGuest) -> String {
    g.vmid
        .map_or_else(|| g.id.clone(), |v| format!("{v} ({})", g.id))
}

/// The maintenance steps of the driver update of `host`, in order.
fn steps(
    host: &str,
    guests: &[PlannedGuest],
    snapshots: &[Plan],
    target_text: &str,
    current_text: &str,
) -> Vec<String> {
    let mut steps = Vec::new();
    let clusters: Vec<String> = guests.iter().filter_map(|g| g.cluster.clone()).collect();
    steps.push(format!(
        "Announce the maintenance window of the GPU cluster{} {}: the driver update on {host} stops its GPU work.",
        if clusters.len() == 1 { "" } else { "s" },
        if clusters.is_empty() { "(none declared)".to_owned() } else { clusters.join(", ") }
    ));
    for g in guests {
        steps.push(format!(
            "Drain node {} of {}: kubectl drain {} --ignore-daemonsets --delete-emptydir-data",
            g.id,
            g.cluster.as_deref().unwrap_or("its cluster"),
            g.id
        ));
    }
    for g in guests {
        steps.push(format!(
            "Shut container {} down: POST /nodes/{host}/lxc/{}/status/shutdown (pct shutdown)",
            container(g),
            g.vmid
                .map_or_else(|| "<vmid>".to_owned(), |v| v.to_string())
        ));
    }
    if snapshots.is_empty() {
        steps.push(
            "Snapshot: nothing to snapshot on LINSTOR; confirm a verified PBS backup of each container instead.".to_owned(),
        );
    } else {
        for p in snapshots {
            steps.push(format!("Snapshot (--apply runs this step and waits): {p}"));
        }
    }
    steps.push(format!(
        "Install NVIDIA driver {target_text} on {host} (replacing {current_text}); reboot {host} if the kernel module does not reload."
    ));
    steps.push(format!(
        "Check the host: nvidia-smi shows {target_text}; `gpu-health --driver-version {target_text}` exits 0 and dmesg shows no NVRM/Xid error."
    ));
    // A privileged container uses the host's kernel module with its own user-space libraries:
    // until they match, NVML in it fails with LIB_RM_VERSION_MISMATCH (go-nvml `nvml.h`).
    for g in guests {
        steps.push(format!(
            "Start container {}, install driver {target_text}'s user-space libraries inside it (NVIDIA's installer with --no-kernel-module, or the matching libnvidia packages: the container uses the host's kernel module, and nvidia-smi fails with \"Driver/library version mismatch\" until they match), check nvidia-smi inside it shows {target_text}; kubectl uncordon {}.",
            container(g),
            g.id
        ));
    }
    steps.push(format!(
        "Write `nvidia_driver: \"{target_text}\"` for {host} in the topology file (GPU-005 compares it with what runs)."
    ));
    steps
}

/// The rollback of the driver update of `host`, in order.
fn rollback(
    host: &str,
    guests: &[PlannedGuest],
    snapshotted: bool,
    snapshot: &str,
    snapshot_name: &SnapshotName,
    current_text: &str,
) -> Vec<String> {
    let mut rollback = Vec::new();
    for g in guests {
        rollback.push(format!("Shut container {} down.", container(g)));
    }
    for g in guests {
        for r in &g.resources {
            if let Ok(name) = ResourceName::new(r.as_str()) {
                rollback.push(format!(
                    "Roll back: {}",
                    Plan::snapshot_rollback(&name, snapshot_name)
                ));
            }
        }
    }
    rollback.push(format!(
        "Reinstall NVIDIA driver {current_text} on {host} and reboot it if needed."
    ));
    for g in guests {
        rollback.push(format!(
            "Start container {}, reinstall driver {current_text}'s user-space libraries inside it, check nvidia-smi; uncordon {}.",
            container(g),
            g.id
        ));
    }
    if snapshotted {
        rollback.push(format!(
            "When the update is confirmed, delete snapshot {snapshot} of every resource (DELETE /v1/resource-definitions/{{resource}}/snapshots/{snapshot})."
        ));
    }
    rollback
}

impl DriverUpdatePlan {
    /// The plan as numbered text.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "NVIDIA driver update on {} ({} → {})",
            self.host,
            self.current_driver.as_deref().unwrap_or("unpinned"),
            self.target_driver.as_deref().unwrap_or("unspecified")
        );
        for g in &self.guests {
            let _ = writeln!(
                out,
                "GPU container {}{}: cluster {}, volumes [{}], LINSTOR resources [{}]",
                g.id,
                g.vmid.map(|v| format!(" (CT {v})")).unwrap_or_default(),
                g.cluster.as_deref().unwrap_or("none"),
                g.volumes.join(", "),
                g.resources.join(", ")
            );
        }
        let _ = writeln!(out, "\nSteps:");
        for (i, s) in self.steps.iter().enumerate() {
            let _ = writeln!(out, "{:>3}. {s}", i + 1);
        }
        let _ = writeln!(out, "\nRollback:");
        for (i, s) in self.rollback.iter().enumerate() {
            let _ = writeln!(out, "{:>3}. {s}", i + 1);
        }
        if !self.warnings.is_empty() {
            let _ = writeln!(out, "\nWarnings:");
            for w in &self.warnings {
                let _ = writeln!(out, "  - {w}");
            }
        }
        out
    }
}

/// What one executed snapshot request did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SnapshotOutcome {
    /// The resource.
    pub resource: String,
    /// Whether the snapshot is `SUCCESSFUL` on the controller.
    pub successful: bool,
    /// The controller's messages, or the error.
    pub messages: Vec<String>,
}

/// Executes the plan's snapshot step: `POST /v1/resource-definitions/{resource}/snapshots` for
/// each resource, then polls `GET /v1/resource-definitions/{resource}/snapshots` until the
/// snapshot is `SUCCESSFUL` or `wait` has passed. Stops at the first failure, so that the
/// update is never started without its rollback point.
///
/// A POST that failed is read back before it is called failed: a snapshot that already exists
/// (a second run the same day; LINSTOR answers `FAIL_EXISTS_SNAPSHOT_DFN`) is the rollback point,
/// and a POST that timed out may have been carried out. Only when the snapshot is not listed
/// after such a failure is it a failure (at once, without waiting for `wait`).
pub async fn apply_snapshots(
    client: &cpps_linstor::Client,
    plan: &DriverUpdatePlan,
    wait: Duration,
    poll: Duration,
) -> Vec<SnapshotOutcome> {
    let mut outcomes = Vec::new();
    for p in &plan.snapshots {
        let resource = p
            .path
            .trim_start_matches("v1/resource-definitions/")
            .trim_end_matches("/snapshots")
            .to_owned();
        let mut outcome = SnapshotOutcome {
            resource: resource.clone(),
            successful: false,
            messages: Vec::new(),
        };
        let posted = match client.apply(p).await {
            Ok(rcs) => {
                let messages = rcs.0.iter().map(|rc| rc.message.clone());
                outcome.messages.extend(messages);
                true
            }
            Err(e) => {
                outcome.messages.push(super::facts::error_chain(&e));
                false
            }
        };
        let name = ResourceName::new(resource.as_str());
        let deadline = tokio::time::Instant::now() + wait;
        if let Ok(name) = name {
            loop {
                match client.snapshots_of(&name).await {
                    Ok(list) => {
                        let ours = list.iter().find(|s| s.name == plan.snapshot);
                        if ours.is_some_and(|s| s.is_successful()) {
                            outcome.successful = true;
                            break;
                        }
                        if ours.is_none() && !posted {
                            outcome.messages.push(format!(
                                "snapshot {} of {resource} is not listed",
                                plan.snapshot
                            ));
                            break;
                        }
                    }
                    Err(e) => outcome.messages.push(super::facts::error_chain(&e)),
                }
                if tokio::time::Instant::now() + poll > deadline {
                    outcome.messages.push(format!(
                        "snapshot {} not SUCCESSFUL within {wait:?}",
                        plan.snapshot
                    ));
                    break;
                }
                tokio::time::sleep(poll).await;
            }
        }
        let ok = outcome.successful;
        outcomes.push(outcome);
        if !ok {
            break;
        }
    }
    outcomes
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use wiremock::matchers::{method, path};
    use wiremock::{Mock, MockServer, ResponseTemplate};

    fn plan(resources: &[&str]) -> DriverUpdatePlan {
        let snapshot = SnapshotName::new("pre-driver-20261206").unwrap();
        DriverUpdatePlan {
            host: "pve-ippri-31".to_owned(),
            current_driver: None,
            target_driver: None,
            snapshot: snapshot.as_str().to_owned(),
            guests: vec![],
            snapshots: resources
                .iter()
                .map(|r| Plan::snapshot_create(&ResourceName::new(*r).unwrap(), &snapshot, &[]))
                .collect(),
            steps: vec![],
            rollback: vec![],
            warnings: vec![],
        }
    }

    /// A GPU container of a node whose status data is over five minutes old comes without a
    /// name (pve-manager `PVE/API2Tools.pm` `extract_vm_stats`): "not in Proxmox" would be a
    /// guess, so the warning says it cannot be told.
    #[test]
    fn a_guest_listed_without_a_name_is_not_said_missing() {
        use crate::live::facts::PveGuestKind;
        let nameless = PveGuest {
            vmid: 301,
            name: None,
            node: "pve-ippri-31".to_owned(),
            kind: PveGuestKind::Lxc,
            status: "unknown".to_owned(),
            privileged: None,
            ha: false,
            ha_state: None,
            ha_request: None,
            volumes: Vec::new(),
        };
        let facts = PveFacts {
            guests: vec![nameless],
            ..PveFacts::default()
        };
        let topology = crate::default_topology();
        let plan =
            plan_driver_update(&topology, "pve-ippri-31", Some(&facts), None, "pre", None).unwrap();
        assert!(
            plan.warnings.contains(&"guest gpu-sp-01 is not in Proxmox by name: Proxmox lists guest(s) 301 without a name (their node's status data is over five minutes old), so whether one of them is this guest cannot be told".to_owned()),
            "{:#?}",
            plan.warnings
        );
    }

    async fn listed(server: &MockServer, resource: &str) {
        Mock::given(method("GET"))
            .and(path(format!(
                "/v1/resource-definitions/{resource}/snapshots"
            )))
            .respond_with(ResponseTemplate::new(200).set_body_json(json!([
                {"name": "pre-driver-20261206", "resource_name": resource,
                 "nodes": ["pve-ippri-11", "pve-ippri-12"], "flags": ["SUCCESSFUL"]}
            ])))
            .mount(server)
            .await;
    }

    /// `--apply` run again the same day: LINSTOR refuses the first POST because the snapshot
    /// exists (linstor-server `CtrlSnapshotCrtHelper.createSnapshotDfnData`:
    /// `FAIL_EXISTS_SNAPSHOT_DFN`, "A snapshot definition with the name '%s' already exists in
    /// resource definition '%s'.", an error answered as 500 by `ApiCallRcRestUtils`). That
    /// snapshot is the rollback point: the run reads it back, and goes on to the next resource.
    #[tokio::test]
    async fn an_existing_snapshot_is_the_rollback_point() {
        let server = MockServer::start().await;
        Mock::given(method("POST"))
            .and(path("/v1/resource-definitions/vm-201-disk-0/snapshots"))
            .respond_with(ResponseTemplate::new(500).set_body_json(json!([
                {"ret_code": -4611686018409823742_i64,
                 "message": "A snapshot definition with the name 'pre-driver-20261206' already exists in resource definition 'vm-201-disk-0'."}
            ])))
            .expect(1)
            .mount(&server)
            .await;
        Mock::given(method("POST"))
            .and(path("/v1/resource-definitions/vm-202-disk-0/snapshots"))
            .respond_with(ResponseTemplate::new(201).set_body_json(json!([
                {"ret_code": 17563649, "message": "New snapshot 'pre-driver-20261206' of resource 'vm-202-disk-0' registered."}
            ])))
            .expect(1)
            .mount(&server)
            .await;
        listed(&server, "vm-201-disk-0").await;
        listed(&server, "vm-202-disk-0").await;
        let client = cpps_linstor::Client::builder(server.uri()).build().unwrap();
        let plan = plan(&["vm-201-disk-0", "vm-202-disk-0"]);
        let out = apply_snapshots(&client, &plan, Duration::from_secs(5), Duration::ZERO).await;
        let got: Vec<(&str, bool)> = out
            .iter()
            .map(|o| (o.resource.as_str(), o.successful))
            .collect();
        assert_eq!(got, [("vm-201-disk-0", true), ("vm-202-disk-0", true)]);
        assert!(
            out[0].messages[0].contains("already exists"),
            "{:?}",
            out[0].messages
        );
    }

    /// A POST that failed and left nothing behind is a failed snapshot, read back once (not
    /// polled until the deadline), and the run stops there.
    #[tokio::test]
    async fn a_refused_snapshot_that_does_not_exist_stops_the_run() {
        let server = MockServer::start().await;
        Mock::given(method("POST"))
            .respond_with(ResponseTemplate::new(500).set_body_json(json!([
                {"ret_code": -4611686018409823742_i64, "message": "refused"}
            ])))
            .expect(1)
            .mount(&server)
            .await;
        Mock::given(method("GET"))
            .respond_with(ResponseTemplate::new(200).set_body_json(json!([])))
            .expect(1)
            .mount(&server)
            .await;
        let client = cpps_linstor::Client::builder(server.uri()).build().unwrap();
        let plan = plan(&["vm-201-disk-0", "vm-202-disk-0"]);
        let out = apply_snapshots(&client, &plan, Duration::from_secs(3600), Duration::ZERO).await;
        assert_eq!(out.len(), 1);
        assert!(!out[0].successful);
    }
}
