//! The caller's rights on PBS's ACL paths. A deeper ACL replaces what a path inherits
//! (proxmox-backup `pbs-config/src/acl.rs` `AclTree::roles`), so only the answer for a path
//! itself says what the caller may see there; both the backup chain and the report read it.

/// The caller's rights on ACL paths, each as `GET /access/permissions?path=` answered for it,
/// or why that could not be read; keyed by the path ([`acl_path`]).
pub type PathRights = std::collections::BTreeMap<String, Result<crate::types::Permissions, String>>;

/// The ACL path of a datastore and namespace, as PBS checks it (pbs-api-types
/// `src/datastore.rs` `BackupNamespace::acl_path`: `/datastore/{store}` then the namespace's
/// components).
pub fn acl_path(store: &str, ns: &str) -> String {
    if ns.is_empty() {
        format!("/datastore/{store}")
    } else {
        format!("/datastore/{store}/{ns}")
    }
}

/// Asks PBS for the caller's rights on each of `paths`, once each
/// (`GET /access/permissions?path=…`, proxmox-backup `src/api2/access/mod.rs`
/// `list_permissions`, which answers only that path).
pub async fn read_paths(
    pbs: &crate::Client,
    paths: impl IntoIterator<Item = String>,
) -> PathRights {
    let mut rights = PathRights::new();
    for path in paths {
        if rights.contains_key(&path) {
            continue;
        }
        let answer = pbs
            .permissions(Some(&path))
            .await
            .map_err(|e| cpps_http::error_chain(&e));
        rights.insert(path, answer);
    }
    rights
}
