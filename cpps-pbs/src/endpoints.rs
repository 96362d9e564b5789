//! The one table of the PBS API endpoints this crate calls, as data of the Proxmox family's
//! [`Endpoint`] type (the same type `cpps-proxmox`'s table is).
//!
//! Every request of the client is built from an entry of [`ENDPOINTS`] ([`Endpoint::call`]),
//! and debug builds check that each parameter a method sends is declared in its entry with its
//! type. The conformance test (`tests/conformance.rs`) walks this table against
//! `pbs-apidoc.json` with the family's one check (`ApiDoc::check_table`: path, method,
//! parameter names and types, the answer's kind and members, version gates), then compares
//! every typed answer's JSON Schema with the schema's.

pub(crate) use cpps_proxmox_family::Call;
use cpps_proxmox_family::{Answer, LogLine, Param, ServerVersion, TaskStatus};
pub use cpps_proxmox_family::{Endpoint, Returns};

use crate::types::{
    BackupGroup, Datastore, DatastoreStatus, DatastoreUsage, GcStatus, Namespace, PruneJob, Remote,
    Snapshot, SyncJob, TaskListItem, VerifyJob, Version,
};

/// `GET /version` (read once per client: the release decides the gates below).
pub const VERSION: Endpoint = Endpoint::new(
    "GET",
    "/version",
    Returns::Object(Answer::of::<Version>("Version")),
);

/// The first release that serves `GET /admin/gc` (the garbage-collection job list):
/// proxmox-backup added `src/api2/admin/gc.rs` ("api: garbage collect job status", April 2024)
/// before the 3.2.0-1 release ("fix #3217: ui: add global prune and GC job view" in
/// `debian/changelog`); PBS 3.0 and 3.1 answer 404. (Issue 14 said 3.2.2; the repository's
/// history puts it in 3.2.0, and the client follows the server.)
pub const GC_JOBS_SINCE: ServerVersion = ServerVersion::new(3, 2, 0);

/// The first release whose `GET /admin/sync` takes `sync-direction` (push sync jobs, PBS
/// 3.3). Up to 3.2, proxmox-backup `src/api2/admin/sync.rs` `list_sync_jobs` declares only
/// `store`, and an object schema without additional properties rejects any other parameter
/// ("schema does not allow additional properties"); PBS 4's schema (`pbs-apidoc.json`) has it.
pub const SYNC_DIRECTION_SINCE: ServerVersion = ServerVersion::new(3, 3, 0);

/// `GET /admin/datastore`.
pub const DATASTORES: Endpoint = Endpoint::new(
    "GET",
    "/admin/datastore",
    Returns::List(Answer::of::<Datastore>("Datastore")),
);

/// `GET /admin/datastore/{store}/status`.
pub const DATASTORE_STATUS: Endpoint = Endpoint::new(
    "GET",
    "/admin/datastore/{store}/status",
    Returns::Object(Answer::of::<DatastoreStatus>("DatastoreStatus")),
)
.params(&[Param::boolean("verbose")]);

/// `GET /status/datastore-usage`.
pub const DATASTORE_USAGE: Endpoint = Endpoint::new(
    "GET",
    "/status/datastore-usage",
    Returns::List(Answer::of::<DatastoreUsage>("DatastoreUsage")),
);

/// `GET /admin/datastore/{store}/namespace`.
pub const NAMESPACES: Endpoint = Endpoint::new(
    "GET",
    "/admin/datastore/{store}/namespace",
    Returns::List(Answer::of::<Namespace>("Namespace")),
)
.params(&[Param::string("parent"), Param::integer("max-depth")]);

/// `GET /admin/datastore/{store}/groups`.
pub const GROUPS: Endpoint = Endpoint::new(
    "GET",
    "/admin/datastore/{store}/groups",
    Returns::List(Answer::of::<BackupGroup>("BackupGroup")),
)
.params(&[Param::string("ns")]);

/// `GET /admin/datastore/{store}/snapshots`.
pub const SNAPSHOTS: Endpoint = Endpoint::new(
    "GET",
    "/admin/datastore/{store}/snapshots",
    Returns::List(Answer::of::<Snapshot>("Snapshot")),
)
.params(&[
    Param::string("ns"),
    Param::string("backup-type"),
    Param::string("backup-id"),
]);

