//! Where each site's live systems are, from a small YAML endpoints file or from the clients'
//! environment variables.
//!
//! Each system's settings have one shape, its client crate's `Config`: the file is read
//! straight into [`cpps_proxmox::Config`], [`cpps_pbs::Config`], [`cpps_linstor::Config`] and
//! [`cpps_vyos::Config`] (Kubernetes and NVML keep their small [`KubeEndpoint`] and
//! [`NvmlEndpoint`]); [`Endpoints::from_env`] asks each crate's `Config::from_env`; and every
//! client is built by its `ClientBuilder::from_config`, TLS included, whichever of the two the
//! settings came from.
//!
//! The file holds no secret: a secret is named by an environment variable (`token_env`) or a
//! file path (`token_file`), read when the clients are built; a secret written inline is
//! refused, naming its key path and line.
//!
//! ```yaml
//! sites:
//!   sp:
//!     proxmox:
//!       url: https://pve-ippri-31.example:8006/
//!       token_env: PVE_SP_TOKEN          # holds user@realm!id=secret
//!       ca_file: /etc/cpps/pve-sp-ca.pem # or fingerprint: AA:BB:…, or insecure: true
//!     linstor:
//!       controllers: linstor+ssl://10.10.20.1,pve-ippri-11
//!       ca_file: /etc/cpps/linstor-ca.pem
//!     vyos:
//!       url: https://192.168.10.1/
//!       key_env: VYOS_SP_KEY
//!     # vyos_peer: { url: …, key_env: … }  # the second router of a VRRP pair (VRRP-002)
//!     kubernetes:
//!       gpu-sp-01: { kubeconfig: /etc/cpps/gpu-sp-01.kubeconfig }
//!     nvml:
//!       - host: pve-ippri-31              # this machine's GPUs, through libnvidia-ml
//! ```
//!
//! Every client also takes `limits: { connect_timeout, request_timeout, deadline,
//! max_response_bytes }` (seconds, bytes); what it leaves out comes from [`ClientOptions`].
//! The keys of each system are documented on its `Config`.
//!
//! Without a file, [`Endpoints::from_env`] reads the variables each client documents:
//! `PROXMOX_VE_*` (cpps-proxmox), `LS_CONTROLLERS` and `LS_*` (cpps-linstor), `PBS_*` and
//! `CPPS_PBS_URL` (cpps-pbs), `VYOS_*` (cpps-vyos), `KUBECONFIG`.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use cpps_http::{Limits, RetryPolicy, SecretSource};
use serde::Deserialize;
use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::sources::{
    KubeSource, LinstorSource, NvmlSource, PbsSource, PveSource, Sources, VyosSource,
};
use crate::model::Topology;

/// One K3s cluster's API server.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KubeEndpoint {
    /// The kubeconfig file (its current context).
    pub kubeconfig: PathBuf,
}

/// NVML on one GPU host (the machine the audit runs on).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NvmlEndpoint {
    /// The host id of the topology.
    pub host: String,
    /// The library, when not the loader's `libnvidia-ml.so.1`.
    pub library: Option<PathBuf>,
}

/// The endpoints of one site: each system's settings in its client crate's one shape.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SiteEndpoints {
    /// Proxmox VE.
    pub proxmox: Option<cpps_proxmox::Config>,
    /// LINSTOR.
    pub linstor: Option<cpps_linstor::Config>,
    /// PBS.
    pub pbs: Option<cpps_pbs::Config>,
    /// VyOS.
    pub vyos: Option<cpps_vyos::Config>,
    /// The second VyOS router of a VRRP pair at this site (`vyos_peer:` in the file), when the
    /// site has one: the documents declare one router per site today, with VRRP for VyOS
    /// desired, so VRRP-002 compares the pair only where this is set.
    pub vyos_peer: Option<cpps_vyos::Config>,
    /// K3s clusters by id.
    #[serde(default)]
    pub kubernetes: BTreeMap<String, KubeEndpoint>,
    /// GPU hosts.
    #[serde(default)]
    pub nvml: Vec<NvmlEndpoint>,
}

