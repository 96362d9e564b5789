//! What the caller's rights (`GET /access/permissions`, proxmox-backup
//! `src/api2/access/mod.rs` `list_permissions`: the default paths `/`, `/access`,
//! `/datastore`, `/remote`, `/system` and each ACL path, where the caller holds something,
//! path → privilege → propagates) say about the lists PBS filters by them.

use cpps_pbs::rights::{datastores_hidden, sync_jobs_hidden};
use cpps_pbs::types::Permissions;

fn rights(value: serde_json::Value) -> Permissions {
    serde_json::from_value(value).expect("a rights answer")
}

/// `Audit` on `/` (pbs-api-types `src/acl.rs` `ROLE_AUDIT`: Sys.Audit and Datastore.Audit)
/// makes the datastore list whole (`src/api2/admin/datastore.rs` `get_datastore_list`), but
/// not the sync job list: `src/api2/config/sync.rs` `check_sync_job_read_access` also wants
/// Remote.Audit, which only `RemoteAudit` (or an admin role) grants.
#[test]
fn the_audit_role_sees_every_datastore_but_not_every_sync_job() {
    let audit = serde_json::json!({"Datastore.Audit": true, "Sys.Audit": true});
    let held = rights(serde_json::json!({
        "/": audit, "/access": audit, "/datastore": audit, "/remote": audit, "/system": audit
    }));
    assert_eq!(datastores_hidden(Ok(&held)), None);
    assert_eq!(
        sync_jobs_hidden(Ok(&held)).as_deref(),
        Some("the token lacks Remote.Audit propagating from /remote")
    );
}

/// With Remote.Audit on `/remote` the list is whole, unless a deeper ACL replaces what the
/// parents grant (`pbs-config/src/acl.rs` `AclTree::roles`): here `DatastoreBackup` on a
/// namespace, where a job anchored there needs Datastore.Audit.
#[test]
fn a_deeper_acl_without_audit_may_hide_a_sync_job() {
    let audit = serde_json::json!({"Datastore.Audit": true, "Remote.Audit": true});
    let mut held = rights(serde_json::json!({"/": audit, "/datastore": audit, "/remote": audit}));
    assert_eq!(sync_jobs_hidden(Ok(&held)), None);
    held.insert(
        "/datastore/store1/ns1".to_owned(),
        [("Datastore.Backup".to_owned(), true)].into(),
    );
    assert_eq!(
        sync_jobs_hidden(Ok(&held)).as_deref(),
        Some("the token lacks Datastore.Audit on /datastore/store1/ns1")
    );
}

/// Rights that could not be read say nothing: both lists may be filtered.
#[test]
fn unread_rights_leave_both_lists_in_doubt() {
    assert!(datastores_hidden(Err("403 Forbidden")).is_some_and(|w| w.contains("403")));
    assert!(sync_jobs_hidden(Err("403 Forbidden")).is_some_and(|w| w.contains("403")));
}

/// M6 (audit 31, fourth look): an ACL on `/datastore/store2` that grants only
/// `Datastore.Prune` replaces the inherited Audit there (`pbs-config/src/acl.rs`
/// `AclTree::roles`), and `get_datastore_list` (proxmox-backup
/// `src/api2/admin/datastore.rs`) lists a datastore only with Audit or Backup on it, or one
/// of `NS_PRIVS_OK` on a namespace below: store2 is left out. With Backup on a namespace of
/// it, it is listed.
#[test]
fn a_datastores_own_acl_without_audit_hides_it_from_the_list() {
    let audit = serde_json::json!({"Datastore.Audit": true});
    let mut held = rights(serde_json::json!({"/": audit, "/datastore": audit}));
    assert_eq!(datastores_hidden(Ok(&held)), None);
    held.insert(
        "/datastore/store2".to_owned(),
        [("Datastore.Prune".to_owned(), true)].into(),
    );
    assert_eq!(
        datastores_hidden(Ok(&held)).as_deref(),
        Some(
            "the credentials hold neither Datastore.Audit nor Datastore.Backup on /datastore/store2"
        )
    );
    held.insert(
        "/datastore/store2/ns1".to_owned(),
        [("Datastore.Backup".to_owned(), true)].into(),
    );
    assert_eq!(datastores_hidden(Ok(&held)), None);
}

/// M7 (audit 31, fourth look): a role held on a deeper path without propagating applies to
/// that node alone, and below it what propagated from above still holds; a propagating role
/// there replaces it (`pbs-config/src/acl.rs` `AclTree::roles`, `extract_user_roles`). So
/// Audit held on `/datastore/store1` without propagating (`false` in the answer) hides no sync
/// job, while Audit without propagating beside a propagating Backup does: below store1 the
/// Backup role alone holds.
#[test]
fn audit_held_without_propagating_on_a_deeper_path_hides_no_sync_job() {
    let audit = serde_json::json!({"Datastore.Audit": true, "Remote.Audit": true});
    let mut held = rights(serde_json::json!({"/": audit, "/datastore": audit, "/remote": audit}));
    held.insert(
        "/datastore/store1".to_owned(),
        [("Datastore.Audit".to_owned(), false)].into(),
    );
    assert_eq!(sync_jobs_hidden(Ok(&held)), None);
    held.insert(
        "/datastore/store1".to_owned(),
        [
            ("Datastore.Audit".to_owned(), false),
            ("Datastore.Backup".to_owned(), true),
        ]
        .into(),
    );
    assert_eq!(
        sync_jobs_hidden(Ok(&held)).as_deref(),
        Some("the token lacks Datastore.Audit on /datastore/store1")
    );
}
