//! Shared test setup: the fake NVML library and the real kube-apiserver.
#![allow(dead_code, unreachable_pub)]

use std::path::PathBuf;

pub use cpps_gpu::test_util::FakeNvml;

/// The compiled fake `libnvidia-ml.so.1` for `variant`.
pub fn fake_nvml(variant: FakeNvml) -> PathBuf {
    cpps_gpu::test_util::fake_nvml_library(variant).expect("gcc builds the fake NVML library")
}

/// The environment variable `cargo xtask test` sets to the test API server's kubeconfig.
pub const KUBECONFIG_VAR: &str = "CPPS_TEST_KUBECONFIG";

/// A client for the test API server, or `None` (after printing why) when the variable is unset.
pub async fn kube_client() -> Option<kube::Client> {
    let Some(path) = std::env::var_os(KUBECONFIG_VAR) else {
        println!("skipped: {KUBECONFIG_VAR} not set (run `cargo xtask test`)");
        return None;
    };
    let path = PathBuf::from(path);
    let client = cpps_gpu::k8s::client_from_kubeconfig(&path)
        .await
        .expect("the test kubeconfig gives a client");
    install_crds(&client).await;
    Some(client)
}

/// A client for the test API server and the test's id `PREFIX-<unique>` (found in the names of
/// the objects it creates), or `None` as [`kube_client`].
pub async fn kube_with_id(prefix: &str) -> Option<(kube::Client, String)> {
    Some((kube_client().await?, unique(prefix)))
}

/// As [`kube_with_id`], and a fresh namespace named after the id.
pub async fn kube_namespace(prefix: &str) -> Option<(kube::Client, String)> {
    let (client, id) = kube_with_id(prefix).await?;
    namespace(&client, &id).await;
    Some((client, id))
}

/// The CRD fixtures (tests/fixtures/crds).
const CRDS: &[&str] = &[
    include_str!("../fixtures/crds/kueue.x-k8s.io_resourceflavors.yaml"),
    include_str!("../fixtures/crds/kueue.x-k8s.io_clusterqueues.yaml"),
    include_str!("../fixtures/crds/kueue.x-k8s.io_localqueues.yaml"),
    include_str!("../fixtures/crds/kueue.x-k8s.io_workloads.yaml"),
    include_str!("../fixtures/crds/kueue.x-k8s.io_multikueueclusters.yaml"),
    include_str!("../fixtures/crds/kueue.x-k8s.io_admissionchecks.yaml"),
    include_str!("../fixtures/crds/kueue.x-k8s.io_multikueueconfigs.yaml"),
    include_str!("../fixtures/crds/argoproj.io_applications.yaml"),
    include_str!("../fixtures/crds/cert-manager.io_certificates.yaml"),
];

/// Installs the CRDs idempotently (create, or AlreadyExists) and waits until each is Established.
pub async fn install_crds(client: &kube::Client) {
    use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
    let api: kube::Api<CustomResourceDefinition> = kube::Api::all(client.clone());
    for doc in CRDS {
        let crd: CustomResourceDefinition =
            serde_saphyr::from_str(doc).expect("CRD fixture parses");
        let name = crd.metadata.name.clone().expect("CRD has a name");
        match api.create(&kube::api::PostParams::default(), &crd).await {
            Ok(_) => {}
            Err(kube::Error::Api(s)) if s.code == 409 => {}
            Err(e) => panic!("creating CRD {name}: {e}"),
        }
        let established = kube::runtime::wait::await_condition(
            api.clone(),
            &name,
            kube::runtime::wait::conditions::is_crd_established(),
        );
        tokio::time::timeout(std::time::Duration::from_secs(30), established)
            .await
            .unwrap_or_else(|_| panic!("CRD {name} not Established in 30 s"))
            .expect("watching the CRD");
    }
}

/// A unique suffix for object names, so tests can run in parallel and repeatedly.
pub fn unique(prefix: &str) -> String {
    format!("{prefix}-{:08x}", fastrand_u32())
}

fn fastrand_u32() -> u32 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos(),
    );
    h.finish() as u32
}

/// Creates a namespace.
pub async fn namespace(client: &kube::Client, name: &str) {
    use k8s_openapi::api::core::v1::Namespace;
    let api: kube::Api<Namespace> = kube::Api::all(client.clone());
    let ns: Namespace = serde_json::from_value(serde_json::json!({
        "metadata": {"name": name}
    }))
    .unwrap();
    api.create(&kube::api::PostParams::default(), &ns)
        .await
        .expect("namespace created");
}

