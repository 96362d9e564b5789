//! `gpu-submit`: sends a small batch Job to a Kueue LocalQueue, the team's way past one machine
//! (Kueue, or MultiKueue across clusters, decides where it runs).
//!
//! By default it only prints the plan: the Job it would create (suspended, labelled with the
//! LocalQueue, as Kueue requires), validated by the API server with a server-side dry run when a
//! kubeconfig is given. With `--apply` it creates the Job, follows its Workload to admission and
//! completion, and reports where it ran (ClusterQueue, flavors, MultiKueue worker cluster,
//! nodes). `--timeout` bounds the whole run; what was seen before it is still reported.
//!
//! ```text
//! gpu-submit --namespace NS --queue LOCALQUEUE [--kubeconfig PATH] [--name N] [--image I]
//!            [--gpus N] [--apply] [--timeout SECONDS] [--format text|json] [-- COMMAND...]
//! ```
//!
//! Exit status: 0 when the plan is valid or the Job succeeded; 1 when it failed, was evicted, could
//! not be followed or the timeout came first (the created Job is named in every case); 2 when it
//! could not be submitted.
#![forbid(unsafe_code)]

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use clap::Parser;
use cpps_examples::Format;
use cpps_gpu::k8s::kueue::{BatchRun, JobSubmission, WorkloadState, follow_batch};
use serde::Serialize;

/// Submit a small batch Job to a Kueue LocalQueue: a plan by default, for real with --apply.
#[derive(Debug, Parser)]
#[command(name = "gpu-submit", version)]
struct Args {
    /// The cluster (required with --apply; without it the plan is not checked by a server).
    #[arg(long, value_name = "PATH")]
    kubeconfig: Option<PathBuf>,
    /// The namespace of the LocalQueue.
    #[arg(long, value_name = "NS")]
    namespace: String,
    /// The LocalQueue (label kueue.x-k8s.io/queue-name).
    #[arg(long, value_name = "NAME")]
    queue: String,
    /// The Job's name prefix: the server adds a unique suffix (generateName), so running again
    /// never collides with an earlier Job; a finished Job is deleted after an hour.
    #[arg(long, value_name = "NAME", default_value = "cpps-gpu-smoke")]
    name: String,
    /// The container image.
    #[arg(
        long,
        value_name = "IMAGE",
        default_value = "nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04"
    )]
    image: String,
    /// nvidia.com/gpu per pod (0 for a CPU-only Job).
    #[arg(long, value_name = "N", default_value_t = 1)]
    gpus: u32,
    /// Create the Job and follow it; without this flag nothing is created.
    #[arg(long)]
    apply: bool,
    /// Bound on the whole run, in seconds: submission, admission and completion.
    #[arg(long, value_name = "SECONDS", default_value_t = 30)]
    timeout: u64,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// The command the Job runs (default: nvidia-smi -L).
    #[arg(last = true, value_name = "COMMAND")]
    command: Vec<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "snake_case", tag = "mode")]
enum Outcome {
    Plan {
        job: serde_json::Value,
        /// The API server accepted it in a dry run (`None`: not asked).
        server_accepts: Option<bool>,
    },
    Applied {
        /// `namespace/name` of the Job created: known as soon as the server answered the POST,
        /// so it is reported even when following it failed or timed out.
        job: String,
        run: Option<Box<BatchRun>>,
        /// Why following the created Job failed (it still exists).
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<String>,
        timed_out: bool,
        succeeded: bool,
    },
}

fn describe(state: &WorkloadState) -> String {
    match state {
        WorkloadState::Pending => "pending".to_owned(),
        WorkloadState::QuotaReserved { cluster_queue } => {
            format!("quota reserved in {cluster_queue}")
        }
        WorkloadState::Admitted { cluster_queue } => format!("admitted in {cluster_queue}"),
        WorkloadState::Evicted { reason } => format!("evicted ({reason})"),
        WorkloadState::Finished { reason } => format!("finished ({reason})"),
        other => format!("{other:?}"),
    }
}

