//! The caller's rights on PBS's ACL paths. A deeper ACL replaces what a path inherits
//! (proxmox-backup `pbs-config/src/acl.rs` `AclTree::roles`), so only the answer for a path
//! itself says what the caller may see there; both the backup chain and the report read it.

use std::collections::BTreeMap;

/// The caller's rights on ACL paths, each as `GET /access/permissions?path=` answered for it,
/// or why that could not be read; keyed by the path ([`acl_path`]).
pub type PathRights = BTreeMap<String, Result<crate::types::Permissions, String>>;

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

/// Why `GET /admin/datastore` may leave datastores out, if it may, from the caller's rights
/// (`GET /access/permissions`: path → privilege → propagates, proxmox-backup
/// `src/api2/access/mod.rs` `list_permissions`) or why they could not be read. PBS lists only
/// the datastores the caller may audit or back up to, or holds a privilege below
/// (`src/api2/admin/datastore.rs` `get_datastore_list`), so only `Datastore.Audit` or
/// `Datastore.Backup` propagating from `/datastore` makes the list whole, unless a datastore's
/// own ACL replaces it with rights that do not list it. A deeper ACL that
/// grants the caller nothing is left out of the rights answer too, so it stays assumed.
pub fn datastores_hidden(rights: Result<&crate::types::Permissions, &str>) -> Option<String> {
    let rights = match rights {
        Ok(rights) => rights,
        Err(e) => return Some(format!("the credentials' rights could not be read ({e})")),
    };
    let propagates = |privilege: &str| {
        rights
            .get("/datastore")
            .and_then(|p| p.get(privilege))
            .copied()
            .unwrap_or(false)
    };
    if !propagates("Datastore.Audit") && !propagates("Datastore.Backup") {
        return Some(
            "the credentials hold neither Datastore.Audit nor Datastore.Backup propagating \
             from /datastore"
                .to_owned(),
        );
    }
    let hidden: Vec<String> = rights
        .keys()
        .filter(|path| store_hidden(rights, path))
        .map(|path| {
            format!("the credentials hold neither Datastore.Audit nor Datastore.Backup on {path}")
        })
        .collect();
    (!hidden.is_empty()).then(|| hidden.join("; "))
}

/// Whether the rights answer's `path`, a datastore's own (`/datastore/{store}`), replaces the
/// inherited Audit with rights that do not list it: `get_datastore_list` lists a datastore
/// with `Datastore.Audit` or `Datastore.Backup` there, or with one of `NS_PRIVS_OK`
/// (Modify, Read, Backup, Audit) on a namespace below (`any_privs_below`).
fn store_hidden(rights: &crate::types::Permissions, path: &str) -> bool {
    let Some(store) = path.strip_prefix("/datastore/") else {
        return false;
    };
    if store.contains('/') {
        return false;
    }
    let holds = |p: &str, privileges: &[&str]| {
        rights
            .get(p)
            .is_some_and(|held| privileges.iter().any(|n| held.contains_key(*n)))
    };
    let below = format!("{path}/");
    let ns_privs = [
        "Datastore.Modify",
        "Datastore.Read",
        "Datastore.Backup",
        "Datastore.Audit",
    ];
    !holds(path, &["Datastore.Audit", "Datastore.Backup"])
        && !rights
            .keys()
            .any(|p| p.starts_with(&below) && holds(p, &ns_privs))
}

/// Why `GET /admin/sync` may leave sync jobs out, of any datastore, if it may, from the
/// caller's rights or why they could not be read. PBS lists a job only with
/// `Datastore.Audit` on the job's datastore path and `Remote.Audit` on its remote's path
/// (proxmox-backup `src/api2/config/sync.rs` `check_sync_job_read_access`), filtering rather
/// than refusing, so the list is whole only with both propagating from `/datastore` and
/// `/remote` and no deeper path of the rights answer granting something without them (a
/// deeper ACL replaces what its parents grant, `pbs-config/src/acl.rs` `AclTree::roles`).
pub fn sync_jobs_hidden(rights: Result<&crate::types::Permissions, &str>) -> Option<String> {
    let rights = match rights {
        Ok(rights) => rights,
        Err(e) => return Some(format!("the credentials' rights could not be read ({e})")),
    };
    let mut why = lacks_propagating(rights);
    why.extend(deeper_paths_without_audit(rights, "/datastore/"));
    (!why.is_empty()).then(|| why.join("; "))
}

/// Which of `Remote.Audit` on `/remote` and `Datastore.Audit` on `/datastore`, both
/// propagating, `rights` lack, each written "the token lacks … propagating from …": without
/// both, `GET /admin/sync` may leave jobs out anywhere ([`sync_jobs_hidden`]).
pub fn lacks_propagating(rights: &crate::types::Permissions) -> Vec<String> {
    [
        ("/remote", "Remote.Audit"),
        ("/datastore", "Datastore.Audit"),
    ]
    .into_iter()
    .filter(|(path, privilege)| rights.get(*path).and_then(|p| p.get(*privilege)) != Some(&true))
    .map(|(path, privilege)| format!("the token lacks {privilege} propagating from {path}"))
    .collect()
}

/// The paths of the whole rights answer (`GET /access/permissions`) where a hidden sync job
/// may be anchored, pull from or push to, each written "the token lacks … on {path}": a path
/// starting with `datastores` (`/datastore/` for any, `/datastore/{store}/` for one
/// datastore's namespaces) without `Datastore.Audit`, and a remote's path or one below it (a
/// push target's datastore or namespace) without `Remote.Audit`. The answer names every ACL
/// path where the caller holds some privilege, each with the privileges looked up there
/// (proxmox-backup `src/api2/access/mod.rs` `list_permissions`, `populate_acl_paths`), so an
/// ACL that replaces an inherited Audit with less shows here; what reaches a path's parent is
/// judged at the parent, so only what the path itself replaces counts ([`reaches`]).
pub fn deeper_paths_without_audit(
    rights: &crate::types::Permissions,
    datastores: &str,
) -> Vec<String> {
    rights
        .iter()
        .filter_map(|(path, held)| {
            let privilege = if path.starts_with(datastores) {
                "Datastore.Audit"
            } else if path.starts_with("/remote/") {
                "Remote.Audit"
            } else {
                return None;
            };
            (!reaches(held, &[privilege], true))
                .then(|| format!("the token lacks {privilege} on {path}"))
        })
        .collect()
}

/// Whether `held`, the privileges a rights answer gives for one path (privilege →
/// propagates), lets the caller reach what is anchored at that path and below it with one of
/// `wanted`. At the path itself a privilege counts however it is held; below it, a node's
/// propagating roles replace what its parents grant, while its non-propagating roles apply
/// to the node alone (`pbs-config/src/acl.rs` `AclTree::roles`, `extract_user_roles`), so a
/// path whose privileges all hold without propagating leaves below it what reached it
/// (`above`).
pub fn reaches(held: &BTreeMap<String, bool>, wanted: &[&str], above: bool) -> bool {
    let at_path = wanted.iter().any(|w| held.contains_key(*w));
    let below = if held.values().any(|propagates| *propagates) {
        wanted.iter().any(|w| held.get(*w) == Some(&true))
    } else {
        above
    };
    at_path && below
}