/// Creates `obj` and then writes its `status` through the status subresource, as its
/// controller would (`PUT …/status` with the object as created plus `status`).
pub async fn create_with_status<K>(api: &kube::Api<K>, obj: &K, status: serde_json::Value) -> K
where
    K: kube::Resource + Clone + std::fmt::Debug + serde::Serialize + serde::de::DeserializeOwned,
{
    let created = api
        .create(&kube::api::PostParams::default(), obj)
        .await
        .expect("object created");
    let name = created.meta().name.clone().unwrap();
    let mut body = serde_json::to_value(&created).unwrap();
    body["status"] = status;
    let obj: K = serde_json::from_value(body).expect("object with status");
    api.replace_status(&name, &kube::api::PostParams::default(), &obj)
        .await
        .expect("status written")
}

/// Creates a Node with `labels` and `annotations`, and writes `capacity` as its capacity and
/// allocatable through the status subresource, as the kubelet and the device plugin would.
pub async fn gpu_node(
    client: &kube::Client,
    name: &str,
    labels: serde_json::Value,
    annotations: serde_json::Value,
    capacity: serde_json::Value,
) {
    use k8s_openapi::api::core::v1::Node;
    let api: kube::Api<Node> = kube::Api::all(client.clone());
    let node: Node = serde_json::from_value(serde_json::json!({
        "metadata": {"name": name, "labels": labels, "annotations": annotations}
    }))
    .unwrap();
    create_with_status(
        &api,
        &node,
        serde_json::json!({"capacity": capacity.clone(), "allocatable": capacity}),
    )
    .await;
}

/// A GPU node `{id}-gpu-sp-01` with four `nvidia.com/gpu`, and [`act_as_kueue`] started for the
/// Job `job` in namespace `id`: it admits the Job to ClusterQueue `{id}-cq` with flavor
/// `{id}-a5000` and runs it to success on that node. Returns the node's name and the stand-in's
/// task, to be awaited once the Job is done.
pub async fn kueue_running_on_a_gpu_node(
    client: &kube::Client,
    id: &str,
    job: &str,
) -> (String, tokio::task::JoinHandle<()>) {
    let node = format!("{id}-gpu-sp-01");
    gpu_node(
        client,
        &node,
        serde_json::json!({}),
        serde_json::json!({}),
        serde_json::json!({"nvidia.com/gpu": "4"}),
    )
    .await;
    let kueue = tokio::spawn(act_as_kueue(
        client.clone(),
        id.to_owned(),
        job.to_owned(),
        format!("{id}-cq"),
        format!("{id}-a5000"),
        Some(node.clone()),
    ));
    (node, kueue)
}

/// Creates the cert-manager Certificate `name` in `ns` (secret `{name}-tls`, issuer
/// `letsencrypt`, DNS name `{name}.colabh.org`) and writes `status` as cert-manager would.
pub async fn certificate_with_status(
    client: &kube::Client,
    ns: &str,
    name: &str,
    status: serde_json::Value,
) {
    use cpps_gpu::k8s::certmanager::Certificate;
    let api: kube::Api<Certificate> = kube::Api::namespaced(client.clone(), ns);
    let certificate = Certificate::new(
        ns,
        name,
        &format!("{name}-tls"),
        "letsencrypt",
        &[&format!("{name}.colabh.org")],
    );
    create_with_status(&api, &certificate, status).await;
}

/// Creates the Argo CD Application `app` with `status` in the same request: the Application CRD
/// declares no status subresource (`subresources: {}` in argo-cd
/// `manifests/crds/application-crd.yaml`, kept in the fixture), so the status is stored with the
/// object, as Argo CD's controller writes it.
pub async fn application_with_status(
    client: &kube::Client,
    app: &cpps_gpu::k8s::argocd::Application,
    status: serde_json::Value,
) {
    let ns = app
        .metadata
        .namespace
        .as_deref()
        .expect("Application has a namespace");
    let api: kube::Api<cpps_gpu::k8s::argocd::Application> =
        kube::Api::namespaced(client.clone(), ns);
    let mut body = serde_json::to_value(app).unwrap();
    body["status"] = status;
    let app = serde_json::from_value(body).expect("Application with status");
    api.create(&kube::api::PostParams::default(), &app)
        .await
        .expect("Application created");
}