fn print_text(submission: &JobSubmission, outcome: &Outcome) {
    match outcome {
        Outcome::Plan { server_accepts, .. } => {
            println!(
                "plan: create Job {}/{}-<suffix> in LocalQueue {} (suspended until Kueue admits it)",
                submission.namespace, submission.name, submission.queue
            );
            println!(
                "  image {}, {} nvidia.com/gpu, command: {}",
                submission.image,
                submission.gpus,
                submission.command.join(" ")
            );
            match server_accepts {
                Some(true) => println!("  the API server accepts it (server-side dry run)"),
                Some(false) => println!("  the API server refuses it"),
                None => println!("  not checked by a server (no --kubeconfig)"),
            }
            println!("nothing was created; run again with --apply to submit it");
        }
        Outcome::Applied {
            job,
            run,
            error,
            timed_out,
            succeeded,
        } => {
            if run.is_none() {
                println!("submitted Job {job}");
            }
            if let Some(error) = error {
                println!("  following it failed: {error}");
            }
            if let Some(run) = run {
                println!("submitted Job {} (uid {})", run.job, run.uid);
                let states: Vec<String> = run.followed.states.iter().map(describe).collect();
                println!(
                    "workload: {}",
                    if states.is_empty() {
                        "not created by Kueue yet".to_owned()
                    } else {
                        states.join(" -> ")
                    }
                );
                // Kueue's own words for a Workload it does not admit (e.g. `Inadmissible`: the
                // LocalQueue or ClusterQueue is missing or stopped).
                if let Some(why) = run
                    .followed
                    .workload
                    .as_ref()
                    .and_then(|wl| wl.not_admitted_because())
                {
                    println!("  not admitted: {why}");
                }
                if let Some(p) = &run.placement {
                    let flavors: Vec<String> =
                        p.flavors.iter().map(|(k, v)| format!("{k}={v}")).collect();
                    println!(
                        "ran: ClusterQueue {}, flavors {}, worker cluster {}, nodes {}",
                        p.cluster_queue.as_deref().unwrap_or("?"),
                        if flavors.is_empty() {
                            "none".to_owned()
                        } else {
                            flavors.join(",")
                        },
                        p.worker_cluster.as_deref().unwrap_or("this cluster"),
                        if p.nodes.is_empty() {
                            "none seen".to_owned()
                        } else {
                            p.nodes.join(",")
                        }
                    );
                }
            }
            if *timed_out {
                println!("result: timed out before the Job finished");
            } else if *succeeded {
                println!("result: succeeded");
            } else {
                println!("result: did not succeed");
            }
        }
    }
}

async fn run(args: &Args, submission: &JobSubmission) -> anyhow::Result<Outcome> {
    let timeout = Duration::from_secs(args.timeout);
    let client = match &args.kubeconfig {
        Some(p) => Some(
            tokio::time::timeout(timeout, cpps_gpu::k8s::client_from_kubeconfig(p))
                .await
                .context("reading the kubeconfig timed out")??,
        ),
        None => None,
    };
    if !args.apply {
        let server_accepts = match &client {
            Some(c) => Some(
                tokio::time::timeout(timeout, submission.submit(c, true))
                    .await
                    .context("the dry run timed out")?
                    .map(|_| true)?,
            ),
            None => None,
        };
        return Ok(Outcome::Plan {
            job: serde_json::to_value(submission.job())?,
            server_accepts,
        });
    }
    let client = client.context("--apply needs --kubeconfig")?;
    let started = tokio::time::Instant::now();
    // A POST that times out may still have created the Job (named by the server from
    // generateName), so the message says where to look rather than that nothing happened.
    let created = tokio::time::timeout(timeout, submission.submit(&client, false))
        .await
        .with_context(|| {
            format!(
                "creating the Job timed out: it may exist as {}/{}-*",
                submission.namespace, submission.name
            )
        })??;
    let job = format!(
        "{}/{}",
        submission.namespace,
        created.metadata.name.as_deref().unwrap_or("?")
    );
    // The follow ends a little before the bound so that what it saw is reported; the hard bound
    // covers a server that stops answering. From here on the Job exists: every outcome names it.
    let left = timeout.saturating_sub(started.elapsed());
    let follow = left.saturating_sub(Duration::from_millis(500));
    let interval = Duration::from_millis(200);
    let applied = match tokio::time::timeout(
        left,
        follow_batch(&client, submission, &created, follow, interval),
    )
    .await
    {
        Ok(Ok(run)) => Outcome::Applied {
            job,
            timed_out: run.followed.timed_out,
            succeeded: run.succeeded(),
            run: Some(Box::new(run)),
            error: None,
        },
        Ok(Err(e)) => Outcome::Applied {
            job,
            run: None,
            error: Some(format!("{:#}", anyhow::Error::from(e))),
            timed_out: false,
            succeeded: false,
        },
        Err(_) => Outcome::Applied {
            job,
            run: None,
            error: None,
            timed_out: true,
            succeeded: false,
        },
    };
    Ok(applied)
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let args = Args::parse();
    let command: Vec<&str> = if args.command.is_empty() {
        vec!["nvidia-smi", "-L"]
    } else {
        args.command.iter().map(String::as_str).collect()
    };
    let submission = JobSubmission::new(
        &args.namespace,
        &args.name,
        &args.queue,
        &args.image,
        &command,
        args.gpus,
    );
    match run(&args, &submission).await {
        Ok(outcome) => {
            match args.format {
                Format::Text => print_text(&submission, &outcome),
                Format::Json => match serde_json::to_string_pretty(&outcome) {
                    Ok(s) => println!("{s}"),
                    Err(e) => {
                        eprintln!("gpu-submit: {e}");
                        return ExitCode::from(2);
                    }
                },
            }
            match outcome {
                Outcome::Plan { .. } => ExitCode::SUCCESS,
                Outcome::Applied {
                    succeeded: true, ..
                } => ExitCode::SUCCESS,
                Outcome::Applied { .. } => ExitCode::from(1),
            }
        }
        Err(e) => {
            eprintln!("gpu-submit: {e:#}");
            ExitCode::from(2)
        }
    }
}
