//! Runs the `gpu-submit` binary: the plan (offline and checked by the real kube-apiserver with a
//! server-side dry run), `--apply` followed to completion with `act_as_kueue` standing in for the
//! Kueue controller (and the Job controller and scheduler) that the test API server does not run,
//! and `--timeout` ending a run nobody admits.

mod common;

use std::process::{Command, Output};
use std::time::{Duration, Instant};

// The API-server helpers (client, CRD installation, the Kueue stand-in) are cpps-gpu's, shared
// rather than copied.
#[path = "../../cpps-gpu/tests/common/mod.rs"]
mod gpu_common;

use k8s_openapi::api::batch::v1::Job;
use kube::Api;

fn submit(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gpu-submit"))
        .args(args)
        .output()
        .expect("gpu-submit runs")
}

#[test]
fn the_plan_changes_nothing_and_says_so() {
    let o = submit(&[
        "--namespace",
        "ml",
        "--queue",
        "team-a",
        "--",
        "python3",
        "train.py",
    ]);
    let out = common::stdout_of_exit(&o, 0);
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        [
            "plan: create Job ml/cpps-gpu-smoke-<suffix> in LocalQueue team-a (suspended until Kueue admits it)",
            "  image nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04, 1 nvidia.com/gpu, command: python3 train.py",
            "  not checked by a server (no --kubeconfig)",
            "nothing was created; run again with --apply to submit it",
        ]
    );
    let o = submit(&["--namespace", "ml", "--queue", "team-a", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["mode"], "plan");
    assert_eq!(v["job"]["spec"]["suspend"], true);
    assert_eq!(
        v["job"]["metadata"]["labels"]["kueue.x-k8s.io/queue-name"],
        "team-a"
    );
    assert_eq!(
        v["job"]["spec"]["template"]["spec"]["containers"][0]["command"],
        serde_json::json!(["nvidia-smi", "-L"])
    );
    // --apply without a cluster is refused, and nothing is attempted.
    let o = submit(&["--namespace", "ml", "--queue", "team-a", "--apply"]);
    assert_eq!(
        common::stderr_of_exit(&o, 2),
        "gpu-submit: --apply needs --kubeconfig\n"
    );
}

#[test]
fn help_documents_the_timeout_and_the_plan() {
    let help = common::help_documenting_timeout(env!("CARGO_BIN_EXE_gpu-submit"));
    assert!(help.contains("Bound on the whole run"), "{help}");
    assert!(
        help.contains("without this flag nothing is created"),
        "{help}"
    );
}

#[tokio::test]
async fn applied_job_is_followed_to_completion_and_placed() {
    let Some((client, id)) = gpu_common::kube_namespace("submit").await else {
        return;
    };
    let kubeconfig = std::env::var(gpu_common::KUBECONFIG_VAR).unwrap();

    // The plan is validated by the server and creates nothing.
    let o = submit(&[
        "--kubeconfig",
        &kubeconfig,
        "--namespace",
        &id,
        "--queue",
        "team-a",
        "--name",
        "smoke",
    ]);
    let out = common::stdout_of_exit(&o, 0);
    assert!(
        out.contains("  the API server accepts it (server-side dry run)\n"),
        "{out}"
    );
    let jobs: Api<Job> = Api::namespaced(client.clone(), &id);
    assert!(
        jobs.list(&Default::default())
            .await
            .unwrap()
            .items
            .is_empty()
    );

    let (node, kueue) = gpu_common::kueue_running_on_a_gpu_node(&client, &id, "smoke").await;
    let binary_kubeconfig = kubeconfig.clone();
    let binary_id = id.clone();
    let o = tokio::task::spawn_blocking(move || {
        submit(&[
            "--kubeconfig",
            &binary_kubeconfig,
            "--namespace",
            &binary_id,
            "--queue",
            "team-a",
            "--name",
            "smoke",
            "--apply",
            "--timeout",
            "20",
        ])
    })
    .await
    .unwrap();
    kueue.await.unwrap();
    let out = common::stdout_of_exit(&o, 0);
    // The server named the Job from the prefix (generateName).
    let mut created = jobs.list(&Default::default()).await.unwrap().items;
    assert_eq!(created.len(), 1);
    let job = created.remove(0);
    let name = job.metadata.name.unwrap();
    assert!(name.starts_with("smoke-"), "{name}");
    let uid = job.metadata.uid.unwrap();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], format!("submitted Job {id}/{name} (uid {uid})"));
    // The binary polls every 200 ms; Kueue's stand-in takes 400 ms a step, so every state is seen.
    assert_eq!(
        lines[1],
        format!(
            "workload: pending -> quota reserved in {id}-cq -> admitted in {id}-cq -> finished (Succeeded)"
        )
    );
    assert_eq!(
        lines[2],
        format!(
            "ran: ClusterQueue {id}-cq, flavors main/nvidia.com/gpu={id}-a5000, worker cluster this cluster, nodes {node}"
        )
    );
    assert_eq!(lines[3], "result: succeeded");
}