/// Where every site's live systems are.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Endpoints {
    /// Sites by id.
    #[serde(default)]
    pub sites: BTreeMap<String, SiteEndpoints>,
}

/// An endpoints file or environment that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EndpointsError {
    /// The file cannot be read.
    #[error("cannot read endpoints file {path}: {reason}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        reason: String,
    },
    /// The YAML does not parse or has an unknown key.
    #[error("{file}:{line}:{column}: {message}")]
    Syntax {
        /// The file.
        file: String,
        /// 1-based line (0 when unknown).
        line: u64,
        /// 1-based column (0 when unknown).
        column: u64,
        /// What is wrong.
        message: String,
    },
    /// A secret is written in the file.
    #[error(
        "{file}:{line}:{column}: `{path}` is a secret written inline; name an environment variable with `{field}_env` or a file with `{field}_file` instead"
    )]
    InlineSecret {
        /// The file.
        file: String,
        /// 1-based line.
        line: u64,
        /// 1-based column.
        column: u64,
        /// The key path (`sites.sp.proxmox.token`).
        path: String,
        /// The key (`token`).
        field: String,
    },
    /// A value is missing or wrong.
    #[error("{path}: {reason}")]
    Invalid {
        /// The key path or variable.
        path: String,
        /// What is wrong.
        reason: String,
    },
    /// The file names a site, cluster or host the topology does not have.
    #[error("{path}: the topology has no {what} `{name}`")]
    Unknown {
        /// The key path.
        path: String,
        /// `site`, `K3s cluster` or `host`.
        what: &'static str,
        /// The name.
        name: String,
    },
}

// ---------------------------------------------------------------------------------------------
// The file.

/// The keys of the file's systems that would hold a secret itself; each has `_env` and `_file`
/// forms, which name where it is.
const SECRET_KEYS: [&str; 4] = ["token", "password", "bearer_token", "key"];

/// What the file says of secrets, read before its settings so that a secret written inline is
/// refused before anything else, naming its key path and line (the settings' own reading
/// could name neither), and so that `_env` with `_file` names its key path.
#[derive(Deserialize)]
struct SecretScan {
    #[serde(default)]
    sites: BTreeMap<String, BTreeMap<String, SecretKeys>>,
}

/// The keys of one system of the file: each secret key written inline with its position, and
/// every key's name.
#[derive(Default)]
struct SecretKeys {
    inline: Vec<(String, u64, u64)>,
    keys: Vec<String>,
}

impl<'de> Deserialize<'de> for SecretKeys {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(SecretKeysVisitor)
    }
}

struct SecretKeysVisitor;

impl<'de> Visitor<'de> for SecretKeysVisitor {
    type Value = SecretKeys;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a system's settings")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<SecretKeys, A::Error> {
        let mut out = SecretKeys::default();
        while let Some(key) = map.next_key::<String>()? {
            if SECRET_KEYS.contains(&key.as_str()) {
                let at = map
                    .next_value::<serde_saphyr::Spanned<IgnoredAny>>()?
                    .referenced;
                out.inline.push((key.clone(), at.line(), at.column()));
            } else {
                map.next_value::<IgnoredAny>()?;
            }
            out.keys.push(key);
        }
        Ok(out)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<SecretKeys, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(SecretKeys::default())
    }

    fn visit_unit<E>(self) -> Result<SecretKeys, E> {
        Ok(SecretKeys::default())
    }

    fn visit_str<E>(self, _: &str) -> Result<SecretKeys, E> {
        Ok(SecretKeys::default())
    }

    fn visit_bool<E>(self, _: bool) -> Result<SecretKeys, E> {
        Ok(SecretKeys::default())
    }

    fn visit_i64<E>(self, _: i64) -> Result<SecretKeys, E> {
        Ok(SecretKeys::default())
    }

    fn visit_u64<E>(self, _: u64) -> Result<SecretKeys, E> {
        Ok(SecretKeys::default())
    }

    fn visit_f64<E>(self, _: f64) -> Result<SecretKeys, E> {
        Ok(SecretKeys::default())
    }
}