/// `GET /admin/datastore/{store}/gc`.
pub const GC_STATUS: Endpoint = Endpoint::new(
    "GET",
    "/admin/datastore/{store}/gc",
    Returns::Object(Answer::of::<GcStatus>("GcStatus")),
);

/// `GET /admin/gc`.
pub const GC_JOBS: Endpoint = Endpoint::new(
    "GET",
    "/admin/gc",
    Returns::List(Answer::of::<GcStatus>("GcStatus")),
)
.params(&[Param::string("store")])
.since(GC_JOBS_SINCE);

/// `GET /admin/prune`.
pub const PRUNE_JOBS: Endpoint = Endpoint::new(
    "GET",
    "/admin/prune",
    Returns::List(Answer::of::<PruneJob>("PruneJob")),
)
.params(&[Param::string("store")]);

/// `GET /admin/sync`.
pub const SYNC_JOBS: Endpoint = Endpoint::new(
    "GET",
    "/admin/sync",
    Returns::List(Answer::of::<SyncJob>("SyncJob")),
)
.params(&[
    Param::string("store"),
    Param::string("sync-direction").since(SYNC_DIRECTION_SINCE),
]);

/// `GET /admin/verify`.
pub const VERIFY_JOBS: Endpoint = Endpoint::new(
    "GET",
    "/admin/verify",
    Returns::List(Answer::of::<VerifyJob>("VerifyJob")),
)
.params(&[Param::string("store")]);

/// `GET /config/remote`.
pub const REMOTES: Endpoint = Endpoint::new(
    "GET",
    "/config/remote",
    Returns::List(Answer::of::<Remote>("Remote")),
);

/// `GET /config/remote/{name}/scan/{store}/groups`: the groups of a remote's datastore, read
/// by this server with the remote's own credentials (proxmox-backup `src/api2/config/remote.rs`,
/// `scan_remote_groups`, which forwards to the remote's `admin/datastore/{store}/groups`; needs
/// `Remote.Audit` on `/remote/{name}`).
pub const REMOTE_SCAN_GROUPS: Endpoint = Endpoint::new(
    "GET",
    "/config/remote/{name}/scan/{store}/groups",
    Returns::List(Answer::of::<BackupGroup>("BackupGroup")),
)
.params(&[Param::string("namespace")]);

/// `GET /access/permissions`: the caller's privileges per ACL path (a map of maps, read
/// through its keys).
pub const PERMISSIONS: Endpoint = Endpoint::new(
    "GET",
    "/access/permissions",
    Returns::Object(Answer::keys("Permissions", || &[])),
)
.params(&[Param::string("path")]);

/// `POST /admin/sync/{id}/run`: runs a sync job now.
pub const RUN_SYNC_JOB: Endpoint =
    Endpoint::new("POST", "/admin/sync/{id}/run", Returns::UndocumentedUpid);

/// `POST /admin/verify/{id}/run`: runs a verify job now.
pub const RUN_VERIFY_JOB: Endpoint =
    Endpoint::new("POST", "/admin/verify/{id}/run", Returns::UndocumentedUpid);

/// `POST /admin/prune/{id}/run`: runs a prune job now.
pub const RUN_PRUNE_JOB: Endpoint =
    Endpoint::new("POST", "/admin/prune/{id}/run", Returns::UndocumentedUpid);

/// `POST /admin/datastore/{store}/verify`: verifies a datastore, namespace, group or snapshot.
pub const VERIFY_DATASTORE: Endpoint =
    Endpoint::new("POST", "/admin/datastore/{store}/verify", Returns::Upid).params(&[
        Param::string("ns"),
        Param::string("backup-type"),
        Param::string("backup-id"),
        Param::integer("backup-time"),
        Param::boolean("ignore-verified"),
        Param::integer("outdated-after"),
    ]);