#[tokio::test]
async fn timeout_ends_a_run_nobody_admits() {
    let Some((_client, id)) = gpu_common::kube_namespace("unadmitted").await else {
        return;
    };
    let kubeconfig = std::env::var(gpu_common::KUBECONFIG_VAR).unwrap();
    let started = Instant::now();
    let o = tokio::task::spawn_blocking(move || {
        submit(&[
            "--kubeconfig",
            &kubeconfig,
            "--namespace",
            &id,
            "--queue",
            "nobody",
            "--apply",
            "--timeout",
            "2",
            "--format",
            "json",
        ])
    })
    .await
    .unwrap();
    let elapsed = started.elapsed();
    assert!(elapsed < Duration::from_secs(6), "{elapsed:?}");
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["mode"], "applied");
    assert_eq!(v["timed_out"], true);
    assert_eq!(v["succeeded"], false);
    // Partial results: the Job was created and is named, its Workload never appeared.
    let job = v["run"]["job"].as_str().unwrap();
    assert!(job.contains("/cpps-gpu-smoke-"), "{job}");
    assert_eq!(v["run"]["followed"]["states"], serde_json::json!([]));
}

/// Issue 34: Kueue's reason for not admitting a Workload is shown. The stand-in writes what
/// kueue's workload controller writes for a LocalQueue that does not exist
/// (`pkg/controller/core/workload_controller.go`: `QuotaReserved` `False`, reason
/// `Inadmissible`, "LocalQueue %s is terminating or missing").
#[tokio::test]
async fn kueue_inadmissible_reason_is_shown() {
    let Some((client, id)) = gpu_common::kube_namespace("inadmissible").await else {
        return;
    };
    let kubeconfig = std::env::var(gpu_common::KUBECONFIG_VAR).unwrap();
    let ns = id.clone();
    let kueue = tokio::spawn(async move {
        let jobs: Api<Job> = Api::namespaced(client.clone(), &ns);
        let job = loop {
            let list = jobs.list(&Default::default()).await.unwrap();
            if let Some(j) = list.items.into_iter().next() {
                break j;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        let wls: Api<cpps_gpu::k8s::kueue::Workload> = Api::namespaced(client.clone(), &ns);
        let wl: cpps_gpu::k8s::kueue::Workload = serde_json::from_value(serde_json::json!({
            "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
            "metadata": {"name": "job-inadmissible-1a2b3", "ownerReferences": [{
                "apiVersion": "batch/v1", "kind": "Job", "name": job.metadata.name.clone().unwrap(),
                "uid": job.metadata.uid.clone().unwrap(), "controller": true}]},
            "spec": {"queueName": "nobody", "podSets": [{"name": "main", "count": 1,
                "template": job.spec.unwrap().template}]}
        }))
        .unwrap();
        let status = serde_json::json!({"conditions": [{"type": "QuotaReserved", "status": "False",
            "reason": "Inadmissible", "message": "LocalQueue nobody is terminating or missing",
            "lastTransitionTime": jiff::Timestamp::now().to_string()}]});
        gpu_common::create_with_status(&wls, &wl, status).await;
    });
    let o = tokio::task::spawn_blocking(move || {
        submit(&[
            "--kubeconfig",
            &kubeconfig,
            "--namespace",
            &id,
            "--queue",
            "nobody",
            "--apply",
            "--timeout",
            "3",
        ])
    })
    .await
    .unwrap();
    kueue.await.unwrap();
    assert_eq!(o.status.code(), Some(1));
    let out = String::from_utf8_lossy(&o.stdout);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[1], "workload: pending", "{out}");
    assert_eq!(
        lines[2], "  not admitted: Inadmissible: LocalQueue nobody is terminating or missing",
        "{out}"
    );
    assert_eq!(
        lines[3], "result: timed out before the Job finished",
        "{out}"
    );
}