/// Refuses a secret written inline in `text`, and a secret named by both `_env` and `_file`.
/// A file that does not parse is left to the settings' reading, which names what is wrong.
fn refuse_inline_secrets(file: &str, text: &str) -> Result<(), EndpointsError> {
    let Ok(scan) = serde_saphyr::from_str::<SecretScan>(text) else {
        return Ok(());
    };
    for (site, systems) in &scan.sites {
        for (system, keys) in systems {
            let base = format!("sites.{site}.{system}");
            if let Some((field, line, column)) = keys.inline.first() {
                return Err(EndpointsError::InlineSecret {
                    file: file.to_owned(),
                    line: *line,
                    column: *column,
                    path: format!("{base}.{field}"),
                    field: field.clone(),
                });
            }
            for field in SECRET_KEYS {
                let has = |suffix: &str| keys.keys.iter().any(|k| *k == format!("{field}{suffix}"));
                if has("_env") && has("_file") {
                    let e =
                        SecretSource::from_keys(field, Some(String::new()), Some(PathBuf::new()))
                            .err()
                            .unwrap_or_else(|| cpps_http::SettingError::new(field, "given twice"));
                    return Err(EndpointsError::Invalid {
                        path: format!("{base}.{}", e.field),
                        reason: e.reason,
                    });
                }
            }
        }
    }
    Ok(())
}

impl Endpoints {
    /// Reads an endpoints file.
    pub fn load(path: &Path) -> Result<Self, EndpointsError> {
        let text = std::fs::read_to_string(path).map_err(|e| EndpointsError::Read {
            path: path.to_owned(),
            reason: e.to_string(),
        })?;
        Self::parse(&path.display().to_string(), &text)
    }

    /// Parses endpoints YAML; `file` names it in errors.
    pub fn parse(file: &str, text: &str) -> Result<Self, EndpointsError> {
        refuse_inline_secrets(file, text)?;
        serde_saphyr::from_str(text).map_err(|e| {
            let (line, column) = e.location().map_or((0, 0), |l| (l.line(), l.column()));
            EndpointsError::Syntax {
                file: file.to_owned(),
                line,
                column,
                message: serde_saphyr::MessageFormatter::format_message(
                    &serde_saphyr::DefaultMessageFormatter,
                    e.without_snippet(),
                )
                .into_owned(),
            }
        })
    }

