//! The cluster inventory behind the `inventory` example: configuration from the environment
//! (as the bpg Terraform provider reads it) and a JSON/text report of nodes and guests.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use cpps_http::{SecretString, TlsMode};
use serde::Serialize;

use crate::types::{GuestKind, ResourceFilter};
use crate::{Client, ClientBuilder, Error, GuestConfig, GuestRef};

/// Builds a client configuration from `PROXMOX_VE_*` variables, read through `lookup` (pass
/// `|k| std::env::var(k).ok()`):
///
/// - `PROXMOX_VE_ENDPOINT` (`https://host:8006/`), required;
/// - `PROXMOX_VE_API_TOKEN` (`user@realm!id=secret`), or `PROXMOX_VE_USERNAME` and
///   `PROXMOX_VE_PASSWORD`;
/// - at most one of `PROXMOX_VE_CA_FILE`, `PROXMOX_VE_FINGERPRINT` (SHA-256, `AA:BB:…`) and
///   `PROXMOX_VE_INSECURE=true`; none means the system roots.
pub fn builder_from_env(lookup: impl Fn(&str) -> Option<String>) -> Result<ClientBuilder, Error> {
    let get = |k: &str| lookup(k).filter(|v| !v.trim().is_empty());
    let endpoint = get("PROXMOX_VE_ENDPOINT").ok_or_else(|| Error::Config {
        reason: "PROXMOX_VE_ENDPOINT is not set (e.g. https://host:8006/)".to_owned(),
    })?;
    let mut builder = Client::builder(endpoint);
    builder = match (
        get("PROXMOX_VE_API_TOKEN"),
        get("PROXMOX_VE_USERNAME"),
        get("PROXMOX_VE_PASSWORD"),
    ) {
        (Some(token), None, None) => builder.api_token_str(&token)?,
        (None, Some(user), Some(password)) => {
            builder.password(user.parse()?, SecretString::from(password))
        }
        (Some(_), _, _) => {
            return Err(Error::Config {
                reason: "set either PROXMOX_VE_API_TOKEN or PROXMOX_VE_USERNAME and PROXMOX_VE_PASSWORD, not both".to_owned(),
            });
        }
        _ => {
            return Err(Error::Config {
                reason: "set PROXMOX_VE_API_TOKEN, or PROXMOX_VE_USERNAME and PROXMOX_VE_PASSWORD"
                    .to_owned(),
            });
        }
    };
    let insecure = match get("PROXMOX_VE_INSECURE").map(|v| v.trim().to_ascii_lowercase()) {
        None => false,
        Some(v) if matches!(v.as_str(), "1" | "true" | "yes") => true,
        Some(v) if matches!(v.as_str(), "0" | "false" | "no") => false,
        Some(v) => {
            return Err(Error::Config {
                reason: format!("PROXMOX_VE_INSECURE must be true or false, not `{v}`"),
            });
        }
    };
    let tls = match (
        get("PROXMOX_VE_CA_FILE"),
        get("PROXMOX_VE_FINGERPRINT"),
        insecure,
    ) {
        (None, None, false) => TlsMode::SystemRoots,
        (Some(ca), None, false) => TlsMode::ca_file(ca),
        (None, Some(fp), false) => TlsMode::pinned(&fp)?,
        (None, None, true) => TlsMode::danger_accept_invalid_certs(),
        _ => {
            return Err(Error::Config {
                reason: "set only one of PROXMOX_VE_CA_FILE, PROXMOX_VE_FINGERPRINT and PROXMOX_VE_INSECURE".to_owned(),
            });
        }
    };
    Ok(builder.tls(tls))
}

/// A node in the inventory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct InventoryNode {
    /// Node name.
    pub node: String,
    /// `online`, `offline`, `unknown`.
    pub status: String,
}

/// A guest in the inventory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct InventoryGuest {
    /// Node it is on.
    pub node: String,
    /// Guest id.
    pub vmid: u32,
    /// `qemu` or `lxc`.
    pub kind: GuestKind,
    /// Name (host name for containers).
    pub name: Option<String>,
    /// `running`, `stopped`, …
    pub status: String,
    /// Containers only: whether it is privileged (`unprivileged` absent or 0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub privileged: Option<bool>,
    /// The HA state when the HA manager manages it (`started`, `stopped`, …), else `null`.
    pub ha: Option<String>,
}

/// `{"nodes":[…],"guests":[…]}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Inventory {
    /// Nodes, by name.
    pub nodes: Vec<InventoryNode>,
    /// Guests, by id.
    pub guests: Vec<InventoryGuest>,
}