/// Stands in for the Kueue controller (and, with `run_on`, for the Job controller and the
/// scheduler), which this API server does not run: when the Job the server named from the prefix
/// `job_name` appears (`generateName`), creates its
/// Workload (owned by the Job, as Kueue's jobframework does), then writes `QuotaReserved` and
/// `Admitted` with an admission to `cq`/`flavor`, as Kueue's scheduler would
/// (kubernetes-sigs/kueue `apis/kueue/v1beta2/workload_types.go`: conditions `QuotaReserved`,
/// `Admitted`, `Finished`; `status.admission.podSetAssignments`). With `run_on = Some(node)` it
/// then creates the Job's pod bound to `node` (label `job-name`, as the Job controller sets it)
/// and marks the Workload `Finished` with reason `Succeeded`, as Kueue does when the Job
/// completes.
pub async fn act_as_kueue(
    client: kube::Client,
    ns: String,
    job_name: String,
    cq: String,
    flavor: String,
    run_on: Option<String>,
) {
    use k8s_openapi::api::batch::v1::Job;
    use k8s_openapi::api::core::v1::Pod;
    use kube::Api;
    use kube::api::PostParams;
    use serde_json::json;

    let jobs: Api<Job> = Api::namespaced(client.clone(), &ns);
    // The Job is named by the server from `generateName` `{job_name}-` (JobSubmission::job).
    let prefix = format!("{job_name}-");
    let job = loop {
        let list = jobs.list(&Default::default()).await.unwrap();
        if let Some(j) = list
            .items
            .into_iter()
            .find(|j| j.metadata.generate_name.as_deref() == Some(prefix.as_str()))
        {
            break j;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    };
    let job_name = job.metadata.name.clone().unwrap();
    let uid = job.metadata.uid.clone().unwrap();
    let queue = job
        .metadata
        .labels
        .as_ref()
        .and_then(|l| l.get("kueue.x-k8s.io/queue-name").cloned())
        .unwrap_or_default();
    let template = job.spec.as_ref().unwrap().template.clone();
    let wls: Api<cpps_gpu::k8s::kueue::Workload> = Api::namespaced(client.clone(), &ns);
    let wl: cpps_gpu::k8s::kueue::Workload = serde_json::from_value(json!({
        "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
        "metadata": {"name": format!("job-{job_name}-1a2b3"), "ownerReferences": [{
            "apiVersion": "batch/v1", "kind": "Job", "name": job_name, "uid": uid, "controller": true}]},
        "spec": {"queueName": queue, "podSets": [{"name": "main", "count": 1, "template": template}]}
    }))
    .unwrap();
    let created = wls.create(&PostParams::default(), &wl).await.unwrap();
    let name = created.metadata.name.clone().unwrap();
    let now = jiff::Timestamp::now().to_string();
    let admission = json!({"clusterQueue": cq, "podSetAssignments": [
        {"name": "main", "flavors": {"nvidia.com/gpu": flavor}, "resourceUsage": {"nvidia.com/gpu": "1"}, "count": 1}]});
    let reserved = json!({"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved",
        "message": format!("Quota reserved in ClusterQueue {cq}"), "lastTransitionTime": now});
    let admitted = json!({"type": "Admitted", "status": "True", "reason": "Admitted",
        "message": "The workload is admitted", "lastTransitionTime": now});
    let finished = json!({"type": "Finished", "status": "True", "reason": "Succeeded",
        "message": "Job finished successfully", "lastTransitionTime": now});
    let mut statuses = vec![
        json!({"conditions": [reserved.clone()], "admission": admission.clone()}),
        json!({"conditions": [reserved.clone(), admitted.clone()], "admission": admission.clone()}),
    ];
    if run_on.is_some() {
        statuses
            .push(json!({"conditions": [reserved, admitted, finished], "admission": admission}));
    }
    for (step, status) in statuses.into_iter().enumerate() {
        tokio::time::sleep(std::time::Duration::from_millis(400)).await;
        if step == 2
            && let Some(node) = &run_on
        {
            let pods: Api<Pod> = Api::namespaced(client.clone(), &ns);
            let pod: Pod = serde_json::from_value(json!({
                "metadata": {"name": format!("{job_name}-x7k2p"), "labels": {"job-name": job_name},
                             "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": job_name,
                                                  "uid": uid, "controller": true}]},
                "spec": {"nodeName": node, "restartPolicy": "Never", "containers": [
                    {"name": "main", "image": "nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04"}]}
            }))
            .unwrap();
            pods.create(&PostParams::default(), &pod).await.unwrap();
        }
        let mut cur = wls.get(&name).await.unwrap();
        cur.status = Some(serde_json::from_value(status).unwrap());
        wls.replace_status(&name, &PostParams::default(), &cur)
            .await
            .unwrap();
    }
}
