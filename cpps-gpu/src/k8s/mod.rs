//! The GPU clusters' Kubernetes state, read through `kube`: GPU nodes, the NVIDIA device plugin
//! (its ConfigMap, per-node configuration and sharing) and HAMi, Kueue (`v1beta2`, or `v1beta1`
//! where only that is served), Argo CD Applications, cert-manager Certificates and the CNI; and the
//! cross-checks between them ([`checks`]).
//!
//! Every read is a `GET` (list) on the API server; [`kueue::JobSubmission`] is the only write,
//! with a server-side dry-run form.

pub mod argocd;
pub mod certmanager;
pub mod checks;
pub mod cni;
mod custom;
pub mod kueue;
pub mod nodes;
pub mod quantity;
pub mod sharing;
pub mod snapshot;
pub mod worker_kubeconfig;

use std::path::Path;

use crate::error::Error;

pub use snapshot::{ClusterSnapshot, collect};

/// Builds a client from a kubeconfig file (its current context).
///
/// # Errors
/// [`Error::Kubeconfig`] when the file cannot be read or used, [`Error::KubeClient`] when no
/// client can be built from it.
pub async fn client_from_kubeconfig(path: &Path) -> Result<kube::Client, Error> {
    let kubeconfig =
        kube::config::Kubeconfig::read_from(path).map_err(|source| Error::Kubeconfig {
            path: path.to_owned(),
            source,
        })?;
    let config = kube::Config::from_custom_kubeconfig(
        kubeconfig,
        &kube::config::KubeConfigOptions::default(),
    )
    .await
    .map_err(|source| Error::Kubeconfig {
        path: path.to_owned(),
        source,
    })?;
    kube::Client::try_from(config).map_err(Error::KubeClient)
}

/// Lists `K` in all namespaces (or cluster-wide); a resource the server does not know (CRD not
/// installed: 404) is `None`.
pub(crate) async fn list_all<K>(client: &kube::Client) -> Result<Option<Vec<K>>, Error>
where
    K: kube::Resource<DynamicType = ()> + Clone + std::fmt::Debug + serde::de::DeserializeOwned,
{
    let api: kube::Api<K> = kube::Api::all(client.clone());
    match api.list(&kube::api::ListParams::default()).await {
        Ok(list) => Ok(Some(list.items)),
        Err(kube::Error::Api(s)) if s.code == 404 => Ok(None),
        Err(source) => Err(Error::kube("GET", K::url_path(&(), None), source)),
    }
}