/// `GET /nodes/{node}/tasks`.
pub const TASKS: Endpoint = Endpoint::new(
    "GET",
    "/nodes/{node}/tasks",
    Returns::List(Answer::of::<TaskListItem>("TaskListItem")),
)
.params(&[
    Param::integer("since"),
    Param::integer("until"),
    Param::integer("limit"),
    Param::integer("start"),
    Param::boolean("running"),
    Param::boolean("errors"),
    Param::string("store"),
    Param::string("typefilter"),
    Param::string("userfilter"),
]);

/// `GET /nodes/{node}/tasks/{upid}/status`.
pub const TASK_STATUS: Endpoint = Endpoint::new(
    "GET",
    "/nodes/{node}/tasks/{upid}/status",
    Returns::Object(Answer::of::<TaskStatus>("family::TaskStatus")),
);

/// `GET /nodes/{node}/tasks/{upid}/log` (read by `cpps-proxmox`'s task wait when a task fails).
pub const TASK_LOG: Endpoint = Endpoint::new(
    "GET",
    "/nodes/{node}/tasks/{upid}/log",
    Returns::UndocumentedList(Answer::of::<LogLine>("family::LogLine")),
)
.params(&[Param::integer("start"), Param::integer("limit")]);

/// `POST /access/ticket` (the ticket login of `cpps-proxmox`'s `TicketAuth`).
pub const TICKET: Endpoint = Endpoint::new(
    "POST",
    "/access/ticket",
    Returns::Object(Answer::keys("family::Ticket", || {
        &["ticket", "CSRFPreventionToken"]
    })),
)
.params(&[Param::string("username"), Param::string("password")]);

/// Every endpoint the crate calls.
pub const ENDPOINTS: &[&Endpoint] = &[
    &VERSION,
    &DATASTORES,
    &DATASTORE_STATUS,
    &DATASTORE_USAGE,
    &NAMESPACES,
    &GROUPS,
    &SNAPSHOTS,
    &GC_STATUS,
    &GC_JOBS,
    &PRUNE_JOBS,
    &SYNC_JOBS,
    &VERIFY_JOBS,
    &REMOTES,
    &REMOTE_SCAN_GROUPS,
    &PERMISSIONS,
    &RUN_SYNC_JOB,
    &RUN_VERIFY_JOB,
    &RUN_PRUNE_JOB,
    &VERIFY_DATASTORE,
    &TASKS,
    &TASK_STATUS,
    &TASK_LOG,
    &TICKET,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_filled_and_encoded() {
        assert_eq!(
            SNAPSHOTS.fill_path(&["store 1"]),
            "admin/datastore/store%201/snapshots"
        );
        assert_eq!(
            TASK_STATUS.fill_path(&["pbs1", "UPID:pbs1:0000:x:"]),
            "nodes/pbs1/tasks/UPID%3Apbs1%3A0000%3Ax%3A/status"
        );
        assert_eq!(DATASTORES.fill_path(&[]), "admin/datastore");
        assert_eq!(
            TASK_STATUS.path_params().collect::<Vec<_>>(),
            ["node", "upid"]
        );
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "parameter `verbose` (boolean) is not declared")]
    fn undeclared_parameters_are_a_bug() {
        let _ = GROUPS.call(&["store1"]).boolean("verbose", Some(true));
    }

    #[test]
    fn declared_parameters_reach_the_query() {
        let request = SNAPSHOTS
            .call(&["store1"])
            .string("backup-type", Some("vm"))
            .string("ns", None)
            .into_request();
        assert_eq!(request.path(), "admin/datastore/store1/snapshots");
        assert_eq!(format!("{request:?}").matches("backup-type").count(), 1);
        assert!(!format!("{request:?}").contains("\"ns\""));
    }

    #[test]
    fn the_gates_are_the_ones_the_client_applies() {
        use cpps_proxmox_family::Gate;
        assert_eq!(GC_JOBS.gate, Gate::Since(GC_JOBS_SINCE));
        assert_eq!(
            SYNC_JOBS.param("sync-direction").map(|p| p.gate),
            Some(Gate::Since(SYNC_DIRECTION_SINCE))
        );
    }

    #[test]
    #[should_panic(expected = "missing argument")]
    fn missing_path_arguments_are_a_bug() {
        let _ = GROUPS.fill_path(&[]);
    }
}
