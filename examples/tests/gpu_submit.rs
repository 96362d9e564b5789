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

/// A kube-apiserver on 127.0.0.1 that creates the Job as the real one does (the object back, 201,
/// with the name made from `generateName` and a uid: k8s.io/apimachinery `meta/v1/types.go`
/// `ObjectMeta.generateName`) and then, for every other request, answers 500 (`fail`) or never
/// answers.
fn creating_server(fail: bool) -> u16 {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for c in listener.incoming().take(64) {
            let Ok(mut c) = c else { continue };
            let mut seen = Vec::new();
            let mut buf = [0u8; 8192];
            let body_at = loop {
                if let Some(i) = seen.windows(4).position(|w| w == b"\r\n\r\n") {
                    break i + 4;
                }
                match c.read(&mut buf) {
                    Ok(0) | Err(_) => break seen.len(),
                    Ok(n) => seen.extend_from_slice(&buf[..n]),
                }
            };
            let head = String::from_utf8_lossy(&seen[..body_at]).to_string();
            let length: usize = head
                .lines()
                .find_map(|l| {
                    let (k, v) = l.split_once(':')?;
                    k.eq_ignore_ascii_case("content-length")
                        .then(|| v.trim().parse().ok())?
                })
                .unwrap_or(0);
            while seen.len() < body_at + length {
                match c.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => seen.extend_from_slice(&buf[..n]),
                }
            }
            let (code, body) = if head.starts_with("POST /apis/batch/v1/namespaces/ml/jobs") {
                let mut job: serde_json::Value =
                    serde_json::from_slice(&seen[body_at..]).unwrap_or_default();
                let prefix = job["metadata"]["generateName"]
                    .as_str()
                    .unwrap_or("")
                    .to_owned();
                job["metadata"]["name"] = format!("{prefix}x7k2p").into();
                job["metadata"]["namespace"] = "ml".into();
                job["metadata"]["uid"] = "0f5e2b1c-7d3a-4e8f-9c61-2a4b6d8e0f13".into();
                (201, job.to_string())
            } else if fail {
                let status = serde_json::json!({"kind": "Status", "apiVersion": "v1",
                    "metadata": {}, "status": "Failure", "reason": "InternalError", "code": 500,
                    "message": "Internal error occurred: the server is unavailable"});
                (500, status.to_string())
            } else {
                held.push(c);
                continue;
            };
            let _ = write!(
                c,
                "HTTP/1.1 {code} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    port
}

fn kubeconfig_for(port: u16, dir: &std::path::Path) -> String {
    let path = dir.join("kubeconfig");
    std::fs::write(
        &path,
        format!(
            "apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters:\n- name: c\n  cluster:\n    server: http://127.0.0.1:{port}\ncontexts:\n- name: c\n  context: {{cluster: c, user: u}}\nusers:\n- name: u\n  user: {{token: not-a-secret}}\n"
        ),
    )
    .unwrap();
    path.to_str().unwrap().to_owned()
}

/// S-e: once the server created the Job, every outcome names it: following it failed (a 500)
/// or the timeout came first (a server that stops answering). Exit 1, not "not submitted".
#[test]
fn the_created_job_is_named_when_following_it_fails_or_times_out() {
    let dir = tempfile::tempdir().unwrap();
    for fail in [true, false] {
        let kubeconfig = kubeconfig_for(creating_server(fail), dir.path());
        let args = [
            "--kubeconfig",
            &kubeconfig,
            "--namespace",
            "ml",
            "--queue",
            "team-a",
            "--apply",
            "--timeout",
            "2",
        ];
        let o = submit(&args);
        let out = common::stdout_of_exit(&o, 1);
        assert!(
            out.starts_with("submitted Job ml/cpps-gpu-smoke-x7k2p\n"),
            "{fail}: {out}"
        );
        let mut json = args.to_vec();
        json.extend(["--format", "json"]);
        let o = submit(&json);
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(v["job"], "ml/cpps-gpu-smoke-x7k2p", "{fail}");
        assert_eq!(v["timed_out"], !fail, "{fail}");
        if fail {
            let error = v["error"].as_str().unwrap();
            assert!(error.contains("the server is unavailable"), "{error}");
        }
    }
}
