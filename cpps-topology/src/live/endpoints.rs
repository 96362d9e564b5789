//! Where each site's live systems are, from a small YAML endpoints file or from the clients'
//! environment variables. The file holds no secret: a secret is named by an environment
//! variable (`token_env`) or a file path (`token_file`); a secret written inline is rejected.
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
//! Without a file, [`Endpoints::from_env`] reads the variables each client documents:
//! `PROXMOX_VE_*` (cpps-proxmox), `LS_CONTROLLERS` and `LS_*` (cpps-linstor), `KUBECONFIG`.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use cpps_http::{RetryPolicy, SecretString, TlsMode};
use serde::Deserialize;

use super::sources::{
    KubeSource, LinstorSource, NvmlSource, PbsSource, PveSource, Sources, VyosSource,
};
use crate::model::Topology;

/// A secret: the name of an environment variable that holds it, or a file that holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SecretRef {
    /// `…_env: NAME`.
    Env(String),
    /// `…_file: PATH` (the file's text, trimmed).
    File(PathBuf),
}

impl SecretRef {
    /// Reads the secret through `lookup` (for variables) or from the file.
    pub fn resolve(
        &self,
        lookup: &dyn Fn(&str) -> Option<String>,
        field: &str,
    ) -> Result<SecretString, EndpointsError> {
        match self {
            Self::Env(name) => lookup(name)
                .filter(|v| !v.trim().is_empty())
                .map(|v| SecretString::from(v.trim().to_owned()))
                .ok_or_else(|| EndpointsError::Invalid {
                    path: field.to_owned(),
                    reason: format!("environment variable {name} is not set"),
                }),
            Self::File(path) => std::fs::read_to_string(path)
                .map(|v| SecretString::from(v.trim().to_owned()))
                .map_err(|e| EndpointsError::Invalid {
                    path: field.to_owned(),
                    reason: format!("cannot read secret file {}: {e}", path.display()),
                }),
        }
    }
}

/// A site's Proxmox VE cluster.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProxmoxEndpoint {
    /// `https://host:8006/`.
    pub url: String,
    /// The API token `user@realm!id=secret`.
    pub token: Option<SecretRef>,
    /// A user (`root@pam`) logging in with `password`.
    pub user: Option<String>,
    /// The user's password.
    pub password: Option<SecretRef>,
    /// How to verify TLS.
    pub tls: TlsChoice,
}

/// How to verify a server's certificate.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum TlsChoice {
    /// The system roots.
    #[default]
    System,
    /// A CA bundle file.
    CaFile(PathBuf),
    /// A pinned SHA-256 fingerprint.
    Fingerprint(String),
    /// No verification (loud).
    Insecure,
}

impl TlsChoice {
    fn mode(&self, path: &str) -> Result<TlsMode, EndpointsError> {
        Ok(match self {
            Self::System => TlsMode::SystemRoots,
            Self::CaFile(p) => TlsMode::ca_file(p),
            Self::Fingerprint(fp) => TlsMode::pinned(fp).map_err(|e| EndpointsError::Invalid {
                path: format!("{path}.fingerprint"),
                reason: e.to_string(),
            })?,
            Self::Insecure => TlsMode::danger_accept_invalid_certs(),
        })
    }
}

/// A site's LINSTOR controllers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinstorEndpoint {
    /// `LS_CONTROLLERS` syntax: `linstor+ssl://10.10.20.1,pve-ippri-11`.
    pub controllers: String,
    /// A bearer token.
    pub bearer_token: Option<SecretRef>,
    /// Basic-auth user.
    pub user: Option<String>,
    /// Basic-auth password.
    pub password: Option<SecretRef>,
    /// A CA bundle file for https controllers.
    pub ca_file: Option<PathBuf>,
}

/// A site's Proxmox Backup Server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PbsEndpoint {
    /// `PBS_REPOSITORY` syntax: `user@realm!token@host:port:store`.
    pub repository: String,
    /// The password or token secret (`PBS_PASSWORD`).
    pub password: SecretRef,
    /// The pinned SHA-256 fingerprint (`PBS_FINGERPRINT`).
    pub fingerprint: Option<String>,
    /// An API URL replacing the repository's (`CPPS_PBS_URL`).
    pub url: Option<String>,
}

/// A site's VyOS router.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VyosEndpoint {
    /// `https://router/` (`VYOS_URL`).
    pub url: String,
    /// The HTTPS API key (`VYOS_API_KEY`).
    pub key: SecretRef,
    /// How to verify TLS.
    pub tls: TlsChoice,
}