/// Collects the inventory: `GET /nodes`, `GET /cluster/resources?type=vm`,
/// `GET /cluster/ha/resources`, and `GET /nodes/{node}/lxc/{vmid}/config` for every container
/// (at most `concurrency` at once) to tell privileged ones.
pub async fn collect(client: &Client, concurrency: usize) -> Result<Inventory, Error> {
    let cluster = client.cluster();
    let (nodes, resources, ha) = futures::try_join!(
        client.nodes(),
        cluster.resources(Some(ResourceFilter::Vm)),
        cluster.ha_resources(),
    )?;
    let ha_state: BTreeMap<String, String> = ha
        .into_iter()
        .filter_map(|r| Some((r.guest()?.vmid.to_string(), r.state?)))
        .collect();
    let containers: Vec<GuestRef> = resources
        .iter()
        .filter_map(GuestRef::from_resource)
        .filter(|g| g.kind == GuestKind::Lxc)
        .collect();
    let mut privileged = BTreeMap::new();
    for (guest, result) in client.guest_configs(containers, concurrency).await {
        if let GuestConfig::Lxc(config) = result? {
            privileged.insert(guest.vmid, config.is_privileged()?);
        }
    }
    let mut guests: Vec<InventoryGuest> = resources
        .iter()
        .filter_map(|r| {
            let guest = GuestRef::from_resource(r)?;
            Some(InventoryGuest {
                node: guest.node.to_string(),
                vmid: guest.vmid.get(),
                kind: guest.kind,
                name: r.name.clone(),
                status: r.status.clone().unwrap_or_else(|| "unknown".to_owned()),
                privileged: privileged.get(&guest.vmid).copied(),
                ha: r
                    .hastate
                    .clone()
                    .or_else(|| ha_state.get(&guest.vmid.to_string()).cloned()),
            })
        })
        .collect();
    guests.sort_by_key(|g| g.vmid);
    let mut nodes: Vec<InventoryNode> = nodes
        .into_iter()
        .map(|n| InventoryNode {
            node: n.node.to_string(),
            status: n.status.to_string(),
        })
        .collect();
    nodes.sort_by(|a, b| a.node.cmp(&b.node));
    Ok(Inventory { nodes, guests })
}

impl Inventory {
    /// A plain-text report: nodes, then one line per guest.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "NODE                 STATUS");
        for n in &self.nodes {
            let _ = writeln!(out, "{:<20} {}", n.node, n.status);
        }
        let _ = writeln!(out);
        let _ = writeln!(
            out,
            "{:<10} {:<5} {:<16} {:<24} {:<9} {:<11} HA",
            "VMID", "KIND", "NODE", "NAME", "STATUS", "PRIVILEGED"
        );
        for g in &self.guests {
            let privileged = match g.privileged {
                Some(true) => "yes",
                Some(false) => "no",
                None => "-",
            };
            let _ = writeln!(
                out,
                "{:<10} {:<5} {:<16} {:<24} {:<9} {:<11} {}",
                g.vmid,
                g.kind.as_str(),
                g.node,
                g.name.as_deref().unwrap_or("-"),
                g.status,
                privileged,
                g.ha.as_deref().unwrap_or("-")
            );
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: BTreeMap<String, String> = pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        move |k| map.get(k).cloned()
    }

    #[test]
    fn env_config_is_checked() {
        assert!(
            builder_from_env(env(&[]))
                .unwrap_err()
                .to_string()
                .contains("PROXMOX_VE_ENDPOINT")
        );
        let ok = builder_from_env(env(&[
            ("PROXMOX_VE_ENDPOINT", "https://127.0.0.1:8006/"),
            ("PROXMOX_VE_API_TOKEN", "root@pam!ci=secret-value"),
            ("PROXMOX_VE_INSECURE", "true"),
        ]))
        .unwrap();
        let debug = format!("{ok:?}");
        assert!(debug.contains("DangerAcceptInvalidCerts"), "{debug}");
        assert!(!debug.contains("secret-value"), "{debug}");
        let both = builder_from_env(env(&[
            ("PROXMOX_VE_ENDPOINT", "https://127.0.0.1:8006/"),
            ("PROXMOX_VE_API_TOKEN", "root@pam!ci=x"),
            ("PROXMOX_VE_CA_FILE", "/tmp/ca.pem"),
            ("PROXMOX_VE_INSECURE", "1"),
        ]))
        .unwrap_err();
        assert!(both.to_string().contains("only one"), "{both}");
        let missing = builder_from_env(env(&[
            ("PROXMOX_VE_ENDPOINT", "https://127.0.0.1:8006/"),
            ("PROXMOX_VE_USERNAME", "root@pam"),
        ]))
        .unwrap_err();
        assert!(
            missing.to_string().contains("PROXMOX_VE_PASSWORD"),
            "{missing}"
        );
    }
}
