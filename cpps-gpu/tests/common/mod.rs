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