/// One K3s cluster's API server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KubeEndpoint {
    /// The kubeconfig file (its current context).
    pub kubeconfig: PathBuf,
}

/// NVML on one GPU host (the machine the audit runs on).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NvmlEndpoint {
    /// The host id of the topology.
    pub host: String,
    /// The library, when not the loader's `libnvidia-ml.so.1`.
    pub library: Option<PathBuf>,
}

/// The endpoints of one site.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SiteEndpoints {
    /// Proxmox VE.
    pub proxmox: Option<ProxmoxEndpoint>,
    /// LINSTOR.
    pub linstor: Option<LinstorEndpoint>,
    /// PBS.
    pub pbs: Option<PbsEndpoint>,
    /// VyOS.
    pub vyos: Option<VyosEndpoint>,
    /// The second VyOS router of a VRRP pair at this site (`vyos_peer:` in the file), when the
    /// site has one: the documents declare one router per site today, with VRRP for VyOS
    /// desired, so VRRP-002 compares the pair only where this is set.
    pub vyos_peer: Option<VyosEndpoint>,
    /// K3s clusters by id.
    pub kubernetes: BTreeMap<String, KubeEndpoint>,
    /// GPU hosts.
    pub nvml: Vec<NvmlEndpoint>,
    /// Whether these endpoints were read from the environment ([`Endpoints::from_env`]): the
    /// clients are then built by their own `ClientBuilder::from_env` on that environment, so a
    /// variable means in the audit exactly what it means to every binary. Endpoints of a file
    /// never read the clients' variables: a file's site cannot pick up another site's
    /// `PROXMOX_VE_*` from the process.
    pub from_environment: bool,
}

/// Where every site's live systems are.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Endpoints {
    /// Sites by id.
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