    /// The endpoints of one site from the clients' environment variables, read through
    /// `lookup` by each client crate's `Config::from_env`: `PROXMOX_VE_ENDPOINT` and the other
    /// `PROXMOX_VE_*` ([`cpps_proxmox::Config::from_env`]); `LS_CONTROLLERS` and the other
    /// `LS_*` ([`cpps_linstor::Config::from_env`]); `PBS_REPOSITORY`, `PBS_PASSWORD`,
    /// `PBS_FINGERPRINT` and `CPPS_PBS_URL` ([`cpps_pbs::Config::from_env`]); `VYOS_URL`,
    /// `VYOS_API_KEY` and `VYOS_FINGERPRINT` ([`cpps_vyos::Config::from_env`]); `KUBECONFIG`
    /// for `kube_cluster`. A system is configured when its first variable is set. Secrets
    /// stay in the environment: the settings name their variables.
    pub fn from_env(
        site: &str,
        kube_cluster: Option<&str>,
        lookup: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Self, EndpointsError> {
        let set = |name: &str| cpps_http::env::get(lookup, name).is_some();
        let mut ends = SiteEndpoints::default();
        if set(cpps_proxmox::ENV_ENDPOINT) {
            let config = cpps_proxmox::Config::from_env(lookup);
            ends.proxmox = Some(config.map_err(|e| invalid("PROXMOX_VE_*", &e))?);
        }
        if set(cpps_linstor::ENV_CONTROLLERS) {
            let config = cpps_linstor::Config::from_env(lookup);
            ends.linstor = Some(config.map_err(|e| invalid("LS_*", &e))?);
        }
        if set(cpps_pbs::ENV_REPOSITORY) {
            let config = cpps_pbs::Config::from_env(lookup);
            ends.pbs = Some(config.map_err(|e| invalid("PBS_*", &e))?);
        }
        if set(cpps_vyos::ENV_URL) {
            let config = cpps_vyos::Config::from_env(lookup);
            ends.vyos = Some(config.map_err(|e| invalid("VYOS_*", &e))?);
        }
        if let (Some(kubeconfig), Some(cluster)) =
            (cpps_http::env::get(lookup, "KUBECONFIG"), kube_cluster)
        {
            // KUBECONFIG may list several files; the first is the one that is read.
            let first = kubeconfig.split(':').next().unwrap_or("").to_owned();
            ends.kubernetes.insert(
                cluster.to_owned(),
                KubeEndpoint {
                    kubeconfig: first.into(),
                },
            );
        }
        let mut out = Endpoints::default();
        out.sites.insert(site.to_owned(), ends);
        Ok(out)
    }

    /// Checks that every site, K3s cluster and GPU host named exists in `topology`.
    pub fn check_against(&self, topology: &Topology) -> Result<(), EndpointsError> {
        for (site, ends) in &self.sites {
            if !topology.sites().iter().any(|s| s.id.as_str() == site) {
                return Err(EndpointsError::Unknown {
                    path: format!("sites.{site}"),
                    what: "site",
                    name: site.clone(),
                });
            }
            for id in ends.kubernetes.keys() {
                if !topology
                    .k3s_clusters()
                    .iter()
                    .any(|c| c.id.as_str() == id && c.site.as_str() == site)
                {
                    return Err(EndpointsError::Unknown {
                        path: format!("sites.{site}.kubernetes.{id}"),
                        what: "K3s cluster in this site",
                        name: id.clone(),
                    });
                }
            }
            for (i, n) in ends.nvml.iter().enumerate() {
                if !topology
                    .hosts()
                    .iter()
                    .any(|h| h.id.as_str() == n.host && h.site.as_str() == site)
                {
                    return Err(EndpointsError::Unknown {
                        path: format!("sites.{site}.nvml[{i}].host"),
                        what: "host in this site",
                        name: n.host.clone(),
                    });
                }
            }
        }
        Ok(())
    }

    /// Builds the sources: one client per configured system, secrets read through `lookup`
    /// (or from their files) now. Without the topology, a PBS datastore missing from the
    /// server's list can only be "cannot tell" (maybe hidden by permission); use
    /// [`sources_for`](Endpoints::sources_for) to have its own path's rights read.
    pub fn sources(
        &self,
        options: &ClientOptions,
        lookup: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Sources, EndpointsError> {
        self.build_sources(None, options, lookup)
    }

    /// [`sources`](Endpoints::sources), with each PBS source told the datastores `topology`
    /// declares for its site, so that one missing from the list is judged by the rights on its
    /// own path ([`PbsSource::expect_datastores`]): drift where PBS would list it, "cannot tell"
    /// where an ACL may hide it.
    pub fn sources_for(
        &self,
        topology: &Topology,
        options: &ClientOptions,
        lookup: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Sources, EndpointsError> {
        self.build_sources(Some(topology), options, lookup)
    }

    fn build_sources(
        &self,
        topology: Option<&Topology>,
        options: &ClientOptions,
        lookup: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Sources, EndpointsError> {
        let build = Build { options, lookup };
        let mut sources = Sources::default();
        for (site, ends) in &self.sites {
            let at = |system: &str| format!("sites.{site}.{system}");
            let s = sources.site_mut(site);
            if let Some(c) = &ends.proxmox {
                let client = build.proxmox(c, &at("proxmox"))?;
                let source = PveSource::new(client, c.url.clone(), options.concurrency);
                s.proxmox = Some(Box::new(source));
            }
            if let Some(c) = &ends.linstor {
                let client = build.linstor(c, &at("linstor"))?;
                s.linstor = Some(Box::new(LinstorSource::new(client)));
            }
            if let Some(c) = &ends.pbs {
                let client = build.pbs(c, &at("pbs"))?;
                let fingerprint = match &c.tls {
                    cpps_http::TlsMode::Pinned(pin) => Some(pin.to_string()),
                    _ => None,
                };
                let source = PbsSource::new(client, c.api_url())
                    .fingerprint(fingerprint)
                    .expect_datastores(declared_datastores(topology, site));
                s.pbs = Some(Box::new(source));
            }
            if let Some(c) = &ends.vyos {
                let client = build.vyos(c, &at("vyos"))?;
                s.vyos = Some(Box::new(VyosSource::new(client, c.url.clone())));
            }
            if let Some(c) = &ends.vyos_peer {
                let client = build.vyos(c, &at("vyos_peer"))?;
                s.vyos_peer = Some(Box::new(VyosSource::new(client, c.url.clone())));
            }
            for (id, k) in &ends.kubernetes {
                s.kubernetes
                    .push((id.clone(), Box::new(KubeSource::new(&k.kubeconfig))));
            }
            for n in &ends.nvml {
                s.gpus.push((
                    n.host.clone(),
                    Box::new(NvmlSource::new(n.library.clone(), options.xid_wait)),
                ));
            }
        }
        Ok(sources)
    }

    /// The Proxmox VE client of `site`, for writes (the HA runbook's adds); `None` when the
    /// site has no Proxmox endpoint.
    pub fn proxmox_client(
        &self,
        site: &str,
        options: &ClientOptions,
        lookup: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Option<cpps_proxmox::Client>, EndpointsError> {
        let build = Build { options, lookup };
        self.sites
            .get(site)
            .and_then(|s| s.proxmox.as_ref())
            .map(|c| build.proxmox(c, &format!("sites.{site}.proxmox")))
            .transpose()
    }

    /// The LINSTOR client of `site`, for writes (the driver-update runbook's snapshot step);
    /// `None` when the site has no LINSTOR endpoint.
    pub fn linstor_client(
        &self,
        site: &str,
        options: &ClientOptions,
        lookup: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Option<cpps_linstor::Client>, EndpointsError> {
        let build = Build { options, lookup };
        self.sites
            .get(site)
            .and_then(|s| s.linstor.as_ref())
            .map(|c| build.linstor(c, &format!("sites.{site}.linstor")))
            .transpose()
    }
}

/// The datastores `topology` declares for the PBS instances of `site` (none without a topology).
fn declared_datastores(topology: Option<&Topology>, site: &str) -> Vec<String> {
    let Some(topology) = topology else {
        return Vec::new();
    };
    topology
        .pbs()
        .iter()
        .filter(|p| p.site.as_str() == site)
        .flat_map(|p| p.datastores.iter().map(|d| d.name.to_string()))
        .collect()
}

/// Timeouts and limits of the clients built by [`Endpoints::sources`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ClientOptions {
    /// Connection timeout.
    pub connect_timeout: Duration,
    /// Per-request timeout.
    pub request_timeout: Duration,
    /// Time allowed for one call, retries included (the clients' `deadline`); binaries set it
    /// from their `--timeout`.
    pub deadline: Duration,
    /// Requests in flight per source, at most (the Proxmox VE source's container configs and
    /// node statuses; default `cpps_proxmox::DEFAULT_CONCURRENCY`, which a near server gets
    /// fewer of: `cpps_proxmox::inventory::config_bound`).
    pub concurrency: usize,
    /// Retries of idempotent requests.
    pub retries: u32,
    /// How long NVML listens for XID events.
    pub xid_wait: Duration,
}

impl Default for ClientOptions {
    fn default() -> Self {
        Self {
            connect_timeout: Duration::from_secs(5),
            request_timeout: Duration::from_secs(20),
            deadline: Duration::from_secs(60),
            concurrency: cpps_proxmox::DEFAULT_CONCURRENCY,
            retries: 2,
            xid_wait: Duration::from_millis(500),
        }
    }
}

impl ClientOptions {
    /// The defaults, with every call ending within `timeout` (a binary's `--timeout`): the
    /// clients' deadline is `timeout`, and neither the connect nor the request timeout exceeds
    /// it.
    pub fn bounded_by(timeout: Duration) -> ClientOptions {
        let defaults = ClientOptions::default();
        ClientOptions {
            connect_timeout: defaults.connect_timeout.min(timeout),
            request_timeout: defaults.request_timeout.min(timeout),
            deadline: timeout,
            ..defaults
        }
    }

    /// These timeouts and deadline as the limits of a client's settings: what every client
    /// built here has where its own settings set none.
    fn limits(&self) -> Limits {
        Limits {
            connect_timeout: Some(self.connect_timeout),
            request_timeout: Some(self.request_timeout),
            deadline: Some(self.deadline),
            max_response_bytes: None,
        }
    }

    fn retry(&self) -> RetryPolicy {
        if self.retries == 0 {
            RetryPolicy::none()
        } else {
            RetryPolicy {
                max_attempts: self.retries + 1,
                ..RetryPolicy::default()
            }
        }
    }
}

fn invalid(path: &str, error: &dyn std::error::Error) -> EndpointsError {
    EndpointsError::Invalid {
        path: path.to_owned(),
        reason: super::facts::error_chain(error),
    }
}

/// Builds each system's client from its settings with `ClientBuilder::from_config`: the
/// [`ClientOptions`] fill the limits the settings leave out, and each secret is read first so
/// that an error names its key path (`sites.sp.proxmox.token`).
struct Build<'a> {
    options: &'a ClientOptions,
    lookup: &'a dyn Fn(&str) -> Option<String>,
}

impl Build<'_> {
    /// The secret `field` of the settings at `path`, read now.
    fn secret(
        &self,
        source: &SecretSource,
        path: &str,
        field: &str,
    ) -> Result<SecretSource, EndpointsError> {
        source
            .resolve(field, self.lookup)
            .map(SecretSource::Value)
            .map_err(|e| EndpointsError::Invalid {
                path: format!("{path}.{field}"),
                reason: e.reason,
            })
    }

    fn proxmox(
        &self,
        c: &cpps_proxmox::Config,
        path: &str,
    ) -> Result<cpps_proxmox::Client, EndpointsError> {
        use cpps_proxmox::Login;
        let mut c = c.clone();
        c.limits = c.limits.or(self.options.limits());
        c.login = match c.login {
            Login::Token(t) => Login::Token(self.secret(&t, path, "token")?),
            Login::Password { user, password } => Login::Password {
                user,
                password: self.secret(&password, path, "password")?,
            },
        };
        cpps_proxmox::ClientBuilder::from_config(&c, self.lookup)
            .and_then(|b| b.retry(self.options.retry()).build())
            .map_err(|e| invalid(path, &e))
    }

    fn linstor(
        &self,
        c: &cpps_linstor::Config,
        path: &str,
    ) -> Result<cpps_linstor::Client, EndpointsError> {
        use cpps_linstor::Login;
        let mut c = c.clone();
        c.limits = c.limits.or(self.options.limits());
        c.login = match c.login {
            // A token file may hold JSON (golinstor `tokenFromFile`): the client reads it.
            Login::Bearer(t @ SecretSource::File(_)) => Login::Bearer(t),
            Login::Bearer(t) => Login::Bearer(self.secret(&t, path, "bearer_token")?),
            Login::Basic { user, password } => Login::Basic {
                user,
                password: password
                    .map(|p| self.secret(&p, path, "password"))
                    .transpose()?,
            },
            Login::None => Login::None,
        };
        cpps_linstor::ClientBuilder::from_config(&c, self.lookup)
            .and_then(|b| b.retry(self.options.retry()).build())
            .map_err(|e| invalid(path, &e))
    }

    fn pbs(&self, c: &cpps_pbs::Config, path: &str) -> Result<cpps_pbs::Client, EndpointsError> {
        let mut c = c.clone();
        c.limits = c.limits.or(self.options.limits());
        c.password = self.secret(&c.password, path, "password")?;
        cpps_pbs::ClientBuilder::from_config(&c, self.lookup)
            .and_then(|b| b.retry(self.options.retry()).build())
            .map_err(|e| invalid(path, &e))
    }

    fn vyos(&self, c: &cpps_vyos::Config, path: &str) -> Result<cpps_vyos::Client, EndpointsError> {
        let mut c = c.clone();
        c.limits = c.limits.or(self.options.limits());
        c.key = self.secret(&c.key, path, "key")?;
        cpps_vyos::ClientBuilder::from_config(&c, self.lookup)
            .and_then(cpps_vyos::ClientBuilder::build)
            .map_err(|e| invalid(path, &e))
    }
}