type Sp<T> = serde_saphyr::Spanned<T>;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileDoc {
    #[serde(default)]
    sites: BTreeMap<String, FileSite>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileSite {
    proxmox: Option<FileProxmox>,
    linstor: Option<FileLinstor>,
    pbs: Option<FilePbs>,
    vyos: Option<FileVyos>,
    vyos_peer: Option<FileVyos>,
    #[serde(default)]
    kubernetes: BTreeMap<String, FileKube>,
    #[serde(default)]
    nvml: Vec<FileNvml>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileProxmox {
    url: String,
    token: Option<Sp<serde_json::Value>>,
    token_env: Option<String>,
    token_file: Option<PathBuf>,
    user: Option<String>,
    password: Option<Sp<serde_json::Value>>,
    password_env: Option<String>,
    password_file: Option<PathBuf>,
    ca_file: Option<PathBuf>,
    fingerprint: Option<String>,
    #[serde(default)]
    insecure: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileLinstor {
    controllers: String,
    bearer_token: Option<Sp<serde_json::Value>>,
    bearer_token_env: Option<String>,
    bearer_token_file: Option<PathBuf>,
    user: Option<String>,
    password: Option<Sp<serde_json::Value>>,
    password_env: Option<String>,
    password_file: Option<PathBuf>,
    ca_file: Option<PathBuf>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FilePbs {
    repository: String,
    password: Option<Sp<serde_json::Value>>,
    password_env: Option<String>,
    password_file: Option<PathBuf>,
    fingerprint: Option<String>,
    url: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileVyos {
    url: String,
    key: Option<Sp<serde_json::Value>>,
    key_env: Option<String>,
    key_file: Option<PathBuf>,
    ca_file: Option<PathBuf>,
    fingerprint: Option<String>,
    #[serde(default)]
    insecure: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileKube {
    kubeconfig: PathBuf,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileNvml {
    host: String,
    library: Option<PathBuf>,
}

fn tls_choice(
    path: &str,
    ca_file: Option<PathBuf>,
    fingerprint: Option<String>,
    insecure: bool,
) -> Result<TlsChoice, EndpointsError> {
    match (ca_file, fingerprint, insecure) {
        (None, None, false) => Ok(TlsChoice::System),
        (Some(ca), None, false) => Ok(TlsChoice::CaFile(ca)),
        (None, Some(fp), false) => Ok(TlsChoice::Fingerprint(fp)),
        (None, None, true) => Ok(TlsChoice::Insecure),
        _ => Err(EndpointsError::Invalid {
            path: path.to_owned(),
            reason: "give at most one of ca_file, fingerprint and insecure".to_owned(),
        }),
    }
}

struct Cx<'a> {
    file: &'a str,
}

impl Cx<'_> {
    /// The secret of `field`: inline is an error, `_env` or `_file` (not both) is a reference.
    fn secret(
        &self,
        path: &str,
        field: &str,
        inline: Option<&Sp<serde_json::Value>>,
        env: Option<&String>,
        file: Option<&PathBuf>,
    ) -> Result<Option<SecretRef>, EndpointsError> {
        if let Some(inline) = inline {
            return Err(EndpointsError::InlineSecret {
                file: self.file.to_owned(),
                line: inline.referenced.line(),
                column: inline.referenced.column(),
                path: format!("{path}.{field}"),
                field: field.to_owned(),
            });
        }
        match (env, file) {
            (Some(_), Some(_)) => Err(EndpointsError::Invalid {
                path: format!("{path}.{field}_env"),
                reason: format!("give `{field}_env` or `{field}_file`, not both"),
            }),
            (Some(name), None) => Ok(Some(SecretRef::Env(name.clone()))),
            (None, Some(p)) => Ok(Some(SecretRef::File(p.clone()))),
            (None, None) => Ok(None),
        }
    }

    /// [`Cx::secret`] for a secret the endpoint cannot work without; `what` says what it is.
    fn required_secret(
        &self,
        path: &str,
        field: &str,
        inline: Option<&Sp<serde_json::Value>>,
        env: Option<&String>,
        file: Option<&PathBuf>,
        what: &str,
    ) -> Result<SecretRef, EndpointsError> {
        self.secret(path, field, inline, env, file)?
            .ok_or_else(|| EndpointsError::Invalid {
                path: path.to_owned(),
                reason: format!("give {field}_env or {field}_file ({what})"),
            })
    }
}

/// [`Cx::secret`] of the secret key `field` of an endpoint of the file, given with its
/// `field_env` and `field_file` keys: `file_secret!(cx, path, p.token, p.token_env, p.token_file)`.
macro_rules! file_secret {
    ($cx:ident, $path:expr, $end:ident.$field:ident, $env:expr, $file:expr) => {
        $cx.secret(
            $path,
            stringify!($field),
            $end.$field.as_ref(),
            $env.as_ref(),
            $file.as_ref(),
        )
    };
}

/// [`file_secret!`] for a secret the endpoint cannot work without ([`Cx::required_secret`]).
macro_rules! required_file_secret {
    ($cx:ident, $path:expr, $end:ident.$field:ident, $env:expr, $file:expr, $what:literal) => {
        $cx.required_secret(
            $path,
            stringify!($field),
            $end.$field.as_ref(),
            $env.as_ref(),
            $file.as_ref(),
            $what,
        )
    };
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
        let doc: FileDoc = serde_saphyr::from_str(text).map_err(|e| {
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
        })?;
        let cx = Cx { file };
        let mut out = Endpoints::default();
        for (site, s) in doc.sites {
            let ends = Self::site(&cx, &format!("sites.{site}"), s)?;
            out.sites.insert(site, ends);
        }
        Ok(out)
    }

    /// The endpoints of the site at `base` (`sites.<name>`) of the file.
    fn site(cx: &Cx<'_>, base: &str, s: FileSite) -> Result<SiteEndpoints, EndpointsError> {
        let mut ends = SiteEndpoints::default();
        if let Some(p) = s.proxmox {
            ends.proxmox = Some(Self::proxmox(cx, &format!("{base}.proxmox"), p)?);
        }
        if let Some(l) = s.linstor {
            let path = format!("{base}.linstor");
            ends.linstor = Some(LinstorEndpoint {
                controllers: l.controllers,
                bearer_token: file_secret!(
                    cx,
                    &path,
                    l.bearer_token,
                    l.bearer_token_env,
                    l.bearer_token_file
                )?,
                user: l.user,
                password: file_secret!(cx, &path, l.password, l.password_env, l.password_file)?,
                ca_file: l.ca_file,
            });
        }
        if let Some(p) = s.pbs {
            let path = format!("{base}.pbs");
            let password = required_file_secret!(
                cx,
                &path,
                p.password,
                p.password_env,
                p.password_file,
                "the token secret"
            )?;
            ends.pbs = Some(PbsEndpoint {
                repository: p.repository,
                password,
                fingerprint: p.fingerprint,
                url: p.url,
            });
        }
        ends.vyos = s
            .vyos
            .map(|v| Self::vyos_endpoint(cx, &format!("{base}.vyos"), v))
            .transpose()?;
        ends.vyos_peer = s
            .vyos_peer
            .map(|v| Self::vyos_endpoint(cx, &format!("{base}.vyos_peer"), v))
            .transpose()?;
        ends.kubernetes = s
            .kubernetes
            .into_iter()
            .map(|(id, k)| {
                (
                    id,
                    KubeEndpoint {
                        kubeconfig: k.kubeconfig,
                    },
                )
            })
            .collect();
        ends.nvml = s
            .nvml
            .into_iter()
            .map(|n| NvmlEndpoint {
                host: n.host,
                library: n.library,
            })
            .collect();
        Ok(ends)
    }

    /// The Proxmox endpoint at `path`: a token, or a user with a password, and its TLS choice.
    fn proxmox(cx: &Cx<'_>, path: &str, p: FileProxmox) -> Result<ProxmoxEndpoint, EndpointsError> {
        let token = file_secret!(cx, path, p.token, p.token_env, p.token_file)?;
        let password = file_secret!(cx, path, p.password, p.password_env, p.password_file)?;
        let tls = tls_choice(path, p.ca_file, p.fingerprint, p.insecure)?;
        match (&token, &p.user, &password) {
            (Some(_), None, None) | (None, Some(_), Some(_)) => {}
            _ => {
                return Err(EndpointsError::Invalid {
                    path: path.to_owned(),
                    reason: "give token_env/token_file, or user with password_env/password_file"
                        .to_owned(),
                });
            }
        }
        Ok(ProxmoxEndpoint {
            url: p.url,
            token,
            user: p.user,
            password,
            tls,
        })
    }

    /// The VyOS endpoint at `path`: its URL, its API key (required) and its TLS choice.
    fn vyos_endpoint(cx: &Cx<'_>, path: &str, v: FileVyos) -> Result<VyosEndpoint, EndpointsError> {
        let key =
            required_file_secret!(cx, path, v.key, v.key_env, v.key_file, "the HTTPS API key")?;
        let tls = tls_choice(path, v.ca_file, v.fingerprint, v.insecure)?;
        Ok(VyosEndpoint {
            url: v.url,
            key,
            tls,
        })
    }

    /// The endpoints of one site from the clients' environment variables, read through
    /// `lookup`: `PROXMOX_VE_ENDPOINT` with `PROXMOX_VE_API_TOKEN` (or `PROXMOX_VE_USERNAME` and
    /// `PROXMOX_VE_PASSWORD`) and one of `PROXMOX_VE_CA_FILE`, `PROXMOX_VE_FINGERPRINT`,
    /// `PROXMOX_VE_INSECURE`; `LS_CONTROLLERS` with `LS_BEARER_TOKEN_FILE` or `LS_USERNAME` and
    /// `LS_PASSWORD`, and `LS_ROOT_CA_FILE`; `PBS_REPOSITORY`, `PBS_PASSWORD`, `PBS_FINGERPRINT` and `CPPS_PBS_URL`
    /// (cpps-pbs); `VYOS_URL`, `VYOS_API_KEY` and `VYOS_FINGERPRINT`; `KUBECONFIG` for
    /// `kube_cluster`. Secrets stay in the environment: they are
    /// referenced by variable name.
    pub fn from_env(
        site: &str,
        kube_cluster: Option<&str>,
        lookup: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Self, EndpointsError> {
        let get = |k: &str| lookup(k).filter(|v| !v.trim().is_empty());
        let mut ends = SiteEndpoints::default();
        if let Some(url) = get("PROXMOX_VE_ENDPOINT") {
            let tls = if let Some(ca) = get("PROXMOX_VE_CA_FILE") {
                TlsChoice::CaFile(ca.into())
            } else if let Some(fp) = get("PROXMOX_VE_FINGERPRINT") {
                TlsChoice::Fingerprint(fp)
            } else if get("PROXMOX_VE_INSECURE").is_some_and(|v| {
                matches!(v.trim().to_ascii_lowercase().as_str(), "1" | "true" | "yes")
            }) {
                TlsChoice::Insecure
            } else {
                TlsChoice::System
            };
            let (token, user, password) = if get("PROXMOX_VE_API_TOKEN").is_some() {
                (
                    Some(SecretRef::Env("PROXMOX_VE_API_TOKEN".to_owned())),
                    None,
                    None,
                )
            } else {
                (
                    None,
                    get("PROXMOX_VE_USERNAME"),
                    Some(SecretRef::Env("PROXMOX_VE_PASSWORD".to_owned())),
                )
            };
            ends.proxmox = Some(ProxmoxEndpoint {
                url,
                token,
                user,
                password,
                tls,
            });
        }
        if let Some(controllers) = get("LS_CONTROLLERS") {
            // golinstor's variables (client/client.go), as `cpps_linstor::ClientBuilder::from_env`
            // reads them: the token and the CA come from files named by `…_FILE`.
            ends.linstor = Some(LinstorEndpoint {
                controllers,
                bearer_token: get("LS_BEARER_TOKEN_FILE").map(|p| SecretRef::File(p.into())),
                user: get("LS_USERNAME"),
                password: get("LS_USERNAME").map(|_| SecretRef::Env("LS_PASSWORD".to_owned())),
                ca_file: get("LS_ROOT_CA_FILE").map(Into::into),
            });
        }
        if let Some(repository) = get("PBS_REPOSITORY") {
            ends.pbs = Some(PbsEndpoint {
                repository,
                password: SecretRef::Env("PBS_PASSWORD".to_owned()),
                fingerprint: get("PBS_FINGERPRINT"),
                url: get("CPPS_PBS_URL"),
            });
        }
        if let Some(url) = get("VYOS_URL") {
            ends.vyos = Some(VyosEndpoint {
                url,
                key: SecretRef::Env("VYOS_API_KEY".to_owned()),
                tls: get("VYOS_FINGERPRINT").map_or(TlsChoice::System, TlsChoice::Fingerprint),
            });
        }
        if let (Some(kubeconfig), Some(cluster)) = (get("KUBECONFIG"), kube_cluster) {
            // KUBECONFIG may list several files; the first is the one that is read.
            let first = kubeconfig.split(':').next().unwrap_or("").to_owned();
            ends.kubernetes.insert(
                cluster.to_owned(),
                KubeEndpoint {
                    kubeconfig: first.into(),
                },
            );
        }
        ends.from_environment = true;
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
    /// (or from their files) now.
    pub fn sources(
        &self,
        options: &ClientOptions,
        lookup: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Sources, EndpointsError> {
        let mut sources = Sources::default();
        for (site, ends) in &self.sites {
            let cx = self.build_cx(site, options, lookup);
            let s = sources.site_mut(site);
            if let Some(p) = built(ends.proxmox.as_ref(), site, "proxmox", &cx, proxmox_source)? {
                s.proxmox = Some(Box::new(p));
            }
            if let Some(l) = built(ends.linstor.as_ref(), site, "linstor", &cx, linstor_source)? {
                s.linstor = Some(Box::new(l));
            }
            if let Some(p) = built(ends.pbs.as_ref(), site, "pbs", &cx, pbs_source)? {
                s.pbs = Some(Box::new(p));
            }
            if let Some(v) = built(ends.vyos.as_ref(), site, "vyos", &cx, vyos_source)? {
                s.vyos = Some(Box::new(v));
            }
            let peer = built(ends.vyos_peer.as_ref(), site, "vyos_peer", &cx, vyos_source)?;
            if let Some(v) = peer {
                s.vyos_peer = Some(Box::new(v));
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
}

impl Endpoints {
    /// The Proxmox VE client of `site`, for writes (the HA runbook's adds); `None` when the
    /// site has no Proxmox endpoint.
    pub fn proxmox_client(
        &self,
        site: &str,
        options: &ClientOptions,
        lookup: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Option<cpps_proxmox::Client>, EndpointsError> {
        let end = self.sites.get(site).and_then(|s| s.proxmox.as_ref());
        let cx = self.build_cx(site, options, lookup);
        let source = built(end, site, "proxmox", &cx, proxmox_source)?;
        Ok(source.map(|s| s.client().clone()))
    }

    /// The LINSTOR client of `site`, for writes (the driver-update runbook's snapshot step);
    /// `None` when the site has no LINSTOR endpoint.
    pub fn linstor_client(
        &self,
        site: &str,
        options: &ClientOptions,
        lookup: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Option<cpps_linstor::Client>, EndpointsError> {
        let end = self.sites.get(site).and_then(|s| s.linstor.as_ref());
        let cx = self.build_cx(site, options, lookup);
        let source = built(end, site, "linstor", &cx, linstor_source)?;
        Ok(source.map(|s| s.client().clone()))
    }

    /// How the clients of `site` are built: from the environment when the site came from it.
    fn build_cx<'a>(
        &self,
        site: &str,
        options: &'a ClientOptions,
        lookup: &'a dyn Fn(&str) -> Option<String>,
    ) -> BuildCx<'a> {
        BuildCx {
            options,
            from_environment: self.sites.get(site).is_some_and(|s| s.from_environment),
            lookup,
        }
    }
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

    /// `http` with these timeouts and deadline: what every client built here shares.
    fn transport(&self, http: cpps_http::ClientBuilder) -> cpps_http::ClientBuilder {
        http.connect_timeout(self.connect_timeout)
            .request_timeout(self.request_timeout)
            .deadline(self.deadline)
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

/// The source of `end`, the `service` endpoint of `site`, made by `build` (errors name
/// `sites.{site}.{service}`); `None` when the site has no such endpoint.
fn built<E, S>(
    end: Option<&E>,
    site: &str,
    service: &str,
    cx: &BuildCx<'_>,
    build: impl FnOnce(&E, &str, &BuildCx<'_>) -> Result<S, EndpointsError>,
) -> Result<Option<S>, EndpointsError> {
    end.map(|end| build(end, &format!("sites.{site}.{service}"), cx))
        .transpose()
}

/// What building one site's clients needs besides its endpoint.
struct BuildCx<'a> {
    options: &'a ClientOptions,
    from_environment: bool,
    lookup: &'a dyn Fn(&str) -> Option<String>,
}

/// The clients' own variables as an endpoint of the file gives them, so that every client is
/// built by its `ClientBuilder::from_env` whether its settings come from the environment or
/// from the file: one reading of each setting, in the client crate.
#[derive(Default)]
struct ClientVars(BTreeMap<&'static str, String>);

impl ClientVars {
    fn set(&mut self, name: &'static str, value: impl Into<String>) {
        self.0.insert(name, value.into());
    }

    fn secret(&mut self, name: &'static str, value: &SecretString) {
        self.0.insert(
            name,
            cpps_http::ExposeSecret::expose_secret(value).to_owned(),
        );
    }

    fn get(&self, name: &str) -> Option<String> {
        self.0.get(name).cloned()
    }
}

impl<'a> BuildCx<'a> {
    /// The variables a client reads: the environment itself for endpoints read from it; for an
    /// endpoint of the file, its own values, which `write` sets (it is not called otherwise).
    fn client_env(
        &self,
        write: impl FnOnce(&mut ClientVars) -> Result<(), EndpointsError>,
    ) -> Result<impl Fn(&str) -> Option<String> + 'a, EndpointsError> {
        let (from_environment, lookup) = (self.from_environment, self.lookup);
        let mut vars = ClientVars::default();
        if !from_environment {
            write(&mut vars)?;
        }
        Ok(move |name: &str| {
            if from_environment {
                lookup(name)
            } else {
                vars.get(name)
            }
        })
    }
}

fn proxmox_source(
    p: &ProxmoxEndpoint,
    path: &str,
    cx: &BuildCx<'_>,
) -> Result<PveSource, EndpointsError> {
    let env = cx.client_env(|vars| {
        vars.set(cpps_proxmox::ENV_ENDPOINT, &p.url);
        if let Some(token) = &p.token {
            vars.secret(
                cpps_proxmox::ENV_API_TOKEN,
                &token.resolve(cx.lookup, &format!("{path}.token"))?,
            );
        } else if let (Some(user), Some(password)) = (&p.user, &p.password) {
            vars.set(cpps_proxmox::ENV_USERNAME, user);
            vars.secret(
                cpps_proxmox::ENV_PASSWORD,
                &password.resolve(cx.lookup, &format!("{path}.password"))?,
            );
        }
        Ok(())
    })?;
    let mut builder = cpps_proxmox::ClientBuilder::from_env(&env).map_err(|e| invalid(path, &e))?;
    if !cx.from_environment {
        builder = builder.tls(p.tls.mode(path)?);
    }
    let client = builder
        .http_settings(|http| cx.options.transport(http))
        .retry(cx.options.retry())
        .build()
        .map_err(|e| invalid(path, &e))?;
    Ok(PveSource::new(
        client,
        p.url.clone(),
        cx.options.concurrency,
    ))
}

fn linstor_source(
    l: &LinstorEndpoint,
    path: &str,
    cx: &BuildCx<'_>,
) -> Result<LinstorSource, EndpointsError> {
    let env = cx.client_env(|vars| {
        vars.set(cpps_linstor::ENV_CONTROLLERS, &l.controllers);
        if let Some(ca) = &l.ca_file {
            vars.set(cpps_linstor::ENV_ROOT_CA_FILE, ca.display().to_string());
        }
        match (&l.bearer_token, &l.user, &l.password) {
            (Some(SecretRef::File(file)), _, _) => {
                vars.set(
                    cpps_linstor::ENV_BEARER_TOKEN_FILE,
                    file.display().to_string(),
                );
            }
            (Some(SecretRef::Env(_)), _, _) => {}
            (None, Some(user), Some(password)) => {
                vars.set(cpps_linstor::ENV_USERNAME, user);
                vars.secret(
                    cpps_linstor::ENV_PASSWORD,
                    &password.resolve(cx.lookup, &format!("{path}.password"))?,
                );
            }
            (None, _, _) => {}
        }
        Ok(())
    })?;
    let mut builder = cpps_linstor::ClientBuilder::from_env(&env).map_err(|e| invalid(path, &e))?;
    // golinstor has no variable holding a bearer token itself (only LS_BEARER_TOKEN_FILE), so a
    // token named by variable is handed to the builder directly.
    if let Some(token @ SecretRef::Env(_)) = &l.bearer_token {
        builder = builder.credentials(cpps_linstor::Credentials::bearer(
            token.resolve(cx.lookup, &format!("{path}.bearer_token"))?,
        ));
    }
    let client = builder
        .http_settings(|http| cx.options.transport(http))
        .retry(cx.options.retry())
        .build()
        .map_err(|e| invalid(path, &e))?;
    Ok(LinstorSource::new(client))
}

fn pbs_source(p: &PbsEndpoint, path: &str, cx: &BuildCx<'_>) -> Result<PbsSource, EndpointsError> {
    let env = cx.client_env(|vars| {
        vars.set(cpps_pbs::ENV_REPOSITORY, &p.repository);
        vars.secret(
            cpps_pbs::ENV_PASSWORD,
            &p.password.resolve(cx.lookup, &format!("{path}.password"))?,
        );
        if let Some(fingerprint) = &p.fingerprint {
            vars.set(cpps_pbs::ENV_FINGERPRINT, fingerprint);
        }
        if let Some(url) = &p.url {
            vars.set(cpps_pbs::ENV_URL, url);
        }
        Ok(())
    })?;
    let builder = cpps_pbs::ClientBuilder::from_env(&env).map_err(|e| invalid(path, &e))?;
    let repository: cpps_pbs::Repository = p
        .repository
        .parse()
        .map_err(|e: cpps_pbs::Error| invalid(&format!("{path}.repository"), &e))?;
    let endpoint = p
        .url
        .clone()
        .unwrap_or_else(|| repository.base_url().to_string());
    let client = builder
        .http_settings(|http| cx.options.transport(http))
        .retry(cx.options.retry())
        .build()
        .map_err(|e| invalid(path, &e))?;
    Ok(PbsSource::new(client, endpoint))
}

fn vyos_source(
    v: &VyosEndpoint,
    path: &str,
    cx: &BuildCx<'_>,
) -> Result<VyosSource, EndpointsError> {
    let env = cx.client_env(|vars| {
        vars.set(cpps_vyos::ENV_URL, &v.url);
        vars.secret(
            cpps_vyos::ENV_API_KEY,
            &v.key.resolve(cx.lookup, &format!("{path}.key"))?,
        );
        Ok(())
    })?;
    let mut builder = cpps_vyos::ClientBuilder::from_env(&env).map_err(|e| invalid(path, &e))?;
    if !cx.from_environment {
        builder = builder.tls(v.tls.mode(path)?);
    }
    let client = builder
        .http_settings(|http| cx.options.transport(http))
        .build()
        .map_err(|e| invalid(path, &e))?;
    Ok(VyosSource::new(client, v.url.clone()))
}

impl fmt::Display for TlsChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::System => f.write_str("system roots"),
            Self::CaFile(p) => write!(f, "CA file {}", p.display()),
            Self::Fingerprint(fp) => write!(f, "pinned {fp}"),
            Self::Insecure => f.write_str("INSECURE (no verification)"),
        }
    }
}
